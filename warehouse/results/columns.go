package results

import (
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

// interner returns one shared copy of each value it is given: the ids a
// page already holds (the classifiers asked for) and the few values that
// repeat (runs, "true", labels), instead of a copy of every value of every
// row.
type interner map[string]string

func newInterner(known ...[]string) *interner {
	in := interner{}
	for _, list := range known {
		for _, s := range list {
			in[s] = s
		}
	}
	return &in
}

func (in *interner) of(s string) string {
	if v, ok := (*in)[s]; ok {
		return v
	}
	v := strings.Clone(s)
	(*in)[v] = v
	return v
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
	v := c.Value(i)
	return &v
}

// timestampAt is a TIMESTAMP value, in UTC.
func timestampAt(col arrow.Array, i int) time.Time {
	c := col.(*array.Timestamp)
	unit := c.DataType().(*arrow.TimestampType).Unit
	return c.Value(i).ToTime(unit).UTC()
}
