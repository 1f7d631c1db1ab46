package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The server's binary links no lab code: the demo and the benchmarks are
// earshot-lab's (docs/adr/0002-lab-binary.md).
func TestServerBinaryLeavesTheLabOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps gave %d packages", len(deps))
	}
	for _, p := range deps {
		if strings.Contains(p, "/internal/lab/") || strings.HasSuffix(p, "/cmd/earshot-lab") {
			t.Errorf("cmd/earshot links %s", p)
		}
	}
}
