package spoken

import (
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
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
		if got := strings.Join(Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"11:30", "$5", "2nd", "408-1", "a&b", "99999999999", "--", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Words(s) {
			if w == "" || strings.ContainsAny(w, " \t\n") {
				t.Fatalf("Words(%q) gave word %q", s, w)
			}
		}
	})
}
