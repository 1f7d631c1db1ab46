package timing

import (
	"context"
	"testing"
	"time"
)

// Steps add up by name, in the order they first ran, and read back.
func TestStepsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx, s := With(context.Background())
	s.Add("lake", 7*time.Millisecond)
	s.Add("verify", 1500*time.Microsecond)
	s.Add("lake", 2*time.Millisecond)
	Start(ctx, "encode")()
	if got := s.Header(); got[:len("lake;dur=9.00, verify;dur=1.50, encode;dur=")] != "lake;dur=9.00, verify;dur=1.50, encode;dur=" {
		t.Fatalf("header %q", got)
	}
	back := Parse(s.Header())
	if back["lake"] != 9*time.Millisecond || back["verify"] != 1500*time.Microsecond || len(back) != 3 {
		t.Errorf("parsed back: %v", back)
	}
	if took := s.Took(); took["lake"] != 9*time.Millisecond || took["verify"] != 1500*time.Microsecond || len(took) != 3 {
		t.Errorf("took: %v", took)
	}
	Start(context.Background(), "no recorder")() // costs nothing, records nowhere
	for _, bad := range []string{"", "x;dur=-1", "y;dur=abc", ";;;", "z"} {
		if got := Parse(bad); len(got) != 0 {
			t.Errorf("%q: %v", bad, got)
		}
	}
}

// Whatever a Server-Timing header holds, Parse answers without a panic
// and never a negative duration.
func FuzzParse(f *testing.F) {
	f.Add("lake;dur=7.12, verify;dur=1.05")
	f.Add(`db;desc="x";dur=2, ,;dur=`)
	f.Fuzz(func(t *testing.T, header string) {
		for name, d := range Parse(header) {
			if d < 0 {
				t.Fatalf("%q: %s is %v", header, name, d)
			}
		}
	})
}
