// Package piibench measures personal-data redaction: on sgd-dev chats with
// card numbers, phone numbers (national and international) and e-mail
// addresses put into customer turns, and on calls spoken by flite in which
// the customer reads a card number out, transcribed by the real call
// pipeline. It reports the share of what was put in that redaction
// removes (recall), how much of what it found was what was put there
// (precision), and the turns it changed that held nothing.
package piibench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/earshot/earshot/internal/lab/callbench"
	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline/analysis/core"
)

// planted are personal data written (or said, as a recognizer writes
// speech) as customers give them, by form; an item's parts separated by
// "|" must each be gone from the redacted turn.
var planted = map[string][]string{
	"international phone":      {"+44 20 7493 4545", "+447700900123", "+33 1 42 68 53 00", "+81-3-3224-5000", "+49 30 901820", "+61 2 9374 4000"},
	"exit-code phone":          {"0044 20 7493 4545", "011 44 20 7493 4545", "0033 1 42 68 53 00"},
	"UK or German national":    {"020 7946 0958", "07700 900123", "030 901820 12"},
	"US phone":                 {"(415) 555-0132", "415-555-0199", "+1 212 555 0147"},
	"spoken phone":             {"four one five double five five oh one three two", "one eight hundred five five five oh one four seven"},
	"card":                     {"4111 1111 1111 1111", "5500-0000-0000-0004", "340000000000009"},
	"card with expiry and CVV": {"4111 1111 1111 1111|04/27|123", "5500 0000 0000 0004|11/2028|987"},
	"SSN":                      {"123-45-6789", "078 05 1120", "123456789", "one two three four five six seven eight nine"},
	"email":                    {"jane.doe@example.com", "r.patel+bills@mail.example.org"},
	"spoken email":             {"jane dot doe at example dot com", "r underscore patel at mail dot example dot org"},
	"date of birth":            {"march six nineteen ninety five", "03/06/1995", "the 6th of March 1995", "July 14, 1988"},
}

// expected is the kind redaction should give each form: what a finding in
// a planted sentence counts as right when it has.
var expected = map[string]string{
	"international phone": core.Phone, "exit-code phone": core.Phone, "UK or German national": core.Phone, "US phone": core.Phone,
	"spoken phone": core.Phone, "card": core.Card, "card with expiry and CVV": core.Card, "SSN": core.SSN, "email": core.Email,
	"spoken email": core.Email, "date of birth": core.DOB,
}

// plantedText is the sentence an item is given in.
var plantedText = map[string]string{
	"card with expiry and CVV": "My card is %s, it expires %s and the CVV is %s.",
	"SSN":                      "My social security number is %s.",
	"date of birth":            "My date of birth is %s.",
}

// lookAlikes are numbers shaped like personal data that are not: they
// must stay as they are.
var lookAlikes = map[string][]string{
	"order number": {"My order number is 4155550132.", "Order 2125550147 never came."},
	"IMEI":         {"The IMEI is 490154203237518.", "Its IMEI: 356938035643809."},
}

// kinds in a fixed order.
var kinds = []string{"international phone", "exit-code phone", "UK or German national", "US phone", "spoken phone", "card",
	"card with expiry and CVV", "SSN", "email", "spoken email", "date of birth"}

// Row is one form's figures: how many were planted and redacted (for a
// look-alike: kept as it was).
type Row struct {
	Kind              string
	Planted, Redacted int
	LookAlike         bool
}

// Precision is one kind's findings in the planted sentences and the
// look-alikes, and how many of them were of the form planted there.
type Precision struct {
	Kind           string
	Found, Correct int
}

// ChatReport is what Chats measured.
type ChatReport struct {
	Rows      []Row
	Precision []Precision
	// Changed counts, by the kinds found, the dialogues' other turns that
	// redaction changed (the dialogues hold data of their own:
	// businesses' phone numbers), out of Turns.
	Changed map[string]int
	Turns   int
}

