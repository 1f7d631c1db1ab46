package dates

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		want    string // RFC 3339 nano in UTC, "" = must fail
		wantEnd string // ParseEnd result when it differs
	}{
		{"2025-10-03", "2025-10-03T00:00:00Z", "2025-10-03T23:59:59.999999Z"},
		{"2025-10-03T21:52:26", "2025-10-03T21:52:26Z", ""},
		{"2025-10-03T21:52:26Z", "2025-10-03T21:52:26Z", ""},
		{"2025-10-03T21:52:26.8816090Z", "2025-10-03T21:52:26.881609Z", ""},
		{"2025-10-03T21:52:26.8816091Z", "2025-10-03T21:52:26.8816091Z", ""},
		{"2025-10-03T21:52:26.1", "2025-10-03T21:52:26.1Z", ""},
		{"2025-10-03T17:56:09.8683110-04:00", "2025-10-03T21:56:09.868311Z", ""},
		{"2025-10-03T23:30:00+05:30", "2025-10-03T18:00:00Z", ""},
		{"2024-02-29", "2024-02-29T00:00:00Z", "2024-02-29T23:59:59.999999Z"},
		{"2025-12-31T23:59:59.9999999Z", "2025-12-31T23:59:59.9999999Z", ""},
		// What .NET and JavaScript clients commonly send besides.
		{"2025-10-03 21:52:26", "2025-10-03T21:52:26Z", ""},
		{"2025-10-03t21:52:26", "2025-10-03T21:52:26Z", ""},
		{"2025-10-03T21:52:26z", "2025-10-03T21:52:26Z", ""},
		{"2025-10-03T21:52", "2025-10-03T21:52:00Z", ""},
		{"2025-10-03 21:52Z", "2025-10-03T21:52:00Z", ""},
		{"2025-10-03T21:52:26+0400", "2025-10-03T17:52:26Z", ""},
		{"2025-10-03T21:52:26.5-0430", "2025-10-04T02:22:26.5Z", ""},
		{"2025-10-03T21:52:26 00:00", "2025-10-03T21:52:26Z", ""}, // +00:00 unencoded in a query
		{"2025-10-03T21:52:26 05:30", "2025-10-03T16:22:26Z", ""},
		{"2025-10-03T21:52:26.123 0000", "2025-10-03T21:52:26.123Z", ""},
		// rejected
		{"", "", ""},
		{"2025-10-3", "", ""},
		{"2025/10/03", "", ""},
		{"2025-13-01", "", ""},
		{"2025-02-29", "", ""},
		{"2025-10-03T24:00:00", "", ""},
		{"2025-10-03T21:52:26.", "", ""},
		{"2025-10-03T21:52:26.12345678Z", "", ""},
		{"2025-10-03T21:52:26,123Z", "", ""},
		{"2025-10-03T21:52:26+04", "", ""},
		{"2025-10-03T21:5", "", ""},
		{"2025-10-03T21:52.5Z", "", ""},
		{"2025-10-03T21:52:2", "", ""},
		{"2025-10-03T21:52:26 0", "", ""},
		{"2025-10-03T21:52:26+04:0", "", ""},
		{"2025-10-03T21:52:26+25:00", "", ""},
		{"2025-10-03_21:52:26", "", ""},
		{"2025-10-03T", "", ""},
		{"2025-10-03T21:52:26Z ", "", ""},
		{" 2025-10-03", "", ""},
		{"2025-10-03Z", "", ""},
		{"1759528346", "", ""},
		{"yesterday", "", ""},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.want == "" {
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%q) = %v, %v; want ErrInvalid", c.in, got, err)
			}
			continue
		}
		if err != nil || got.Format(time.RFC3339Nano) != c.want || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %s, %v; want %s", c.in, got.Format(time.RFC3339Nano), err, c.want)
		}
		wantEnd := c.wantEnd
		if wantEnd == "" {
			wantEnd = c.want
		}
		if end, err := ParseEnd(c.in); err != nil || end.Format(time.RFC3339Nano) != wantEnd {
			t.Errorf("ParseEnd(%q) = %s, %v; want %s", c.in, end.Format(time.RFC3339Nano), err, wantEnd)
		}
	}
}

