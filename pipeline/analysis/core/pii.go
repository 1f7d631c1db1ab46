package core

import (
	"regexp"
	"slices"
	"strings"
)

// PII kinds.
const (
	Card  = "card"
	SSN   = "ssn"
	Phone = "phone"
	Email = "email"
	DOB   = "dob"
)

// piiKinds are the kinds a pii classifier may name; defaultPIIKinds those
// it finds when it names none (a date of birth is asked for in most
// identity checks: a classifier finds it only when it names it, and
// classifiers defined before it keep their meaning).
var (
	piiKinds        = []string{Card, SSN, Phone, Email, DOB}
	defaultPIIKinds = []string{Card, SSN, Phone, Email}
)

// Finding is personal data found in a text, at bytes [Start, End).
type Finding struct {
	Kind       string
	Start, End int
}

var (
	ssnShape = regexp.MustCompile(`^\d{3}[ -]\d{2}[ -]\d{4}$`)
	email    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	// spokenEmail is an address said out ("jane dot doe at example dot
	// com"), as a recognizer writes it: the domain must end in a common
	// top-level domain, said.
	spokenEmail = regexp.MustCompile(`(?i)\b[a-z0-9]+(?:\s+(?:dot|underscore|dash|hyphen)\s+[a-z0-9]+)*\s+at\s+[a-z0-9]+(?:\s+dot\s+[a-z0-9]+)*\s+dot\s+(?:com|org|net|edu|gov|io|co|uk|de|fr|ca|us|info|biz)\b`)
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

// FindPII finds card numbers (Luhn-checked) and their details, social
// security numbers, phone numbers, e-mail addresses and dates of birth. Spoken digits
// ("four one five…") are read as digits first, so calls are covered as
// chats are; a long spoken run is a card number though the recognizer got
// some of it wrong.
func FindPII(text string) []Finding {
	_, found := findPII(text)
	return found
}

// findPII is FindPII with the text its findings are positions in (spoken
// digits as digits).
func findPII(text string) (string, []Finding) {
	rewritten, spoken := readDigits(text)
	found := findWritten(rewritten)
	for _, f := range spoken {
		covered := slices.ContainsFunc(found, func(g Finding) bool { return g.Start < f.End && f.Start < g.End })
		if !covered && !identifierBefore(rewritten[:f.Start]) {
			found = append(found, f)
		}
	}
	for _, f := range datesOfBirth(rewritten) {
		if !slices.ContainsFunc(found, func(g Finding) bool { return g.Start < f.End && f.Start < g.End }) {
			found = append(found, f)
		}
	}
	slices.SortFunc(found, func(a, b Finding) int { return a.Start - b.Start })
	return rewritten, found
}

// findWritten finds personal data written with digits and @.
func findWritten(text string) []Finding {
	var out []Finding
	if strings.IndexByte(text, '@') >= 0 {
		for _, m := range email.FindAllStringIndex(text, -1) {
			out = append(out, Finding{Email, m[0], m[1]})
		}
	}
	if saysDot(text) {
		for _, m := range spokenEmail.FindAllStringIndex(text, -1) {
			out = append(out, Finding{Email, m[0], m[1]})
		}
	}
	for _, m := range digitRuns(text) {
		run := text[m[0]:m[1]]
		digits := onlyDigits(run)
		switch {
		case ssnShape.MatchString(run), len(digits) == 9 && ssnBefore(text[:m[0]]):
			out = append(out, Finding{SSN, m[0], m[0] + len(run)})
		case identifierBefore(text[:m[0]]):
			// An order, tracking or device number: not personal data of
			// these kinds, whatever its shape.
		case isCardNumber(digits):
			out = append(out, Finding{Card, m[0], m[0] + len(run)})
			out = append(out, cardDetailsAfter(text, m[0]+len(run))...)
		case internationalNumber(run), isPhoneNumber(digits), nationalNumber(digits):
			out = append(out, Finding{Phone, m[0], m[0] + len(run)})
		}
	}
	slices.SortFunc(out, func(a, b Finding) int { return a.Start - b.Start })
	return out
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

// isCardNumber: 13 to 19 digits that pass the Luhn check and start as
// payment cards do (2–6: the major networks' ranges).
func isCardNumber(d string) bool {
	return len(d) >= 13 && len(d) <= 19 && d[0] >= '2' && d[0] <= '6' && luhn(d)
}

func isPhoneNumber(d string) bool { return len(d) == 10 || len(d) == 11 && d[0] == '1' }

// Redact replaces personal data with its kind in brackets ("[card]"); the
// text is in the form FindPII reads (spoken digits as digits).
func Redact(text string) (string, bool) {
	rewritten, found := findPII(text)
	if len(found) == 0 {
		return text, false
	}
	text = rewritten
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
// data: it has a digit or an @, or is a spoken digit or a word a
// recognizer writes for one ("for"). Redaction blanks such words of a turn
// that had personal data, so timed words cannot rebuild it.
func PIIWord(w string) bool {
	if written(w) {
		return true
	}
	t, ok := readSpoken(w)
	return ok && !t.filler
}

// RedactAcross redacts a card number written across two messages of one
// speaker, the digits that end a and those that begin b ("4111 1111" then
// "1111 1111"): each message alone holds too few digits to be one.
func RedactAcross(a, b string) (string, string, bool) {
	tail, head := trailingDigits(a), leadingDigits(b)
	first, second := onlyDigits(a[tail:]), onlyDigits(b[:head])
	if len(first) < 4 || len(second) < 4 || !isCardNumber(first+second) {
		return a, b, false
	}
	return a[:tail] + "[card]", "[card]" + b[head:], true
}

// trailingDigits is where the digit groups that end s start (s's length
// when it does not end with one; punctuation after them is theirs).
func trailingDigits(s string) int {
	end := len(strings.TrimRight(s, " .,!"))
	i := end
	for i > 0 && (isDigit(s[i-1]) || s[i-1] == ' ' || s[i-1] == '-') {
		i--
	}
	for i < end && !isDigit(s[i]) { // not the separators before the first digit
		i++
	}
	if i == end {
		return len(s)
	}
	return i
}

// leadingDigits is where the digit groups that begin s end (0 when it
// does not begin with one).
func leadingDigits(s string) int {
	start := len(s) - len(strings.TrimLeft(s, " "))
	i := start
	for i < len(s) && (isDigit(s[i]) || s[i] == ' ' || s[i] == '-') {
		i++
	}
	for i > start && !isDigit(s[i-1]) {
		i--
	}
	return i
}