// Chats plants one item in the first customer turn of each dialogue, in
// turn through the kinds and their items, redacts every turn, and counts
// what was removed (recall by form), what was found in the planted
// sentences and the look-alikes (precision by kind), and the other turns
// redaction changed.
func Chats(dialogues []corpus.Dialogue) ChatReport {
	rep := ChatReport{Changed: map[string]int{}}
	found, correct := map[string]int{}, map[string]int{}
	byKind := map[string]*Row{}
	for _, k := range kinds {
		byKind[k] = &Row{Kind: k}
	}
	for i, d := range dialogues {
		kind := kinds[i%len(kinds)]
		item := planted[kind][(i/len(kinds))%len(planted[kind])]
		parts := strings.Split(item, "|")
		sentence := " You can reach me at " + item + "."
		if form, ok := plantedText[kind]; ok {
			args := make([]any, len(parts))
			for j, part := range parts {
				args[j] = part
			}
			sentence = " " + fmt.Sprintf(form, args...)
		}
		plantedDone := false
		for _, t := range d.Turns {
			text := t.Text
			if !plantedDone && t.Participant() == "Customer" {
				text += sentence
				plantedDone = true
				r := byKind[kind]
				r.Planted++
				out, _ := core.Redact(text)
				gone := true
				for _, part := range parts {
					gone = gone && !strings.Contains(out, part) && !leaksDigits(out, part)
				}
				if gone {
					r.Redacted++
				}
				for _, f := range core.FindPII(sentence) {
					found[f.Kind]++
					if f.Kind == expected[kind] {
						correct[f.Kind]++
					}
				}
				continue
			}
			rep.Turns++
			for _, f := range core.FindPII(text) {
				rep.Changed[f.Kind]++
			}
		}
	}
	for _, k := range kinds {
		rep.Rows = append(rep.Rows, *byKind[k])
	}
	for _, k := range []string{"order number", "IMEI"} {
		r := Row{Kind: k, LookAlike: true}
		for _, text := range lookAlikes[k] {
			r.Planted++
			if out, _ := core.Redact(text); out == text {
				r.Redacted++
			}
			for _, f := range core.FindPII(text) {
				found[f.Kind]++
			}
		}
		rep.Rows = append(rep.Rows, r)
	}
	for _, k := range []string{core.Card, core.Phone, core.SSN, core.Email, core.DOB} {
		rep.Precision = append(rep.Precision, Precision{Kind: k, Found: found[k], Correct: correct[k]})
	}
	return rep
}

// leaksDigits tells whether the redacted text still holds a run of four
// of the item's digits (of a spoken item: its digit words, as digits).
func leaksDigits(out, item string) bool {
	digits := onlyDigits(item)
	if digits == "" {
		return strings.Contains(out, item)
	}
	text := onlyDigits(out)
	for i := 0; i+4 <= len(digits); i++ {
		if strings.Contains(text, digits[i:i+4]) {
			return true
		}
	}
	return false
}

func onlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r < '0' || r > '9' {
			return -1
		}
		return r
	}, s)
}

// cardNumber is a 16-digit Luhn-valid number drawn from rng, in the
// payment networks' ranges (it starts with 2, 4, 5 or 6, as Mastercard,
// Visa, Discover and UnionPay cards of 16 digits do).
func cardNumber(rng *rand.Rand) string {
	d := make([]byte, 16)
	d[0] = "2456"[rng.IntN(4)]
	for i := 1; i < 15; i++ {
		d[i] = byte('0' + rng.IntN(10))
	}
	for c := byte('0'); c <= '9'; c++ {
		d[15] = c
		if luhnValid(string(d)) {
			break
		}
	}
	return string(d)
}

