package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
)

func eval(t *testing.T, def string, c *analysis.Conversation) analysis.Result {
	t.Helper()
	e, err := Compile([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSentiment(t *testing.T) {
	c := &analysis.Conversation{Turns: []analysis.Turn{
		{Speaker: "Agent", Text: "Thank you for calling, I am happy to help!"},
		{Speaker: "Customer", Text: "This is terrible. My card was declined again and I am furious."},
		{Speaker: "Agent", Text: "I understand."},
		{Speaker: "Customer", Text: "I want to close my account."},
	}}
	for _, tt := range []struct {
		def, value string
		evidence   int
	}{
		{`{"model":"sentiment","speaker":"Customer"}`, Negative, 0},
		{`{"model":"sentiment","speaker":"Agent"}`, Positive, 0},
		{`{"model":"sentiment","speaker":"Customer","label":"Negative"}`, "true", 1},
		{`{"model":"sentiment","speaker":"Agent","label":"negative"}`, "false", 0},
	} {
		res := eval(t, tt.def, c)
		if res.Value != tt.value || len(res.Evidence) != tt.evidence || res.Score == nil {
			t.Errorf("%s: %+v", tt.def, res)
		}
	}
	// What a reviewer reads: the mean and each labelled turn's score.
	res := eval(t, `{"model":"sentiment","speaker":"Customer","label":"Negative"}`, c)
	want := fmt.Sprintf("mean VADER compound %.3f over 2 turns", *res.Score)
	if res.Reasoning != want || res.Evidence[0] != (analysis.Evidence{Turn: 1, Text: fmt.Sprintf("Negative %.2f", Compound(c.Turns[1].Text))}) {
		t.Errorf("reasoning %q (want %q), evidence %+v", res.Reasoning, want, res.Evidence)
	}
	if Label(0.5) != Positive || Label(0.01) != Neutral || Label(-0.3) != Negative {
		t.Fatal("labels")
	}
}

// vaderCases exercise every rule of VADER's scoring: capitals among small
// letters, "no", "least", "but", boosters (one and several words),
// negations before a word (one to three places), special idioms, "!" and
// "?", emoticons, split quirks (double spaces, tabs), emoji.
var vaderCases = []string{
	"ok :)", "I'm :( today", "meh", "NOT BAD AT ALL!!!", "kind of", "😀 thanks", "the 3rd one", "",
	"This is GOOD, really good", "VERY good service", "Very GOOD service", "very BAD", "GREAT GREAT",
	"no problem at all", "no good", "there is no way this is good", "no, nor good", "no or good",
	"at least it works", "the very least happy", "least happy", "happy but sad", "sad but happy but ok",
	"kind of good", "sort of bad", "it was just enough good", "kinda great", "I am not very happy",
	"isn't good", "it wasn't that good", "never so good", "never this bad", "never really so happy",
	"without doubt good", "without a doubt great", "that was the bomb", "yeah right, great", "the kiss of death here",
	"it is to die for", "bad ass car", "the shit really great", "good!!!!!!", "good??", "bad????", "good?",
	"good  bad", "good\tbad", "  spaced   out  good  ", "((good))", "'good'", "no!", "hi :D", "hello :-)",
	"I don't like it", "I do not love this", "I can't stand it", "This is hardly good", "Barely OK",
	"awesome, thanks", "Absolutely TERRIBLE service", "I HATE this", "not bad", "NO WAY", "wow. no. just no.",
	"café is good", "\xff bad",
}

// The fast scorer gives govader's scores exactly: the rule cases and every
// turn of sgd-dev.
func TestCompoundMatchesVADER(t *testing.T) {
	texts := append([]string(nil), vaderCases...)
	dialogues, err := corpus.Read(corpus.Dev, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dialogues {
		for _, turn := range d.Turns {
			texts = append(texts, turn.Text)
		}
	}
	nonZero := 0
	for _, text := range texts {
		want := vader().analyzer.PolarityScores(text).Compound
		got := Compound(text)
		if got != want {
			t.Fatalf("%q: %v, govader %v", text, got, want)
		}
		if got != 0 {
			nonZero++
		}
	}
	if nonZero < len(texts)/4 {
		t.Fatalf("only %d of %d texts carry sentiment: the comparison proves little", nonZero, len(texts))
	}
	t.Logf("%d texts, %d with sentiment", len(texts), nonZero)
}

// FuzzCompound holds the fast scorer to govader's score on any text.
func FuzzCompound(f *testing.F) {
	for _, c := range vaderCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Compound(text), vader().analyzer.PolarityScores(text).Compound; got != want {
			t.Fatalf("%q: %v, govader %v", text, got, want)
		}
	})
}

func call() *analysis.Conversation {
	// Agent 0–10 s, Customer 8–20 s (2 s overtalk), silence 20–30 s,
	// Agent 30–40 s then 40–50 s (one 20 s monologue).
	return &analysis.Conversation{Turns: []analysis.Turn{
		{Speaker: "Agent", StartMs: 0, EndMs: 10000, Text: "hello how can i help you today"},
		{Speaker: "Customer", StartMs: 8000, EndMs: 20000, Text: "my card was declined"},
		{Speaker: "Agent", StartMs: 30000, EndMs: 40000, Text: "let me check"},
		{Speaker: "Agent", StartMs: 40000, EndMs: 50000, Text: "it is fixed now"},
	}}
}

func TestTalk(t *testing.T) {
	st := Talk(call())
	agent, customer := st.Of("Agent"), st.Of("Customer")
	if st.DurationMs != 50000 || agent.TalkMs != 30000 || customer.TalkMs != 12000 || st.OvertalkMs != 2000 ||
		st.SilenceMs != 10000 || agent.LongestMonologueMs != 20000 || customer.LongestMonologueMs != 12000 || agent.Words != 14 {
		t.Fatalf("%+v", st)
	}
	for _, tt := range []struct {
		def  string
		want string
	}{
		{`{"model":"talk","measure":"silenceShare","above":0.15}`, "true"},
		{`{"model":"talk","measure":"silenceShare","above":0.25}`, "false"},
		{`{"model":"talk","measure":"talkShare","speaker":"Agent","above":0.5}`, "true"},
		{`{"model":"talk","measure":"overtalkMs","above":1000}`, "true"},
		{`{"model":"talk","measure":"longestMonologueMs","speaker":"Customer","above":15000}`, "false"},
		{`{"model":"talk","measure":"wordsPerMinute","speaker":"Agent","below":30}`, "true"}, // 14 words in 30 s: 28 wpm
	} {
		if res := eval(t, tt.def, call()); res.Value != tt.want || res.Score == nil {
			t.Errorf("%s: %+v", tt.def, res)
		}
	}
	if res := eval(t, `{"model":"talk","measure":"talkShare","speaker":"Customer","above":0.1}`, call()); res.Reasoning != "talkShare of Customer: 0.240; duration 50000 ms, silence 10000 ms, overtalk 2000 ms" {
		t.Errorf("reasoning %q", res.Reasoning)
	}
	untimed := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Agent", Text: "hi"}}}
	if res := eval(t, `{"model":"talk","measure":"silenceShare","above":0.1}`, untimed); res.Value != "false" || !strings.Contains(res.Reasoning, "no timings") {
		t.Fatalf("untimed: %+v", res)
	}
	// Word timings count only the words: the pauses inside a turn are silence.
	words := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Agent", StartMs: 0, EndMs: 4000, Text: "a b",
		Words: []analysis.Word{{Text: "a", StartMs: 0, EndMs: 1000}, {Text: "b", StartMs: 3000, EndMs: 4000}}}}}
	if st := Talk(words); st.SilenceMs != 2000 || st.Of("Agent").TalkMs != 2000 {
		t.Fatalf("%+v", st)
	}
	// Three speakers, turns out of time order, one turn inside another:
	// A 0–10 s and 5–8 s (one stretch), B 6–12 s, C 11–14 s and 20–30 s.
	three := &analysis.Conversation{Turns: []analysis.Turn{
		{Speaker: "C", StartMs: 20000, EndMs: 30000}, {Speaker: "A", StartMs: 0, EndMs: 10000}, {Speaker: "B", StartMs: 6000, EndMs: 12000},
		{Speaker: "A", StartMs: 5000, EndMs: 8000}, {Speaker: "C", StartMs: 11000, EndMs: 14000},
	}}
	st = Talk(three)
	// Overtalk: A–B 6–10 s (4 s), B–C 11–12 s (1 s); silence 14–20 s.
	if st.Of("A").TalkMs != 10000 || st.Of("B").TalkMs != 6000 || st.Of("C").TalkMs != 13000 || st.OvertalkMs != 5000 || st.SilenceMs != 6000 {
		t.Fatalf("%+v", st)
	}
}

