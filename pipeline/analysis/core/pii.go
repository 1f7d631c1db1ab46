package core

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
	"github.com/nyaruka/phonenumbers"
)

// PII kinds.
const (
	Card  = "card"
	SSN   = "ssn"
	Phone = "phone"
	Email = "email"
)

var piiKinds = []string{Card, SSN, Phone, Email}

// Finding is personal data found in a text, at bytes [Start, End).
type Finding struct {
	Kind       string
	Start, End int
}

var (
	ssnShape = regexp.MustCompile(`^\d{3}[ -]\d{2}[ -]\d{4}$`)
	email    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
)

// digitRuns are the stretches of digits with spaces, dashes, dots and
// parentheses between groups (and a leading + or parenthesis) that hold
// nine digits or more: the candidates for card numbers (13–19 digits,
// Luhn-valid), SSNs (3-2-4) and phone numbers (10, or 11 from 1), told
// apart by shape. A scan, not a regular expression: most turns have a
// digit or two and no run at all.
func digitRuns(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		c := text[i]
		if !isDigit(c) && !((c == '+' || c == '(') && i+1 < len(text) && isDigit(text[i+1])) {
			i++
			continue
		}
		start, end, digits := i, i, 0
		for ; i < len(text); i++ {
			c := text[i]
			if isDigit(c) {
				digits++
				end = i + 1
			} else if !(c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '+') {
				break
			}
		}
		if digits >= 9 {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// FindPII finds card numbers (Luhn-checked), US social security numbers,
// phone numbers and e-mail addresses. Spoken digits ("four one five…")
// are read as digits first, so calls are covered as chats are.
func FindPII(text string) []Finding { return findWritten(digitsFromWords(text)) }

// findWritten finds personal data written with digits and @.
func findWritten(text string) []Finding {
	var out []Finding
	if strings.IndexByte(text, '@') >= 0 {
		for _, m := range email.FindAllStringIndex(text, -1) {
			out = append(out, Finding{Email, m[0], m[1]})
		}
	}
	for _, m := range digitRuns(text) {
		run := text[m[0]:m[1]]
		digits := onlyDigits(run)
		switch {
		case ssnShape.MatchString(run):
			out = append(out, Finding{SSN, m[0], m[0] + len(run)})
		case len(digits) >= 13 && len(digits) <= 19 && luhn(digits):
			out = append(out, Finding{Card, m[0], m[0] + len(run)})
		case run[0] == '+' && internationalNumber(run),
			len(digits) == 10 || (len(digits) == 11 && digits[0] == '1'):
			out = append(out, Finding{Phone, m[0], m[0] + len(run)})
		}
	}
	slices.SortFunc(out, func(a, b Finding) int { return a.Start - b.Start })
	return out
}

// internationalNumber tells whether a run written with a leading + is a
// phone number of some country (E.164: a known country code, and a length
// possible there by libphonenumber's rules). Possible, not valid: for
// redaction a number in a range not yet assigned (or kept for fiction) is
// still a phone number.
func internationalNumber(run string) bool {
	n, err := phonenumbers.Parse(run, "")
	return err == nil && phonenumbers.IsPossibleNumber(n)
}

func onlyDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// luhn is the card-number checksum.
func luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

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

// digitsFromWords rewrites runs of four or more spoken digits ("four one
// five five") as digits ("4155"), as a recognizer writes a card or phone
// number; other words stay as they are. Findings are positions in this
// form, which Redact rewrites too.
func digitsFromWords(text string) string {
	longest, run := 0, 0
	for w := range strings.FieldsSeq(text) {
		if _, ok := spokenDigit(w); ok {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest < 4 {
		return text // nearly always: no allocation
	}
	var out []string
	var pending []string
	flush := func() {
		if len(pending) >= 4 {
			ds := make([]byte, len(pending))
			for i, w := range pending {
				ds[i], _ = spokenDigit(w)
			}
			out = append(out, string(ds))
		} else {
			out = append(out, pending...)
		}
		pending = pending[:0]
	}
	for w := range strings.FieldsSeq(text) {
		if _, ok := spokenDigit(w); ok {
			pending = append(pending, w)
			continue
		}
		flush()
		out = append(out, w)
	}
	flush()
	return strings.Join(out, " ")
}

// Redact replaces personal data with its kind in brackets ("[card]"); the
// text is in the form FindPII reads (spoken digits as digits).
func Redact(text string) (string, bool) {
	found := FindPII(text)
	if len(found) == 0 {
		return text, false
	}
	text = digitsFromWords(text)
	var b strings.Builder
	last := 0
	for _, f := range found {
		if f.Start < last {
			continue
		}
		b.WriteString(text[last:f.Start])
		b.WriteString("[" + f.Kind + "]")
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), true
}

// PIIWord reports whether a word of a transcript may be part of personal
// data: it has a digit or an @, or is a spoken digit. Redaction blanks such
// words of a turn that had personal data, so timed words cannot rebuild it.
func PIIWord(w string) bool {
	if written(w) {
		return true
	}
	_, ok := spokenDigit(w)
	return ok
}

// pii is a boolean: did the conversation carry personal data of the kinds?
type pii struct {
	kinds   map[string]bool
	speaker string
}

func compilePII(def *analysis.Object) (analysis.Engine, error) {
	if err := def.Allow("model", "kinds", "speaker"); err != nil {
		return nil, err
	}
	p := pii{kinds: map[string]bool{}}
	kinds, err := def.Strings("kinds", false)
	if err != nil {
		return nil, err
	}
	if len(kinds) == 0 {
		kinds = piiKinds
	}
	for i, k := range kinds {
		found := false
		for _, known := range piiKinds {
			if strings.EqualFold(k, known) {
				p.kinds[known], found = true, true
			}
		}
		if !found {
			return nil, analysis.Invalid("must be one of card, ssn, phone, email", "definition", "kinds", i)
		}
	}
	if p.speaker, err = speakerOf(def); err != nil {
		return nil, err
	}
	return p, nil
}

// written reports whether a text has a digit or an @: personal data
// written out needs one.
func written(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c-'0' < 10 || c == '@' {
			return true
		}
	}
	return false
}

// spokenRun reports whether turn i's normalized tokens hold four spoken
// digits in a row. When they do not, no run of spoken words a recognizer
// wrote does either (such words are tokens of their own), and the text
// needs no rewriting.
func spokenRun(text *analysis.Normalized, i int) bool {
	run := 0
	for g, end := text.TokensBefore(i), text.TokensBefore(i+1); g < end; g++ {
		if !isSpokenDigit(text.Prefix(g)) {
			run = 0
		} else if run++; run >= 4 {
			return true
		}
	}
	return false
}

// findInTurn is FindPII for turn i of a conversation: most turns are ruled
// out by a glance at their characters and normalized tokens.
func findInTurn(c *analysis.Conversation, i int) []Finding {
	text := c.Turns[i].Text
	switch {
	case spokenRun(c.Normalized(), i):
		return FindPII(text)
	case written(text):
		return findWritten(text)
	}
	return nil
}

func (p pii) Evaluate(_ context.Context, c *analysis.Conversation) (analysis.Result, error) {
	var evidence []analysis.Evidence
	for i, t := range c.Turns {
		if !speaks(p.speaker, t.Speaker) {
			continue
		}
		for _, f := range findInTurn(c, i) {
			if p.kinds[f.Kind] && len(evidence) < 10 {
				// The evidence names the kind, never the data.
				evidence = append(evidence, analysis.Evidence{Turn: i, StartMs: t.StartMs, EndMs: t.EndMs, Text: "[" + f.Kind + "]"})
			}
		}
	}
	return analysis.BoolResult(len(evidence) > 0, evidence), nil
}
