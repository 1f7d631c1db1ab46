// Package spoken writes text the way it is spoken: lower case, no
// punctuation, numbers in words. Reference transcripts are scored in this
// form (internal/lab/wer) and language models are trained on it
// (pipeline/asr/lm), so both agree with what a recognizer outputs.
package spoken

import (
	"strconv"
	"strings"
	"unicode"
)

var ones = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
	"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
var tens = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
var ordinals = map[string]string{"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
	"nine": "ninth", "twelve": "twelfth"}

// Words lower-cases text, removes punctuation and spells out numbers
// the way a speaker reads them: "2" two, "11:30" eleven thirty, "2nd"
// second, "$50" fifty dollars, "408-247-8880" digit by digit, "&" and.
func Words(text string) []string {
	var out []string
	for _, tok := range strings.Fields(strings.ToLower(text)) {
		out = append(out, token(tok)...)
	}
	return out
}

func token(tok string) []string {
	tok = strings.Trim(tok, ".,!?;:\"()[]{}")
	switch {
	case tok == "":
		return nil
	case tok == "&":
		return []string{"and"}
	case strings.HasPrefix(tok, "$"):
		return append(token(tok[1:]), "dollars")
	case strings.HasSuffix(tok, "%"):
		return append(token(strings.TrimSuffix(tok, "%")), "percent")
	}
	if h, m, ok := strings.Cut(tok, ":"); ok && isDigits(h) && isDigits(m) && len(m) == 2 {
		out := cardinal(h)
		if m != "00" {
			if m[0] == '0' {
				out = append(out, "oh")
			}
			out = append(out, cardinal(m)...)
		}
		return out
	}
	if strings.Count(tok, "-") >= 1 && isDigits(strings.ReplaceAll(tok, "-", "")) {
		var out []string
		for _, r := range strings.ReplaceAll(tok, "-", "") {
			out = append(out, ones[r-'0'])
		}
		return out
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if n := strings.TrimSuffix(tok, suf); n != tok && isDigits(n) {
			words := cardinal(n)
			last := words[len(words)-1]
			if o, ok := ordinals[last]; ok {
				words[len(words)-1] = o
			} else if strings.HasSuffix(last, "y") {
				words[len(words)-1] = strings.TrimSuffix(last, "y") + "ieth"
			} else {
				words[len(words)-1] = last + "th"
			}
			return words
		}
	}
	if isDigits(strings.ReplaceAll(tok, ",", "")) {
		return cardinal(strings.ReplaceAll(tok, ",", ""))
	}
	// Words: keep letters, digits and inner apostrophes; other marks split.
	var out []string
	for _, w := range strings.FieldsFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		if w = strings.Trim(w, "'"); w != "" {
			if isDigits(w) {
				out = append(out, cardinal(w)...)
			} else {
				out = append(out, w)
			}
		}
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// cardinal spells a whole number below a billion.
func cardinal(digits string) []string {
	n, err := strconv.Atoi(digits)
	if err != nil || n >= 1_000_000_000 {
		var out []string
		for _, r := range digits {
			out = append(out, ones[r-'0'])
		}
		return out
	}
	return spell(n)
}

func spell(n int) []string {
	switch {
	case n < 20:
		return []string{ones[n]}
	case n < 100:
		if n%10 == 0 {
			return []string{tens[n/10]}
		}
		return []string{tens[n/10], ones[n%10]}
	case n < 1000:
		out := append(spell(n/100), "hundred")
		if n%100 != 0 {
			out = append(out, spell(n%100)...)
		}
		return out
	}
	for _, unit := range []struct {
		size int
		name string
	}{{1_000_000, "million"}, {1000, "thousand"}} {
		if n >= unit.size {
			out := append(spell(n/unit.size), unit.name)
			if n%unit.size != 0 {
				out = append(out, spell(n%unit.size)...)
			}
			return out
		}
	}
	return nil
}