// TestTalkAgainstCounting holds Talk to a count, millisecond by
// millisecond, of who talks, on random conversations of one to four
// speakers with turns out of order, overlapping, touching and empty, and
// calls whose words are timed.
func TestTalkAgainstCounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		speakers := 1 + rng.IntN(4)
		c := &analysis.Conversation{}
		for range 1 + rng.IntN(12) {
			from := rng.Int64N(200)
			turn := analysis.Turn{Speaker: string(rune('A' + rng.IntN(speakers))), StartMs: from, EndMs: from + rng.Int64N(40)}
			if round%2 == 1 { // calls: words inside the turn, some overlapping, empty or backward
				for range rng.IntN(4) {
					at := turn.StartMs + rng.Int64N(max(1, turn.EndMs-turn.StartMs))
					turn.Words = append(turn.Words, analysis.Word{StartMs: at, EndMs: min(at+rng.Int64N(15)-3, turn.EndMs)})
				}
			}
			c.Turns = append(c.Turns, turn)
		}
		st := Talk(c)
		var silence, overtalk int64
		talk := map[string]int64{}
		for ms := int64(0); ms < st.DurationMs; ms++ {
			talking := map[string]bool{}
			for _, turn := range c.Turns {
				spans := []analysis.Word{{StartMs: turn.StartMs, EndMs: turn.EndMs}}
				if len(turn.Words) > 0 {
					spans = turn.Words
				}
				for _, w := range spans {
					if w.StartMs <= ms && ms < w.EndMs {
						talking[turn.Speaker] = true
					}
				}
			}
			for sp := range talking {
				talk[sp]++
			}
			k := int64(len(talking))
			if k == 0 {
				silence++
			}
			overtalk += k * (k - 1) / 2
		}
		for _, sp := range st.Speakers {
			if sp.TalkMs != talk[sp.Speaker] {
				t.Fatalf("round %d: %s talks %d ms, counted %d: %+v", round, sp.Speaker, sp.TalkMs, talk[sp.Speaker], c.Turns)
			}
		}
		if st.SilenceMs != silence || st.OvertalkMs != overtalk {
			t.Fatalf("round %d: silence %d, overtalk %d; counted %d, %d: %+v", round, st.SilenceMs, st.OvertalkMs, silence, overtalk, c.Turns)
		}
	}
}

