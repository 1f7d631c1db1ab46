package results

import (
	"strings"
	"testing"
	"unsafe"
)

// TestCycleInterns: whatever order values come in (the expected cycle,
// a skipped id, a repeat, an id not asked for), cycle returns an equal
// string that shares the list's (or the interner's) copy.
func TestCycleInterns(t *testing.T) {
	ids := []string{"c", "a", "b", "a"}
	c := newCycle(ids, newInterner())
	copyOf := func(s string) string { return strings.Clone(s) }
	for _, v := range []string{"a", "b", "c", "a", "c", "c", "b", "x", "a", "x", "b"} {
		got := c.of(copyOf(v))
		if got != v {
			t.Fatalf("of(%q) = %q", v, got)
		}
		want := c.of(copyOf(v)) // the same copy every time
		if unsafe.StringData(got) != unsafe.StringData(want) {
			t.Fatalf("of(%q) returned two copies", v)
		}
	}
	if len(c.ids) != 3 {
		t.Fatalf("ids %v: want the 3 distinct ones", c.ids)
	}
}
