package results

import (
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// stringColumn is a VARCHAR column of an Arrow record (DuckDB hands them
// over as string, large string or string view arrays). Its values point
// into the record: keep them only through an interner or a copy.
type stringColumn interface {
	Value(i int) string
	IsNull(i int) bool
}

// interner returns one shared copy of each value it is given: for the
// few values that repeat (runs, "true", labels), instead of a copy of
// every value of every row.
type interner map[string]string

func newInterner() *interner { return &interner{} }

func (in *interner) of(s string) string {
	if v, ok := (*in)[s]; ok {
		return v
	}
	v := strings.Clone(s)
	(*in)[v] = v
	return v
}

// cycle interns the ids of a list (the classifiers a page asks for) from
// values that come round in its sorted order: a conversation's result
// rows are sorted by classifier, so the next row's id is mostly the one
// after the last, found by one comparison instead of hashing it. Other
// values are interned as an interner does.
type cycle struct {
	ids  []string // sorted, unique
	next int      // where the next value is expected
	at   map[string]int
	in   *interner
}

func newCycle(ids []string, in *interner) *cycle {
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	c := &cycle{ids: sorted, at: make(map[string]int, len(sorted)), in: in}
	for i, id := range sorted {
		c.at[id] = i
	}
	return c
}

func (c *cycle) of(s string) string {
	if c.next < len(c.ids) && c.ids[c.next] == s {
		c.next++
		return c.ids[c.next-1]
	}
	i, ok := c.at[s]
	if !ok {
		return c.in.of(s)
	}
	c.next = i + 1
	return c.ids[i]
}

// optionalString is a nullable VARCHAR value, copied.
func optionalString(col arrow.Array, i int) *string {
	c := col.(stringColumn)
	if c.IsNull(i) {
		return nil
	}
	v := strings.Clone(c.Value(i))
	return &v
}

// optionalBool is a nullable BOOLEAN value.
func optionalBool(col arrow.Array, i int) *bool {
	c := col.(*array.Boolean)
	if c.IsNull(i) {
		return nil
	}
	return &bools[btoi(c.Value(i))]
}

// bools are the values optionalBool points to, so that a row's result
// costs no allocation; they are never written through.
var bools = [2]bool{false, true}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// optionalInterned is a nullable VARCHAR value that repeats (a label),
// through an interner.
func optionalInterned(col arrow.Array, i int, in *interner) *string {
	c := col.(stringColumn)
	if c.IsNull(i) {
		return nil
	}
	v := in.of(c.Value(i))
	return &v
}

// optionalTimestamp is a nullable TIMESTAMP value, in UTC.
func optionalTimestamp(col arrow.Array, i int) *time.Time {
	if col.IsNull(i) {
		return nil
	}
	t := timestampAt(col, i)
	return &t
}

// timestampAt is a TIMESTAMP value, in UTC.
func timestampAt(col arrow.Array, i int) time.Time {
	c := col.(*array.Timestamp)
	unit := c.DataType().(*arrow.TimestampType).Unit
	return c.Value(i).ToTime(unit).UTC()
}