func TestFindPII(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"my card is 4111 1111 1111 1111 thanks", "card"},
		{"my card is 4111 1111 1111 1112 thanks", ""}, // fails the Luhn check
		{"SSN 123-45-6789", "ssn"},
		{"call me at (415) 555-0132", "phone"},
		{"call me at +1 415 555 0132", "phone"},
		{"ring the London office on +44 20 7493 4545 today", "phone"},
		{"my mobile is +447700900123", "phone"},
		{"Paris: +33 1 42 68 53 00", "phone"},
		{"Tokyo +81-3-3224-5000", "phone"},
		{"+49 30 901820", "phone"},
		{"a reference +99 999 999 999", ""}, // no such country code
		{"+44 20 12", ""},                   // too short for anywhere
		{"write to jane.doe@example.com please", "email"},
		{"it is four one one one one one one one one one one one one one one one", "card"}, // spoken
		{"table for two at seven", ""},
		{"my card numbers for one one one one one one one one one one one one one one one", "card"},  // "number's four" misheard
		{"it is four one one one, uh, one one one one, um, one one one one one one one one", "card"}, // pauses
		{"four one one one one one one one one one one one one one one one to you", "card"},          // "to" after it is a word
		{"my number is four one five five five five oh one three to", "phone"},                       // "two" misheard
		{"my card number is four zero want to h h h h h h h h one eight eight one", "card"},          // as PocketSphinx heard a flite voice
		{"I want to go for one day", ""},
		{"it takes one to two hours, four or five for some", ""},
		{"order 12345", ""},
		// Dialled internationally with an exit code, and national numbers
		// of the United Kingdom and Germany.
		{"ring 0044 20 7493 4545 please", "phone"},
		{"from the US dial 011 44 20 7493 4545", "phone"},
		{"the office is on 020 7493 4545", "phone"},
		{"my mobile is 07700 900123", "phone"},
		{"in Berlin: 030 901820 12", "phone"},
		// Look-alikes, told apart by the words before them.
		{"my order number is 4155550132", ""},
		{"tracking 1Z 4155550132", ""},
		{"the IMEI is 490154203237518", ""},
		{"the order line, call 415 555 0132", "phone"},
		{"a serial 35 209900 176148 1", ""},
		// Digits as people say them in groups.
		{"my number is four one five double five five oh one three two", "phone"},
		{"call one eight hundred five five five oh one three two", "phone"},
		{"it's plus four four two oh seven four nine three four five four five", "phone"},
		{"the card is four triple one one one one one one one one one one one one one", "card"},
		{"a double room for two, a hundred dollars a night", ""},
		// A long run of spoken digits is a card number though the
		// recognizer got some wrong (calls as PocketSphinx heard them).
		{"my card number is to serve in four h one nine five one one three eight four to seven to nine", "card"},
		{"my card number is five nine zero five one zero two two seven two zero four five eight minute", "card"},
		{"my order number is one two three four five six seven eight nine zero one two", ""},
		// An e-mail address said out.
		{"you can mail me at jane dot doe at example dot com thanks", "email"},
		{"it's r underscore patel at mail dot example dot org", "email"},
		{"meet me at the office dot com is not a thing", ""},
		// A social security number without its dashes, named as one.
		{"my social security number is 123456789", "ssn"},
		{"my social is one two three four five six seven eight nine", "ssn"},
		{"ticket 123456789", ""},
		// A card's expiry date and security code go with it.
		{"card 4111 1111 1111 1111 expires 04/27 and the CVV is 123", "card,card,card"},
		{"4111111111111111 exp 4/2027 code 9876", "card,card,card"},
		// A date named as a date of birth, said or written; other dates
		// stay.
		{"my date of birth is march six nineteen ninety five", "dob"},
		{"I was born on the sixth of march nineteen ninety five.", "dob"},
		{"DOB 03/06/1995", "dob"},
		{"my birthday is March 6th, 1995 if you need it", "dob"},
		{"date of birth: 1995-03-06", "dob"},
		{"born in nineteen eighty", ""}, // a year alone
		{"my birthday party is next week", ""},
		{"born and raised in Ohio", ""},
		{"I fly out on March 6, 1995 was a long time ago", ""},
		{"the booking is for march sixth", ""},
	} {
		var kinds []string
		for _, f := range FindPII(tt.text) {
			kinds = append(kinds, f.Kind)
		}
		if got := strings.Join(kinds, ","); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.want)
		}
	}
	if got, ok := Redact("card 4111 1111 1111 1111, mail a@b.co"); !ok || got != "card [card], mail [email]" {
		t.Fatalf("%q", got)
	}
	for text, want := range map[string]string{
		"card number is seven seven four five four four two one one eight six six three zero four five thanks": "card number is [card] thanks",
		// A digit the recognizer cut off by words it heard in between.
		"my card number is five i made one for six nine six nine zero two three zero nine three two": "my card number is [card]",
		"it is one two three four five six seven eight nine zero one two and five more":              "it is [card] more",
	} {
		if got, ok := Redact(text); !ok || got != want {
			t.Errorf("a long spoken run: %q, want %q", got, want)
		}
	}
	if got, ok := Redact("it's 4111 1111 1111 1111, expiry 04/27, security code 123, thanks"); !ok ||
		got != "it's [card], expiry [card], security code [card], thanks" {
		t.Fatalf("a card with its details: %q", got)
	}
	if got, ok := Redact("Sure, my date of birth is march six nineteen ninety five. Anything else?"); !ok ||
		got != "Sure, my date of birth is [dob]. Anything else?" {
		t.Fatalf("a date of birth: %q", got)
	}
	if got, ok := Redact("nothing here"); ok || got != "nothing here" {
		t.Fatal(got)
	}
	c := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Agent", Text: "your number?"}, {Speaker: "Customer", Text: "it is 415 555 0132"}}}
	if res := eval(t, `{"model":"pii","kinds":["phone"],"speaker":"Customer"}`, c); res.Value != "true" || res.Evidence[0].Text != "[phone]" {
		t.Fatalf("%+v", res)
	}
	if res := eval(t, `{"model":"pii","kinds":["card"]}`, c); res.Value != "false" {
		t.Fatalf("%+v", res)
	}
	// A date of birth is found when the classifier names the kind.
	born := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", Text: "Olivia Nguyen, born March 7, 1999."}}}
	if res := eval(t, `{"model":"pii"}`, born); res.Value != "false" {
		t.Fatalf("without kinds: %+v", res)
	}
	if res := eval(t, `{"model":"pii","kinds":["dob"]}`, born); res.Value != "true" || res.Evidence[0].Text != "[dob]" {
		t.Fatalf("with dob: %+v", res)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct{ def, path string }{
		{`{}`, "definition.model"},
		{`{"model":"mood"}`, "definition.model"},
		{`{"model":"sentiment","label":"Angry"}`, "definition.label"},
		{`{"model":"sentiment","extra":1}`, "definition.extra"},
		{`{"model":"talk","measure":"loudness","above":1}`, "definition.measure"},
		{`{"model":"talk","measure":"overtalkMs"}`, "definition"},
		{`{"model":"talk","measure":"overtalkMs","above":1,"below":2}`, "definition"},
		{`{"model":"pii","kinds":["passport"]}`, "definition.kinds[0]"},
	} {
		_, err := Compile([]byte(tt.def))
		var de *analysis.DefinitionError
		if !errors.As(err, &de) || de.Path != tt.path {
			t.Errorf("%s: %v, want path %s", tt.def, err, tt.path)
		}
	}
}