// luhnValid is the card checksum, written here apart from the one the
// redaction uses: the benchmark's numbers must not depend on the code it
// measures.
func luhnValid(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		n := int(digits[i] - '0')
		if double {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

var digitWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// CallResult is the calls' figures at one sample rate.
type CallResult struct {
	Telephone       bool // 8 kHz μ-law, else 16 kHz
	Calls, Redacted int
	// DigitsLeft are the spoken digits of the card number left in the
	// redacted turns, over all calls.
	DigitsLeft int
	// ContextWords are the words around the number that the recognizer
	// heard ("by card please my card number is"), and ContextLost those
	// of them that redaction took with it: its precision in calls.
	ContextWords, ContextLost int
}

// contextWords are the customer's words around the card number.
var contextWords = []string{"by", "card", "please", "my", "number", "is"}

// wordCounts counts a text's words that are among list.
func wordCounts(text string, list []string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if w = strings.Trim(w, ".,"); slices.Contains(list, w) {
			out[w]++
		}
	}
	return out
}

// Calls synthesizes n calls in which the customer reads a card number
// (drawn from seed) out ("my card number is four one one one …"), as a
// telephone line carries them (8 kHz μ-law) or not (16 kHz), transcribes
// them with t, and redacts the customer's turns as ingest does: a call
// counts as redacted when none of the number's digits is left in them.
func Calls(ctx context.Context, t *callbench.Transcriber, n int, seed uint64, telephone bool, progress io.Writer) (CallResult, error) {
	res := CallResult{Telephone: telephone}
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := range n {
		card := cardNumber(rng)
		var spoken []string
		for _, d := range card {
			spoken = append(spoken, digitWords[d-'0'])
		}
		script := []synth.Turn{
			{Speaker: "Agent", Text: "Thank you for calling. How would you like to pay today?"},
			{Speaker: "Customer", Text: "By card please. My card number is " + strings.Join(spoken, " ") + "."},
			{Speaker: "Agent", Text: "Thank you, that is all set."},
		}
		call, err := synth.Stereo(ctx, script, 0)
		if err != nil {
			return res, err
		}
		wav := call.WAV
		if telephone {
			if wav, err = synth.Telephone(ctx, wav); err != nil {
				return res, err
			}
		}
		segments, err := t.Segments(ctx, wav)
		if err != nil {
			return res, err
		}
		left := 0
		for _, s := range segments {
			if s.Speaker != "Customer" {
				continue
			}
			out, _ := core.Redact(s.Text)
			heard, kept := wordCounts(s.Text, contextWords), wordCounts(out, contextWords)
			for w, n := range heard {
				res.ContextWords += n
				res.ContextLost += max(n-kept[w], 0)
			}
			for _, w := range strings.Fields(out) {
				if slices.Contains(digitWords, strings.ToLower(strings.Trim(w, ".,"))) || strings.ContainsAny(w, "0123456789") {
					left++
				}
			}
		}
		res.Calls++
		res.DigitsLeft += left
		if left == 0 {
			res.Redacted++
		}
		fmt.Fprintf(progress, "call %d (%s): %d digits left\n", i+1, res.rate(), left)
	}
	return res, nil
}

func (r CallResult) rate() string {
	if r.Telephone {
		return "8 kHz μ-law"
	}
	return "16 kHz"
}

// WriteTable prints the figures.
func WriteTable(w io.Writer, rep ChatReport, calls []CallResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sgd-dev chats, by form\tplanted\tredacted (recall)\tshare\t")
	for _, r := range rep.Rows {
		if r.LookAlike {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f %%\t\n", r.Kind, r.Planted, r.Redacted, 100*float64(r.Redacted)/float64(max(r.Planted, 1)))
	}
	fmt.Fprintln(tw, "look-alikes (must stay)\tplanted\tkept\tshare\t")
	for _, r := range rep.Rows {
		if r.LookAlike {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f %%\t\n", r.Kind, r.Planted, r.Redacted, 100*float64(r.Redacted)/float64(max(r.Planted, 1)))
		}
	}
	fmt.Fprintln(tw, "found in planted sentences and look-alikes, by kind\tfound\tof the form planted\tprecision\t")
	for _, p := range rep.Precision {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f %%\t\n", p.Kind, p.Found, p.Correct, 100*float64(p.Correct)/float64(max(p.Found, 1)))
	}
	tw.Flush()
	fmt.Fprintf(w, "found in the %d turns without planted data: %v (read them: the dialogues' own data, or false alarms)\n", rep.Turns, rep.Changed)
	if len(calls) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "spoken card numbers (flite, PocketSphinx)\tcalls\tredacted whole (recall)\tshare\tdigits left\twords around it kept (precision)\t")
	for _, r := range calls {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f %%\t%d\t%d of %d\t\n", r.rate(), r.Calls, r.Redacted, 100*float64(r.Redacted)/float64(max(r.Calls, 1)), r.DigitsLeft,
			r.ContextWords-r.ContextLost, r.ContextWords)
	}
	tw.Flush()
}
