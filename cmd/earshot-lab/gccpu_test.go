package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The garbage collector's CPU is read from a server's /metrics, as its
// Go collector names it; a server without the runtime's CPU classes (an
// earlier build) says nothing, and a reading is the difference of two.
func TestReadGCCPU(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body string
		want       gcCPU
		ok         bool
	}{
		{"served", "# TYPE " + gcTotalMetric + " counter\n" + gcTotalMetric + " 1.5\n# TYPE " + gcIdleMetric + " counter\n" + gcIdleMetric + " 0.25\n",
			gcCPU{total: 1500 * time.Millisecond, idle: 250 * time.Millisecond}, true},
		{"an earlier build", "# TYPE go_goroutines gauge\ngo_goroutines 12\n", gcCPU{}, false},
		{"the total alone", "# TYPE " + gcTotalMetric + " counter\n" + gcTotalMetric + " 1.5\n", gcCPU{}, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/metrics" {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(c.body))
		}))
		got, ok, err := readGCCPU(context.Background(), srv.URL)
		srv.Close()
		if err != nil || ok != c.ok || ok && got != c.want {
			t.Errorf("%s: %+v %v %v; want %+v %v", c.name, got, ok, err, c.want, c.ok)
		}
	}
	if d := (gcCPU{total: 3 * time.Second, idle: time.Second}).since(gcCPU{total: time.Second}); d != (gcCPU{total: 2 * time.Second, idle: time.Second}) {
		t.Errorf("since: %+v", d)
	}
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer broken.Close()
	if _, _, err := readGCCPU(context.Background(), broken.URL); err == nil {
		t.Error("a failing /metrics read no error")
	}
}
