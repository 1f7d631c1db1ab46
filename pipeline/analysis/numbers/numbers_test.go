package numbers

import (
	"strings"
	"testing"
)

func read(text string) (string, int) {
	tokens := strings.Fields(text)
	return Read(func(i int) (string, bool) {
		if i < len(tokens) {
			return tokens[i], true
		}
		return "", false
	})
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		text   string
		digits string
		used   int
	}{
		{"50", "50", 1},
		{"5 0", "50", 2},
		{"fifty", "50", 1},
		{"five oh", "50", 2},
		{"five zero", "50", 2},
		{"fifty five dollars", "55", 2},
		{"five fifty", "550", 2},
		{"nineteen ninety nine", "1999", 3},
		{"twenty twenty", "2020", 2},
		{"two thousand twenty", "2020", 3},
		{"two hundred and five", "205", 4},
		{"two hundred and then", "200", 2},
		{"one hundred twenty three", "123", 4},
		{"four one five 5 5 5", "415555", 6},
		{"eleven thirty", "1130", 2},
		{"twelve", "12", 1},
		{"ten oh five", "1005", 3},
		{"oh five", "", 0},
		{"hundred", "", 0},
		{"and five", "", 0},
		{"hello", "", 0},
		{"", "", 0},
	} {
		digits, used := read(tc.text)
		if digits != tc.digits || used != tc.used {
			t.Errorf("%q: %q in %d tokens, want %q in %d", tc.text, digits, used, tc.digits, tc.used)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{"five oh", "two hundred and five", "nineteen ninety nine", "4 1 5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		digits, used := read(text)
		if (used == 0) != (digits == "") || used > len(strings.Fields(text)) || !(digits == "" || isDigits(digits)) {
			t.Fatalf("%q: %q in %d tokens", text, digits, used)
		}
	})
}
