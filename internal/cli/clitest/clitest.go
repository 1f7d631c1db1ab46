// Package clitest runs earshot's command trees in tests, in-process.
package clitest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// FreeAddr is a loopback address nothing listens on.
func FreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartServe runs `serve` of a fresh command tree in-process, as the binary
// would, and waits until it answers /healthz.
func StartServe(t *testing.T, root func() *cobra.Command, args ...string) (addr string, stop func() error) {
	t.Helper()
	addr = FreeAddr(t)
	return addr, StartServeOn(t, root, addr, args...)
}

// StartServeOn is StartServe on a chosen address.
func StartServeOn(t *testing.T, root func() *cobra.Command, addr string, args ...string) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := root()
	cmd.SetArgs(append([]string{"serve", "--addr", addr, "--log-level", "warn"}, args...))
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("serve did not start in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("serve did not stop")
		}
	}
}

// Run runs one command line of a command tree in-process and gives back
// what it printed.
func Run(t *testing.T, root *cobra.Command, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := root
	cmd.SetOut(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}
