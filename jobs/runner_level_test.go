package jobs

import (
	"errors"
	"log/slog"
	"testing"
)

// A run's end is an error when it failed, info when it did something,
// and debug when it found nothing to do.
func TestFinishLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		counts map[string]int64
		err    error
		want   slog.Level
	}{
		{map[string]int64{"uploads": 0, "conversations": 0}, nil, slog.LevelDebug},
		{nil, nil, slog.LevelDebug},
		{map[string]int64{"uploads": 2, "conversations": 0}, nil, slog.LevelInfo},
		{map[string]int64{"uploads": 0}, errors.New("disk full"), slog.LevelError},
	} {
		if got := finishLevel(tc.counts, tc.err); got != tc.want {
			t.Errorf("%v, %v: %v, want %v", tc.counts, tc.err, got, tc.want)
		}
	}
}
