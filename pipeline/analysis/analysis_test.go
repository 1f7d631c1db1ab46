package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"I'd like to CANCEL!":          "id like to cancel",
		"Don’t — stop...now":           "dont stop now",
		"e-mail me at a.b@example.com": "e mail me at a b example com",
		"  ":                           "",
		"Café 3rd":                     "café 3rd",
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
	for _, r := range text {
		switch {
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
	for _, s := range []string{"I'd like to CANCEL!", "Don’t — stop...now", "Café 3rd ÉTÉ", "\xff\xfe", "a''b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokenize(s), tokenizeReference(s); !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q) = %q, want %q", s, got, want)
		}
	})
}
