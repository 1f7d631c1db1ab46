package core

import (
	"regexp"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis/numbers"
)

// Dates of birth: a date is personal data when its sentence names it as
// one ("my date of birth is march six nineteen ninety five", "DOB
// 03/06/1995", "born on the 6th of March, 1995"); other dates (a
// booking's, a delivery's) are what conversations are about and stay.

// birthWords are what name the date after them as a date of birth, with
// the words that may stand between ("is", "was", "on the"), from a word's
// beginning on: the context is `(?i)\b` and these (birthContexts).
const birthWords = `(?:date\s+of\s+birth|birth\s*date|birthday|born|d\.?o\.?b)\b\.?(?:[\s:,-]|\b(?:is|was|it's|its|on|in|the)\b)*`

var birthAt = regexp.MustCompile(`(?i)^` + birthWords)

// birthContexts are the matches in text of `(?i)\b` and birthWords, as
// FindAllStringIndex gives them, found faster: that search tried every
// position of a turn and cost more than the rest of the PII check, while
// a match can only begin at a word that begins with b or d.
func birthContexts(text string) [][]int {
	var out [][]int
	for i := 0; i < len(text); i++ {
		if c := text[i] | 0x20; c != 'b' && c != 'd' || i > 0 && isWordByte(text[i-1]) {
			continue
		}
		if m := birthAt.FindStringIndex(text[i:]); m != nil {
			out = append(out, []int{i, i + m[1]})
			i += m[1] - 1
		}
	}
	return out
}

// isWordByte is what \b counts as a word character.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// monthWords are the months' names and abbreviations.
var monthWords = setOf([]string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"})

// ordinalWords are the day ordinals a speaker says ("the sixth", "twenty
// first").
var ordinalWords = setOf([]string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
	"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
	"twentieth", "thirtieth"})

// numberWords are the words of a spoken number; dateJoiners the words
// that may stand between a date's parts ("the sixth of march").
var (
	numberWords = setOf(numbers.Words)
	dateJoiners = setOf([]string{"of", "the", "and"})
)

func setOf(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, w := range list {
		set[w] = true
	}
	return set
}

// writtenDate is a token that is a date or part of one: 03/06/1995,
// 1995-03-06, 6th, 1995.
var writtenDate = regexp.MustCompile(`^(?:\d{1,4}(?:[/.-]\d{1,4}){0,2}|\d{1,2}(?:st|nd|rd|th))$`)

// maxDateTokens bounds how far a date of birth reaches after its context.
const maxDateTokens = 12

// mentionsBirth is a glance for birthWords' words, which most turns
// do not have. Each of them holds a b: the glance looks only at the b's
// (found by a fast scan) and at the words a b would begin or end.
func mentionsBirth(text string) bool {
	for _, b := range [...]byte{'b', 'B'} {
		for at := 0; ; at++ {
			j := strings.IndexByte(text[at:], b)
			if j < 0 {
				break
			}
			at += j
			if hasPrefixFold(text[at:], "birth") || hasPrefixFold(text[at:], "born") ||
				at >= 2 && hasPrefixFold(text[at-2:], "dob") || at >= 4 && hasPrefixFold(text[at-4:], "d.o.b") {
				return true
			}
		}
	}
	return false
}

// saysDot reports whether text has " dot " or " Dot " (an address
// spoken), in one scan.
func saysDot(text string) bool {
	for at := 0; ; at++ {
		j := strings.Index(text[at:], "ot ")
		if j < 0 {
			return false
		}
		at += j
		if at >= 2 && text[at-2] == ' ' && text[at-1]|0x20 == 'd' {
			return true
		}
	}
}

// hasPrefixFold reports whether s begins with prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// datesOfBirth finds the dates that birthContexts names.
func datesOfBirth(text string) []Finding {
	if !mentionsBirth(text) {
		return nil
	}
	var out []Finding
	for _, m := range birthContexts(text) {
		if f, ok := dateAt(text, m[1]); ok {
			out = append(out, f)
		}
	}
	return out
}

// dateAt reads the date that starts at text[start:]: a run of date
// tokens (months, ordinals, number words, digits, "of", "the"), which
// holds a month and a number, or a written date.
func dateAt(text string, start int) (Finding, bool) {
	i, end := start, start
	var month, number, written bool
	for n := 0; n < maxDateTokens; n++ {
		for i < len(text) && (text[i] == ' ' || text[i] == ',') {
			i++
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != ',' {
			j++
		}
		word := strings.TrimRight(text[i:j], ".?!;:")
		tok := strings.ToLower(word)
		if tok == "" {
			break
		}
		if dateJoiners[tok] {
			i = j
			continue
		}
		isMonth, isWritten := monthWords[tok], writtenDate.MatchString(tok)
		isNumber := numberWords[tok] || ordinalWords[tok] || isWritten
		if !isMonth && !isNumber {
			break
		}
		month, number, written = month || isMonth, number || isNumber, written || isWritten && strings.ContainsAny(tok, "/.-")
		end = i + len(word)
		i = j
	}
	if end == start || !(month && number || written) {
		return Finding{}, false
	}
	return Finding{DOB, start, end}, true
}
