package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
)

// benchAuthCommand measures what a flood of wrong client secrets does to
// everyone else: an authenticated client's latency with and without one.
func benchAuthCommand(*cli.Config) *cobra.Command {
	var seconds, floodConns int
	var rate float64
	var server string
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Wrong-secret floods at /connect/token: an authenticated client's latency beside them",
		Long: `Starts earshot serve on a fresh data directory (trusting loopback as a proxy, so
that X-Forwarded-For can stand for other addresses) and, for --seconds each,
sends GET /Me as an authenticated client at --rate requests per second, open
loop: alone (the baseline), beside --flood connections posting wrong secrets
for the bootstrap client from one address, and beside the same flood from a
new address each request. Prints the client's p50 and p99 in each phase, its
p99 against the baseline's, what the flood got back and the server's CPU.
--server measures another earshot binary (an earlier release).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, log := c.Context(), c.ErrOrStderr()
			binary := server
			if binary == "" {
				self, err := os.Executable()
				if err != nil {
					return err
				}
				binary = self
			}
			data, err := os.MkdirTemp("", "earshot-bench-auth-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(data)
			srv, err := startServer(ctx, binary, data, log, "--trusted-proxies", "127.0.0.1", "--rate-limit", "0")
			if err != nil {
				return err
			}
			defer srv.stop()
			bearer, err := bootstrapToken(srv.base, filepath.Join(data, "credentials.json"))
			if err != nil {
				return err
			}
			creds, err := readCredentials(filepath.Join(data, "credentials.json"))
			if err != nil {
				return err
			}
			clientID := creds["client_id"]
			phases := []struct {
				name  string
				flood func(*http.Request) // nil: no flood
			}{
				{"no flood", nil},
				{"flood from one address", func(*http.Request) {}},
				{"flood from many addresses", func(r *http.Request) {
					r.Header.Set("X-Forwarded-For", fmt.Sprintf("198.18.%d.%d", rand.IntN(256), 1+rand.IntN(254)))
				}},
			}
			// Warm up (connections, caches) before the baseline.
			if _, err := authPhase(ctx, srv.base, bearer, clientID, 2*time.Second, rate, 0, nil); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "phase\tclient requests\tp50\tp99\tp99 / no flood\tflood requests\t401\t429\tserver CPU\t")
			var quiet time.Duration
			for _, ph := range phases {
				fmt.Fprintf(log, "%s: %d s…\n", ph.name, seconds)
				cpuBefore, _ := processCPU(srv.pid)
				res, err := authPhase(ctx, srv.base, bearer, clientID, time.Duration(seconds)*time.Second, rate, floodConns, ph.flood)
				if err != nil {
					return fmt.Errorf("%s: %w", ph.name, err)
				}
				cpuAfter, _ := processCPU(srv.pid)
				p50, p99 := pct(res.latencies, 50), pct(res.latencies, 99)
				if ph.flood == nil {
					quiet = p99
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.2f×\t%d\t%d\t%d\t%.1f s\t\n", ph.name, len(res.latencies), ms(p50), ms(p99),
					float64(p99)/float64(quiet), res.flood, res.status[http.StatusUnauthorized], res.status[http.StatusTooManyRequests], (cpuAfter - cpuBefore).Seconds())
			}
			tw.Flush()
			fmt.Fprintln(c.OutOrStdout(), "target: the client's p99 beside a flood ≤ 2× its p99 without")
			return nil
		},
	}
	cmd.Flags().IntVar(&seconds, "seconds", 20, "length of each phase")
	cmd.Flags().Float64Var(&rate, "rate", 40, "the authenticated client's requests per second")
	cmd.Flags().IntVar(&floodConns, "flood", 16, "connections sending wrong secrets")
	cmd.Flags().StringVar(&server, "server", "", "earshot binary to serve with (default: this one)")
	return cmd
}

type authResult struct {
	latencies []time.Duration // the client's, sorted
	flood     int64
	status    map[int]int64 // the flood's answers by status
}

// authPhase runs the client for d at rate, beside a flood when flood is
// not nil (it dresses each flood request).
func authPhase(ctx context.Context, base, bearer, clientID string, d time.Duration, rate float64, conns int, flood func(*http.Request)) (authResult, error) {
	res := authResult{status: map[int]int64{}}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var floodCount atomic.Int64
	if flood != nil {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {"not-the-secret"}}.Encode()
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/connect/token", strings.NewReader(form))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					flood(req)
					resp, err := client.Do(req)
					if err != nil {
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					floodCount.Add(1)
					mu.Lock()
					res.status[resp.StatusCode]++
					mu.Unlock()
				}
			}()
		}
	}
	// The client: open loop, each request at its time whatever the others
	// take, so that a slow server shows as latency, not as fewer requests.
	var errs atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodGet, base+"/Me", nil)
				req.Header.Set("Authorization", bearer)
				began := time.Now()
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					errs.Add(1)
					if resp != nil {
						resp.Body.Close()
					}
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				res.latencies = append(res.latencies, time.Since(began))
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	if n := errs.Load(); n > 0 {
		return res, fmt.Errorf("%d of the client's requests failed", n)
	}
	if len(res.latencies) == 0 {
		return res, fmt.Errorf("no request of the client completed")
	}
	slices.Sort(res.latencies)
	res.flood = floodCount.Load()
	return res, nil
}
