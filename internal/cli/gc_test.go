package cli

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// TestTuneGC sets the collector of a process the operator left alone,
// and leaves what the operator set. It changes this test process's
// collector and puts it back.
func TestTuneGC(t *testing.T) {
	percent, limit := gcSettings()
	t.Cleanup(func() {
		debug.SetGCPercent(int(percent))
		debug.SetMemoryLimit(limit)
	})
	total, err := memlimit.FromSystem()
	if err != nil {
		t.Fatal(err)
	}
	machine := int64(total)
	tests := []struct {
		name        string
		env         map[string]string
		wantPercent int64 // 0: the process's own
		wantLimit   func(int64) bool
	}{
		{"defaults", nil, defaultGCPercent, func(got int64) bool { return got > 0 && got <= machine/2+1 && got != math.MaxInt64 }},
		{"GOGC set", map[string]string{"GOGC": "150"}, 0, func(got int64) bool { return got > 0 && got <= machine/2+1 }},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, defaultGCPercent, func(got int64) bool { return got == limit }},
		{"AUTOMEMLIMIT off", map[string]string{"AUTOMEMLIMIT": "off"}, defaultGCPercent, func(got int64) bool { return got == limit }},
		{"AUTOMEMLIMIT share", map[string]string{"AUTOMEMLIMIT": "0.25"}, defaultGCPercent, func(got int64) bool { return got > 0 && got <= machine/4+1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range []string{"GOGC", "GOMEMLIMIT", "AUTOMEMLIMIT"} {
				t.Setenv(name, "") // put back after the test
				if v, ok := tt.env[name]; ok {
					os.Setenv(name, v)
				} else {
					os.Unsetenv(name)
				}
			}
			debug.SetGCPercent(int(percent))
			debug.SetMemoryLimit(limit)
			tuneGC()
			gotPercent, gotLimit := gcSettings()
			want := tt.wantPercent
			if want == 0 {
				want = percent
			}
			if gotPercent != want {
				t.Errorf("GOGC %d, want %d", gotPercent, want)
			}
			if !tt.wantLimit(gotLimit) {
				t.Errorf("memory limit %d (machine %d, before %d)", gotLimit, machine, limit)
			}
		})
	}
}
