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
func FindPII(text string) []Finding {
	rewritten, spoken := readDigits(text)
	found := findWritten(rewritten)
	for _, f := range spoken {
		covered := slices.ContainsFunc(found, func(g Finding) bool { return g.Start < f.End && f.Start < g.End })
		if !covered && !identifierBefore(rewritten[:f.Start]) {
			found = append(found, f)
		}
	}
	slices.SortFunc(found, func(a, b Finding) int { return a.Start - b.Start })
	return found
}

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

// internationalNumber tells whether a run dialled internationally — with
// a leading +, or the exit codes 00 (most of the world) and 011 (North
// America) — is a phone number of some country (E.164: a known country
// code, and a length possible there by libphonenumber's rules). Possible,
// not valid: for redaction a number in a range not yet assigned (or kept
// for fiction) is still a phone number.
func internationalNumber(run string) bool {
	digits := onlyDigits(run)
	switch {
	case run[0] == '+':
	case strings.HasPrefix(digits, "00") && len(digits) > 2:
		run = "+" + digits[2:]
	case strings.HasPrefix(digits, "011") && len(digits) > 3:
		run = "+" + digits[3:]
	default:
		return false
	}
	n, err := phonenumbers.Parse(run, "")
	return err == nil && phonenumbers.IsPossibleNumber(n)
}

// nationalRegions are the countries whose national numbers (a trunk 0,
// then the area code) are read as phone numbers: the callers a contact
// centre of the corpus's kind hears besides North America's.
var nationalRegions = []string{"GB", "DE"}

// nationalNumber tells whether digits dialled with a trunk 0 are a
// possible national number of one of the nationalRegions.
func nationalNumber(digits string) bool {
	if len(digits) < 10 || len(digits) > 12 || digits[0] != '0' || digits[1] == '0' {
		return false
	}
	for _, region := range nationalRegions {
		if n, err := phonenumbers.Parse(digits, region); err == nil && phonenumbers.IsValidNumber(n) {
			return true
		}
	}
	return false
}

// identifierWords name numbers that look like cards or phone numbers and
// are neither: an order's, a parcel's, a device's (an IMEI is 15 digits
// that pass the Luhn check).
var identifierWords = []string{"order", "tracking", "reference", "ref", "confirmation", "invoice", "booking", "ticket", "case",
	"imei", "serial", "sku", "model", "part"}

// personalWords say that the number after them is personal data: one to
// call, a card's.
var personalWords = []string{"call", "phone", "mobile", "cell", "dial", "reach", "text me", "landline", "fax", "card", "visa", "amex"}

// identifierBefore tells whether the words just before a number, in its
// sentence, name it as an identifier: an identifier word closer to it than
// any word that names personal data.
func identifierBefore(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	if i := strings.LastIndexAny(before, ".!?;"); i >= 0 {
		before = before[i+1:]
	}
	before = strings.ToLower(before)
	lastOf := func(list []string) int {
		at := -1
		for _, w := range list {
			for i := strings.LastIndex(before, w); i >= 0; i = strings.LastIndex(before[:i], w) {
				if wordAt(before, i, len(w)) {
					at = max(at, i)
					break
				}
			}
		}
		return at
	}
	id := lastOf(identifierWords)
	return id >= 0 && id > lastOf(personalWords)
}

// ssnBefore tells whether the number's sentence names a social security
// number before it: nine digits said or written without its dashes are
// one then.
func ssnBefore(before string) bool {
	if i := strings.LastIndexAny(before, ".!?;"); i >= 0 {
		before = before[i+1:]
	}
	before = strings.ToLower(before)
	return strings.Contains(before, "social") || strings.Contains(before, "ssn")
}

// wordAt tells whether s[i:i+n] is a whole word (or starts one: "order's").
func wordAt(s string, i, n int) bool {
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' }
	return (i == 0 || !letter(s[i-1])) && (i+n == len(s) || !letter(s[i+n]) || s[i+n] == 's')
}

// cardDetails are an expiry date and a security code, which PCI DSS
// forbids keeping beside a card number: within a few words after one,
// they are redacted with it.
var cardDetails = regexp.MustCompile(`(?i)(?:\b(?:0?[1-9]|1[0-2])\s*[/-]\s*(?:20)?\d{2}\b)|(?:\b(?:cvv|cvc|cv2|cid|security code|code)\D{0,16}?\b\d{3,4}\b)`)

// cardDetailsAfter finds the expiry and security code after a card
// number ending at end.
func cardDetailsAfter(text string, end int) []Finding {
	window := text[end:min(len(text), end+80)]
	var out []Finding
	for _, m := range cardDetails.FindAllStringIndex(window, -1) {
		span := window[m[0]:m[1]]
		start := m[0] + strings.IndexAny(span, "0123456789")
		out = append(out, Finding{Card, end + start, end + m[1]})
	}
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
	key := string(lower[:len(w2)])
	if d, ok := spokenConfusions[key]; ok {
		return spokenToken{word: w, digit: d}, true
	}
	if spokenFillers[key] {
		return spokenToken{word: w, filler: true}, true
	}
	if t, ok := spokenShapes[key]; ok {
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

// digitsFromWords rewrites runs of four or more spoken digits ("four one
// five five") as digits ("4155"), as a recognizer writes a card or phone
// number; other words stay as they are. Inside a run, fillers ("uh") are
// dropped and confusions ("for", "to") read as digits; at its edges a
// confusion is read as a digit when that makes a card or phone number of
// the run. Findings are positions in this form, which Redact rewrites too.
func digitsFromWords(text string) string {
	out, _ := readDigits(text)
	return out
}

// readDigits is digitsFromWords, with the runs of spoken digits long
// enough to be a card number though no reading of them passes as one: a
// recognizer that got one digit wrong, dropped one or heard a word in
// their midst leaves such a run, and it is a card number all the same.
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

// isCardNumber: 13 to 19 digits that pass the Luhn check and start as
// payment cards do (2–6: the major networks' ranges).
func isCardNumber(d string) bool {
	return len(d) >= 13 && len(d) <= 19 && d[0] >= '2' && d[0] <= '6' && luhn(d)
}

func isPhoneNumber(d string) bool { return len(d) == 10 || len(d) == 11 && d[0] == '1' }

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
// digits in a row (confusions and fillers between them do not break the
// row). When they do not, no run of spoken words a recognizer wrote does
// either (such words are tokens of their own), and the text needs no
// rewriting.
func spokenRun(text *analysis.Normalized, i int) bool {
	run := 0
	for g, end := text.TokensBefore(i), text.TokensBefore(i+1); g < end; g++ {
		p := text.Prefix(g)
		switch {
		case isSpokenDigit(p):
			if run++; run >= 4 {
				return true
			}
		case !inRunStart[byte(p)] || !slices.Contains(inRunPrefixes, p):
			run = 0
		}
	}
	return false
}

// inRunPrefixes are the words.Prefix values of the confusions and fillers.
var inRunPrefixes = func() []uint64 {
	var out []uint64
	for w := range spokenConfusions {
		out = append(out, words.Prefix(w))
	}
	for w := range spokenFillers {
		out = append(out, words.Prefix(w))
	}
	for w := range spokenShapes {
		out = append(out, words.Prefix(w))
	}
	return out
}()

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
