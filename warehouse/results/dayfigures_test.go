package results

import (
	"testing"
	"time"
)

// The period before a window of whole days is as many whole days, ending
// the day before it starts.
func TestWindowBefore(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct{ from, to, wantFrom, wantTo string }{
		{"2025-10-15", "2025-10-28", "2025-10-01", "2025-10-14"},
		{"2025-10-15", "2025-10-15", "2025-10-14", "2025-10-14"},
		{"2025-03-01", "2025-03-31", "2025-01-29", "2025-02-28"},
		{"2025-01-01", "2025-04-02", "2024-10-01", "2024-12-31"},
	} {
		w := Window{From: day(tc.from), To: lastOfDay(day(tc.to))}
		got := w.Before()
		if want := (Window{From: day(tc.wantFrom), To: lastOfDay(day(tc.wantTo))}); !got.From.Equal(want.From) || !got.To.Equal(want.To) {
			t.Errorf("before %s–%s: %s–%s, want %s–%s", tc.from, tc.to, got.From, got.To, want.From, want.To)
		}
		if !got.wholeDays() {
			t.Errorf("before %s–%s: %s–%s is not whole days", tc.from, tc.to, got.From, got.To)
		}
	}
}
