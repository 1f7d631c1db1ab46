package console

import (
	"testing"
	"time"
)

// A session lasts an idle time past its last use, never past its maximum
// after sign-in.
func TestSessionEnd(t *testing.T) {
	t.Parallel()
	c := &Console{SessionIdle: time.Hour, SessionMax: 12 * time.Hour}
	signedIn := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		used time.Duration // after sign-in
		want time.Duration // the end, after sign-in
	}{{0, time.Hour}, {30 * time.Minute, 90 * time.Minute}, {10 * time.Hour, 11 * time.Hour}, {11*time.Hour + 30*time.Minute, 12 * time.Hour}} {
		if got := c.sessionEnd(signedIn, signedIn.Add(tc.used)); !got.Equal(signedIn.Add(tc.want)) {
			t.Errorf("used %s after sign-in: ends %s after it, want %s", tc.used, got.Sub(signedIn), tc.want)
		}
	}
}