func TestFormat(t *testing.T) {
	in := time.Date(2025, 10, 3, 17, 52, 26, 881609000, time.FixedZone("", -4*3600))
	if got := Format(in); got != "2025-10-03T21:52:26.881Z" {
		t.Fatalf("Format = %s", got)
	}
	if got := Format(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)); got != "2025-01-02T03:04:05.000Z" {
		t.Fatalf("Format = %s", got)
	}
}

// TestAppendJSONAsAppendFormat holds the digit-by-digit writer to
// AppendFormat with the layout: edges of the four-digit years, of days and
// of milliseconds, other zones, and instants spread over the years.
func TestAppendJSONAsAppendFormat(t *testing.T) {
	t.Parallel()
	times := []time.Time{
		{},
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 10, 3, 17, 52, 26, 881609000, time.FixedZone("", -4*3600)),
		time.Date(2024, 2, 29, 23, 59, 59, 999999, time.FixedZone("", 14*3600)),
		time.Unix(1<<40, 0),
		time.Unix(-1<<40, 1),
	}
	rng := rand.New(rand.NewPCG(43, 1))
	for range 100000 {
		times = append(times, time.Unix(0, rng.Int64()).Add(time.Duration(rng.Int64N(int64(200*365*24*time.Hour)))))
	}
	for _, in := range times {
		want := `"` + in.UTC().Format(layout) + `"`
		if got := string(Timestamp(in).AppendJSON([]byte("x"))); got != "x"+want {
			t.Fatalf("AppendJSON(%v) = %s, want x%s", in, got, want)
		}
	}
}

// grammar is an independent statement of the accepted forms (range checks
// aside), the oracle of the fuzz test.
var grammar = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?([Zz]|[+ -]\d{2}:?\d{2})?)?$`)

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"2025-10-03", "2025-10-03T21:52:26", "2025-10-03T21:52:26.8816090Z",
		"2025-10-03T17:56:09.8683110-04:00", "2025-10-03T21:52:26Z", "2025-10-03T21:52:26.1+14:00",
		"", "2025-10-03T", "9999-12-31T23:59:59.9999999-23:59", "2025-10-03 21:52 00:00", "2025-10-03t21:52:26.5-0400z",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		end, errEnd := ParseEnd(s)
		if (err == nil) != (errEnd == nil) {
			t.Fatalf("Parse and ParseEnd disagree on %q: %v / %v", s, err, errEnd)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) error does not wrap ErrInvalid: %v", s, err)
			}
			return
		}
		if !grammar.MatchString(s) {
			t.Fatalf("Parse accepted %q, which is none of the accepted forms", s)
		}
		if got.Location() != time.UTC {
			t.Fatalf("Parse(%q) not in UTC", s)
		}
		if end.Before(got) || end.Sub(got) >= 24*time.Hour {
			t.Fatalf("ParseEnd(%q) = %v is not within the day from %v", s, end, got)
		}
		// What we write, we read back (to the millisecond we write).
		back, err := Parse(Format(got))
		if err != nil || !back.Equal(got.Truncate(time.Millisecond)) {
			t.Fatalf("round trip of %q: %s -> %v, %v", s, Format(got), back, err)
		}
	})
}

// BenchmarkParse reads the forms chats and clients send most: RFC 3339
// in UTC with and without a fraction, and an offset.
func BenchmarkParse(b *testing.B) {
	for _, s := range []string{"2025-10-03T21:52:26Z", "2025-10-03T21:52:26.8816090Z", "2025-10-03T17:56:09.8683110-04:00"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendJSON is a timestamp written as JSON, beside AppendFormat
// with the layout (what it wrote before) as the baseline.
func BenchmarkAppendJSON(b *testing.B) {
	in := time.Date(2025, 10, 3, 17, 52, 26, 881609000, time.UTC)
	buf := make([]byte, 0, 64)
	b.Run("digits", func(b *testing.B) {
		for b.Loop() {
			buf = Timestamp(in).AppendJSON(buf[:0])
		}
	})
	b.Run("AppendFormat", func(b *testing.B) {
		for b.Loop() {
			buf = append(in.UTC().AppendFormat(append(buf[:0], '"'), layout), '"')
		}
	})
}
