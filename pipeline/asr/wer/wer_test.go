package wer

import (
	"strings"
	"testing"
)

func ws(speaker, text string) []Word {
	var out []Word
	for _, w := range strings.Fields(text) {
		out = append(out, Word{w, speaker})
	}
	return out
}

func TestAlign(t *testing.T) {
	tests := []struct {
		name           string
		ref, hyp       []Word
		s, d, i        int
		attributed, ok int
	}{
		{"equal", ws("A", "a b c"), ws("A", "a b c"), 0, 0, 0, 3, 3},
		{"substitution", ws("A", "a b c"), ws("A", "a x c"), 1, 0, 0, 3, 3},
		{"deletion", ws("A", "a b c"), ws("A", "a c"), 0, 1, 0, 2, 2},
		{"insertion", ws("A", "a b"), ws("A", "a x b"), 0, 0, 1, 2, 2},
		{"empty hypothesis", ws("A", "a b"), nil, 0, 2, 0, 0, 0},
		{"empty reference", nil, ws("A", "a"), 0, 0, 1, 0, 0},
		{"wrong speaker", append(ws("A", "a b"), ws("C", "c d")...), append(ws("A", "a b c"), ws("C", "d")...), 0, 0, 0, 4, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Align(tt.ref, tt.hyp)
			if s.Substitutions != tt.s || s.Deletions != tt.d || s.Insertions != tt.i || s.Attributed != tt.attributed || s.SameSpeaker != tt.ok {
				t.Fatalf("%+v", s)
			}
		})
	}
	if w := Align(ws("A", "a b c d"), ws("A", "a x c")).WER(); w != 0.5 {
		t.Fatalf("WER %v", w)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"I want a table for 2 people at half past 11.": "i want a table for two people at half past eleven",
		"The time is 11:30 am, or 7:05 pm?":            "the time is eleven thirty am or seven oh five pm",
		"Call 408-247-8880 on March 2nd":               "call four zero eight two four seven eight eight eight zero on march second",
		"Rosie Mccann's Irish Pub & Restaurant":        "rosie mccann's irish pub and restaurant",
		"It costs $125 plus 15%":                       "it costs one hundred twenty five dollars plus fifteen percent",
		"On the 21st and 30th, at 4:00":                "on the twenty first and thirtieth at four",
		"Yes, thanks. What's their phone number?":      "yes thanks what's their phone number",
		"2,500 miles": "two thousand five hundred miles",
	} {
		if got := strings.Join(Normalize(in), " "); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"11:30", "$5", "2nd", "408-1", "a&b", "99999999999", "--", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Normalize(s) {
			if w == "" || strings.ContainsAny(w, " \t\n") {
				t.Fatalf("Normalize(%q) gave word %q", s, w)
			}
		}
	})
}
