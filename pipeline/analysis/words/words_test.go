package words

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	list := []string{"a", "i", "to", "cancel", "cancellation", "cancellations", "canceled",
		"reservation", "reservations", "\x00", "a\x00", "twelve345", "twelve346", "a"}
	ix := New(list)
	for i, w := range list[:len(list)-1] {
		if n, ok := ix.Find(w); !ok || n != i {
			t.Errorf("Find(%q) = %d, %v; want %d", w, n, ok, i)
		}
	}
	// The duplicate "a" keeps its first number.
	if n, _ := ix.Find("a"); n != 0 {
		t.Errorf(`Find("a") = %d`, n)
	}
	for _, w := range []string{"", "b", "t", "cance", "cancelled", "cancellationz", "reservatio", "A", "twelve34", "twelve347", "\x00\x00"} {
		if n, ok := ix.Find(w); ok {
			t.Errorf("Find(%q) = %d, want none", w, n)
		}
	}
	if ix.Len() != len(list) {
		t.Errorf("Len %d", ix.Len())
	}
}

func TestSmall(t *testing.T) {
	for _, list := range [][]string{nil, {}, {""}, {"one"}, {"one", "two"}} {
		ix := New(list)
		for i, w := range list {
			if n, ok := ix.Find(w); ok != (w != "") || ok && n != i {
				t.Errorf("%q: Find(%q) = %d, %v", list, w, n, ok)
			}
		}
		if _, ok := ix.Find("three"); ok {
			t.Errorf("%q: three found", list)
		}
	}
}

func TestPrefix(t *testing.T) {
	for w, want := range map[string]uint64{
		"":           0,
		"a":          0x61,
		"ab":         0x6261,
		"abcdefgh":   0x6867666564636261,
		"abcdefghij": 0x6867666564636261,
	} {
		if got := Prefix(w); got != want {
			t.Errorf("Prefix(%q) = %x, want %x", w, got, want)
		}
	}
}

// FuzzFind holds Index to a map's answers: the list is the input's
// space-separated words, the query each of them and each cut short or
// made longer.
func FuzzFind(f *testing.F) {
	f.Add("i want to cancel my reservation please", "cancelled")
	f.Add("a a\x00 \x00 abcdefgh abcdefghi", "abcdefg")
	f.Fuzz(func(t *testing.T, words, query string) {
		list := strings.Split(words, " ")
		want := map[string]int{}
		for i, w := range list {
			if _, ok := want[w]; !ok && w != "" {
				want[w] = i
			}
		}
		ix := New(list)
		check := func(w string) {
			n, ok := ix.Find(w)
			m, known := want[w]
			if ok != known || n != m {
				t.Fatalf("Find(%q) = %d, %v; want %d, %v", w, n, ok, m, known)
			}
			if nb, okb := ix.FindBytes([]byte(w)); nb != n || okb != ok {
				t.Fatalf("FindBytes(%q) = %d, %v; Find %d, %v", w, nb, okb, n, ok)
			}
		}
		check(query)
		for _, w := range list {
			check(w)
			check(w + "x")
			if len(w) > 0 {
				check(w[1:])
				check(w[:len(w)-1])
			}
		}
	})
}
