package core

import (
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis/words"
)

// spokenDigitWords are the words a recognizer writes for digits: word i
// is digit i, and "oh" is zero.
var spokenDigitWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "oh"}

var spokenDigits = words.New(spokenDigitWords)

// spokenDigitPrefixes are the words' words.Prefix values. The words are
// shorter than eight bytes, so a token is one of them exactly when its
// prefix is one of these (a longer token's prefix has no zero byte): a
// few comparisons, cheaper than a lookup for every token of a call.
var spokenDigitPrefixes = func() []uint64 {
	out := make([]uint64, len(spokenDigitWords))
	for i, w := range spokenDigitWords {
		out[i] = words.Prefix(w)
	}
	return out
}()

// spokenDigitStart marks the bytes a spoken digit starts with, to pass
// over most tokens at a glance.
var spokenDigitStart = func() (out [256]bool) {
	for _, w := range spokenDigitWords {
		out[w[0]] = true
	}
	return out
}()

// isSpokenDigit reports whether a token's words.Prefix is a spoken digit.
func isSpokenDigit(prefix uint64) bool {
	if !spokenDigitStart[byte(prefix)] {
		return false
	}
	for _, p := range spokenDigitPrefixes {
		if p == prefix {
			return true
		}
	}
	return false
}

// digitOf is the digit of spokenDigits' word n, if found.
func digitOf(n int, found bool) (byte, bool) {
	if !found {
		return 0, false
	}
	return '0' + byte(n%10), true
}

// spokenDigit reads a word as a spoken digit ("Four," is 4).
func spokenDigit(w string) (byte, bool) {
	w = strings.Trim(w, ".,")
	if len(w) < 2 || len(w) > 5 {
		return 0, false
	}
	var lower [5]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c // a non-ASCII byte matches no spoken digit
	}
	return digitOf(spokenDigits.FindBytes(lower[:len(w)]))
}

// spokenConfusions are words a recognizer writes for a spoken digit it
// misheard ("my card number's four one…" → "numbers for one…"), and
// spokenFillers words it writes for a pause inside a number: both count
// only inside or at the edge of a run of real spoken digits.
var (
	spokenConfusions = map[string]byte{"for": '4', "fore": '4', "or": '4', "to": '2', "too": '2', "won": '1', "want": '1', "ate": '8', "h": '8', "o": '0'}
	spokenFillers    = map[string]bool{"uh": true, "um": true, "er": true, "ah": true, "hmm": true}
	// spokenShapes are how people say digits in groups: "double five"
	// (55), "triple oh" (000), "one eight hundred" (1800), "plus four four"
	// (+44).
	spokenShapes = map[string]spokenToken{"double": {repeat: 2}, "triple": {repeat: 3}, "hundred": {hundred: true}, "plus": {plus: true}}
)

// spokenToken is a word's part in a spoken number: a digit, a confusion
// (with the digit it stands for), a filler, or none.
type spokenToken struct {
	word    string
	digit   byte
	real    bool // a spoken digit, not a confusion
	filler  bool
	repeat  int  // "double", "triple": the next digit, so many times
	hundred bool // "hundred": two zeros after a digit
	plus    bool // "plus": an international number's +, at its start
}

func readSpoken(w string) (spokenToken, bool) {
	if d, ok := spokenDigit(w); ok {
		return spokenToken{word: w, digit: d, real: true}, true
	}
	w2 := strings.Trim(w, ".,")
	if len(w2) == 0 || len(w2) > 7 || !inRunStart[w2[0]|0x20] {
		return spokenToken{}, false // nearly every word, at a glance
	}
	var lower [7]byte
	for i := 0; i < len(w2); i++ {
		lower[i] = w2[i] | 0x20 // ASCII letters only matter here
	}
	// Indexing with the conversion itself spares a string's allocation.
	if d, ok := spokenConfusions[string(lower[:len(w2)])]; ok {
		return spokenToken{word: w, digit: d}, true
	}
	if spokenFillers[string(lower[:len(w2)])] {
		return spokenToken{word: w, filler: true}, true
	}
	if t, ok := spokenShapes[string(lower[:len(w2)])]; ok {
		t.word = w
		return t, true
	}
	return spokenToken{}, false
}

// inRunStart marks the letters confusions, fillers and shapes start with.
var inRunStart = func() (out [256]bool) {
	for w := range spokenConfusions {
		out[w[0]] = true
	}
	for w := range spokenFillers {
		out[w[0]] = true
	}
	for w := range spokenShapes {
		out[w[0]] = true
	}
	return out
}()

// readDigits rewrites runs of four or more spoken digits ("four one five
// five") as digits ("4155"), as a recognizer writes a card or phone
// number; other words stay as they are. Inside a run, fillers ("uh") are
// dropped and confusions ("for", "to") read as digits; at its edges a
// confusion is read as a digit when that makes a card or phone number of
// the run. Findings are positions in this form, which Redact rewrites. It
// also returns the runs long enough to be a card number though no reading
// of them passes as one: a recognizer that got one digit wrong, dropped
// one or heard a word in their midst leaves such a run, and it is a card
// number all the same.
func readDigits(text string) (string, []Finding) {
	longest, run, repeat := 0, 0, 1
	for w := range strings.FieldsSeq(text) {
		switch t, ok := readSpoken(w); {
		case !ok:
			run, repeat = 0, 1
		case t.repeat > 0:
			repeat = t.repeat
		case t.hundred && run > 0:
			run += 2
		case t.real:
			run += repeat
			repeat = 1
		}
		longest = max(longest, run)
	}
	if longest < 4 {
		return text, nil // nearly always: no allocation
	}
	return rewriteSpoken(text)
}