func FuzzFindPII(f *testing.F) {
	f.Add("card 4111 1111 1111 1111 and +1 (415) 555-0132, a@b.co, 123-45-6789, four one one one")
	f.Add("FOUR, one; one-one five. Six seven eight nine zero oh")
	f.Fuzz(func(t *testing.T, text string) {
		red, _ := Redact(text)
		if len(FindPII(red)) != 0 && !strings.Contains(red, "[") {
			t.Fatalf("redacted %q still has personal data", red)
		}
		c := &analysis.Conversation{Turns: []analysis.Turn{{Text: text}}}
		if got, want := findInTurn(c, 0), FindPII(text); !slices.Equal(got, want) {
			t.Fatalf("%q: turn shortcut %v, FindPII %v", text, got, want)
		}
	})
}

// The turn shortcut finds what FindPII finds, on every sgd-dev turn.
func TestFindInTurn(t *testing.T) {
	dialogues, err := corpus.Read(corpus.Dev, 0)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"four one one one five", "Four. One. One, one", "four-one-one-one", "call 4111 1111 1111 1111", "a@b.co"}
	for _, d := range dialogues {
		for _, turn := range d.Turns {
			texts = append(texts, turn.Text)
		}
	}
	found := 0
	for _, text := range texts {
		c := &analysis.Conversation{Turns: []analysis.Turn{{Text: "before"}, {Text: text}, {Text: "after"}}}
		got, want := findInTurn(c, 1), FindPII(text)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: turn shortcut %v, FindPII %v", text, got, want)
		}
		found += len(want)
	}
	if found < 4 {
		t.Fatalf("only %d findings: the comparison proves little", found)
	}
}

