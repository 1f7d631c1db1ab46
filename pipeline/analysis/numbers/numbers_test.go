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
		{"twelve hundred", "1200", 2},
		{"one thousand two hundred", "1200", 4},
		{"two thousand five hundred and five", "2505", 6},
		{"two thousand five", "2005", 3},
		{"two thousand twenty", "2020", 3},
		{"twelve hundred dollars", "1200", 2},
		{"a hundred", "100", 2},
		{"a thousand and five", "1005", 4},
		{"a hundred percent", "100%", 3},
		{"one hundred percent", "100%", 3},
		{"100 percent", "100%", 2},
		{"100%", "100%", 1},
		{"3.5% more", "3.5%", 1},
		{"three point five", "3.5", 3},
		{"three point one four", "3.14", 4},
		{"three point oh five", "3.05", 4},
		{"3 point 5", "3.5", 3},
		{"three point five percent", "3.5%", 4},
		{"three point zero", "3", 3},
		{"three point", "3", 1},
		{"50.00", "50", 1},
		{"50.00 5", "50", 1},
		{"1,200.00", "1200", 1},
		{"1,200", "1200", 1},
		{"1,200.50", "1200.5", 1},
		{"3.5", "3.5", 1},
		{"5.0", "5", 1},
		{"5.0 percent", "5%", 2},
		{"4 1.5", "4", 1},
		{"1.2.3", "", 0},
		{"12,00", "", 0},
		{"1234,567", "", 0},
		{"5%5", "", 0},
		{"a dog", "", 0},
		{"a", "", 0},
		{"point five", "", 0},
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
	for _, s := range []string{"five oh", "two hundred and five", "nineteen ninety nine", "4 1 5", "1,200.50%", "a hundred point oh five percent"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		digits, used := read(text)
		if (used == 0) != (digits == "") || used > len(strings.Fields(text)) || !(digits == "" || IsNumber(digits)) {
			t.Fatalf("%q: %q in %d tokens", text, digits, used)
		}
	})
}