// rewriteSpoken rewrites every run of spoken digits, noting the long ones.
func rewriteSpoken(text string) (string, []Finding) {
	var b strings.Builder
	var long []Finding
	write := func(w string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	var segment []spokenToken
	flush := func() {
		words, number, isLong := readSpokenRun(segment)
		for i, w := range words {
			write(w)
			if i == number && isLong {
				long = append(long, Finding{Card, b.Len() - len(w), b.Len()})
			}
		}
		segment = segment[:0]
	}
	defer func() { long = widenLong(b.String(), long) }()
	for w := range strings.FieldsSeq(text) {
		if t, ok := readSpoken(w); ok {
			segment = append(segment, t)
			continue
		}
		flush()
		write(w)
	}
	flush()
	return b.String(), long
}

// strayWords is how far a long run's finding reaches for a spoken digit
// the recognizer cut off from it ("five i made 1469…"): so many words.
const strayWords = 2

// widenLong takes into a long run's finding the words up to a spoken
// digit or confusion at most strayWords before or after it. The text is
// words joined by single spaces (rewriteSpoken writes it so).
func widenLong(text string, long []Finding) []Finding {
	for k, f := range long {
		at := f.Start // the start of the word before, walking back
		for range strayWords + 1 {
			if at < 2 {
				break
			}
			wordStart := strings.LastIndexByte(text[:at-1], ' ') + 1
			if _, ok := readSpoken(text[wordStart : at-1]); ok {
				f.Start = wordStart
			}
			at = wordStart
		}
		at = f.End // the end of the word after, walking on
		for range strayWords + 1 {
			if at+1 >= len(text) {
				break
			}
			wordEnd := len(text)
			if i := strings.IndexByte(text[at+1:], ' '); i >= 0 {
				wordEnd = at + 1 + i
			}
			if _, ok := readSpoken(text[at+1 : wordEnd]); ok {
				f.End = wordEnd
			}
			at = wordEnd
		}
		long[k] = f
	}
	return long
}

// longSpokenRun is how many digits a spoken run holds at least to be
// taken for a card number though it passes no check: more than any phone
// number or SSN has.
const longSpokenRun = 12

// readSpokenRun rewrites a stretch of digit, confusion and filler words:
// as they are when it holds fewer than four real spoken digits, else as a
// number with the words before and after it that are not part of it. It
// says where the number is among the words, and whether it is a long run
// that passes as no card or phone number (its widest reading then).
func readSpokenRun(toks []spokenToken) (words []string, number int, long bool) {
	words = make([]string, len(toks))
	first, last, real, repeat := -1, -1, 0, 1
	for i, t := range toks {
		words[i] = t.word
		switch {
		case t.repeat > 0 || t.plus:
			if first < 0 { // the group's start, when a digit follows
				first = i
			}
			repeat = max(repeat, t.repeat)
		case t.hundred && last >= 0:
			real += 2
			last = i
		case t.real:
			real += repeat
			repeat = 1
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if real < 4 {
		return words, -1, false
	}
	digits := func(ts []spokenToken) string {
		var b []byte
		repeat := 1
		for _, t := range ts {
			switch {
			case t.filler:
			case t.repeat > 0:
				repeat = t.repeat
			case t.plus:
				if len(b) == 0 {
					b = append(b, '+')
				}
			case t.hundred:
				if len(b) > 0 && b[len(b)-1] != '+' {
					b = append(b, '0', '0')
				}
			default:
				for range repeat {
					b = append(b, t.digit)
				}
				repeat = 1
			}
		}
		return string(b)
	}
	lead, core, trail := digits(toks[:first]), digits(toks[first:last+1]), digits(toks[last+1:])
	type reading struct {
		number      string
		lead, trail bool
	}
	readings := []reading{{lead + core + trail, true, true}, {lead + core, true, false}, {core + trail, false, true}, {core, false, false}}
	pick, matched := readings[3], false
	international := func(d string) bool { return d != "" && d[0] == '+' && internationalNumber(d) }
	for _, numberLike := range []func(string) bool{isCardNumber, isPhoneNumber, international} {
		if i := slices.IndexFunc(readings, func(r reading) bool { return numberLike(r.number) }); i >= 0 {
			pick, matched = readings[i], true
			break
		}
	}
	if !matched && len(onlyDigits(readings[0].number)) >= longSpokenRun {
		pick, long = readings[0], true
	}
	var out []string
	if !pick.lead {
		out = append(out, words[:first]...)
	}
	number = len(out)
	out = append(out, pick.number)
	if !pick.trail {
		out = append(out, words[last+1:]...)
	}
	return out, number, long
}