// isSpokenDigit, by prefix alone, says what the spoken digits' word index
// says, for the words, their near misses and longer words sharing their
// first eight bytes.
func TestIsSpokenDigit(t *testing.T) {
	tokens := append(slices.Clone(spokenDigitWords), "o", "on", "ones", "fiver", "zeroes", "eighty", "nineteen", "sevenths",
		"seventeen", "threefold", "twofaced", "ohm", "t", "e", "n", "the", "for", "fourteen", "sixteenths", "four1", "éight")
	for _, tok := range tokens {
		_, want := spokenDigits.Find(tok)
		if got := isSpokenDigit(words.Prefix(tok)); got != want {
			t.Errorf("%q: isSpokenDigit %v, index %v", tok, got, want)
		}
	}
}

// A card number sent as two messages is redacted in both.
func TestRedactAcross(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b, wantA, wantB string }{
		{"my card is 4111 1111", "1111 1111 thanks", "my card is [card]", "[card] thanks"},
		{"4111-1111-", "1111-1111.", "[card]", "[card]."},
		{"it's 41111111", "11111111", "it's [card]", "[card]"},
		{"room 4111 1111", "1111 1112 please", "room 4111 1111", "1111 1112 please"}, // fails the Luhn check
		{"call 415", "555 0132", "call 415", "555 0132"},                             // too few digits for a card
		{"no digits here", "none here", "no digits here", "none here"},
	} {
		a, b, _ := RedactAcross(tc.a, tc.b)
		if a != tc.wantA || b != tc.wantB {
			t.Errorf("%q + %q: %q + %q, want %q + %q", tc.a, tc.b, a, b, tc.wantA, tc.wantB)
		}
	}
}
