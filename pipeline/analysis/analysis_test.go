package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/earshot/earshot/pipeline/analysis/words"
)

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"I'd like to CANCEL!":          "id like to cancel",
		"Don’t — stop...now":           "dont stop now",
		"e-mail me at a.b@example.com": "e mail me at a b example com",
		"  ":                           "",
		"Café 3rd":                     "café 3rd",
		"$1,200.50, 3.5% or 100%!":     "1,200.50 3.5% or 100%",
		"5.0. Done. 1.2.3 4,5 6,,7":    "5.0 done 1.2.3 4,5 6 7",
		"50%% off, 5%5, .5 and 5.":     "50% off 5%5 5 and 5",
		"a.5 5'.5 ½.5 x5,000":          "a 5 5.5 5 x5,000",
		"Café 1.5 then 2,000% é.5":     "café 1.5 then 2,000% é 5",
	} {
		if got := strings.Join(Tokenize(in), " "); got != want {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecode(t *testing.T) {
	o, err := Decode([]byte(`{"Phrases":["a"],"MAXWORDS":3,"negate":true}`), "definition")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Allow("phrases", "maxWords", "negate"); err != nil {
		t.Fatal(err)
	}
	if p, _ := o.Strings("phrases", true); len(p) != 1 {
		t.Fatal(p)
	}
	if n, _ := o.Int("maxWords", 0, 10); n == nil || *n != 3 {
		t.Fatal(n)
	}
	if err := o.Allow("phrases"); err == nil || err.Error() != "definition.MAXWORDS: unknown field (known: phrases)" {
		t.Fatal(err)
	}
	if _, err := Decode([]byte(`{"a":1,"A":2}`), "definition"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatal(err)
	}
	if got := PathOf("definition", "groups", 2, "rules", 0); got != "definition.groups[2].rules[0]" {
		t.Fatal(got)
	}
}

func TestTimed(t *testing.T) {
	untimed := &Conversation{Turns: []Turn{{Text: "a"}, {Text: "b"}}}
	timed := &Conversation{Turns: []Turn{{Text: "a", StartMs: 0, EndMs: 900}, {Text: "b", StartMs: 900, EndMs: 1500}}}
	if untimed.Timed() || !timed.Timed() || timed.DurationMs() != 1500 {
		t.Fatal(untimed.Timed(), timed.Timed(), timed.DurationMs())
	}
}

// tokenizeReference is Tokenize written plainly, to check the fast one.
func tokenizeReference(text string) []string {
	var out []string
	var tok []rune
	runes := []rune(text)
	for i, r := range runes {
		lastDigit := len(tok) > 0 && '0' <= tok[len(tok)-1] && tok[len(tok)-1] <= '9'
		nextDigit := i+1 < len(runes) && '0' <= runes[i+1] && runes[i+1] <= '9'
		switch {
		case lastDigit && (r == '%' || (r == '.' || r == ',') && nextDigit):
			tok = append(tok, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tok = append(tok, unicode.ToLower(r))
		case r == '\'' || r == '’':
		default:
			if len(tok) > 0 {
				out = append(out, string(tok))
				tok = tok[:0]
			}
		}
	}
	if len(tok) > 0 {
		out = append(out, string(tok))
	}
	return out
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"I'd like to CANCEL!", "Don’t — stop...now", "Café 3rd ÉTÉ", "\xff\xfe", "a''b", "1,200.50 5% é1.5 5'.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokenize(s), tokenizeReference(s); !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q) = %q, want %q", s, got, want)
		}
		checkPrefixes(t, (&Conversation{Turns: []Turn{{Text: s}, {Text: s}}}).Normalized())
	})
}

// The normalized text holds every turn's tokens; offsets lead back to
// turns and tokens, spans to the tokens' text.
func TestNormalized(t *testing.T) {
	c := &Conversation{Turns: []Turn{
		{Text: "Hello, how can I help?"},
		{Text: "..."},
		{Text: "My CARD was declined — twice!"},
		{Text: "Café’s fine"},
	}}
	n := c.Normalized()
	if want := " hello how can i help \n \n my card was declined twice \n cafés fine \n"; n.Text != want {
		t.Fatalf("text %q, want %q", n.Text, want)
	}
	for i, want := range []string{"hello how can i help", "", "my card was declined twice", "cafés fine"} {
		if got := turnText(n, i); got != want {
			t.Errorf("turn %d: %q, want %q", i, got, want)
		}
		if got := strings.Join(Tokenize(c.Turns[i].Text), " "); got != want {
			t.Errorf("Tokenize turn %d: %q, want %q", i, got, want)
		}
	}
	for _, tt := range []struct {
		g, turn, before int
		token           string
	}{{0, 0, 0, "hello"}, {4, 0, 0, "help"}, {6, 2, 5, "card"}, {9, 2, 5, "twice"}, {11, 3, 10, "fine"}} {
		turn := n.TurnOf(tt.g)
		if turn != tt.turn || n.TokensBefore(turn) != tt.before || n.Token(tt.g) != tt.token {
			t.Errorf("token %d: turn %d before %d %q", tt.g, turn, n.TokensBefore(turn), n.Token(tt.g))
		}
	}
	if got := n.Span(2, 1, 4); got != "card was declined" {
		t.Errorf("span %q", got)
	}
	if n.TokensBefore(len(c.Turns)) != 12 {
		t.Errorf("total %d", n.TokensBefore(len(c.Turns)))
	}
	if n.Turns() != len(c.Turns) {
		t.Errorf("%d turns", n.Turns())
	}
	checkPrefixes(t, n)
}

// checkPrefixes holds Normalized.Prefix, which reads past a token's end,
// to words.Prefix of the token, for every token (the last ones near the
// text's end too).
func checkPrefixes(t *testing.T, n *Normalized) {
	t.Helper()
	for g := range n.TokensBefore(n.Turns()) {
		if got, want := n.Prefix(g), words.Prefix(n.Token(g)); got != want {
			t.Fatalf("token %d %q: prefix %x, want %x", g, n.Token(g), got, want)
		}
	}
}

// turnText is turn i's tokens joined by spaces.
func turnText(n *Normalized, i int) string {
	if n.Count(i) == 0 {
		return ""
	}
	return n.Span(i, 0, n.Count(i))
}
