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

// benchAuthCommand measures what floods of wrong secrets and passwords do
// to everyone else: an authenticated client's latency, and a good client's
// token requests, with and without them.
func benchAuthCommand(*cli.Config) *cobra.Command {
	var seconds, floodConns int
	var rate float64
	var server string
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Wrong-secret and wrong-password floods: the other clients' latency beside them",
		Long: `Starts earshot serve on a fresh data directory (trusting loopback as a proxy, so
that X-Forwarded-For can stand for other addresses) and, for --seconds each,
sends GET /Me as an authenticated client at --rate requests per second and
asks for a token with the right secret twice a second (a good client, from
its own address), open loop: alone (the baseline), and beside --flood
connections sending wrong secrets to /connect/token from one address and
from a new address and a random client id each request, wrong passwords to
/console/sign-in from one address, and (last: it spends that address's
budget) wrong secrets for random client ids from the good client's own
address (a shared NAT).
Prints each client's p50 and p99, /Me's p99 against the baseline's, the
good client's refused requests, what the flood got back and the server's
CPU. --server measures another earshot binary (an earlier release).`,
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
			good := goodClient{id: creds["client_id"], secret: creds["client_secret"], address: "192.0.2.50"}
			wrongSecret := func(clientID, address string) func(string) *http.Request {
				return func(base string) *http.Request {
					form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {"not-the-secret"}}
					return formRequest(base+"/connect/token", form, address, "")
				}
			}
			phases := []struct {
				name  string
				flood func(base string) *http.Request // nil: no flood
			}{
				{"no flood", nil},
				{"token flood, one address", wrongSecret(good.id, "198.51.100.7")},
				{"token flood, many addresses and client ids", func(base string) *http.Request {
					return wrongSecret(fmt.Sprintf("client-%d", rand.Int64()), fmt.Sprintf("198.18.%d.%d", rand.IntN(256), 1+rand.IntN(254)))(base)
				}},
				{"sign-in flood, one address", func(base string) *http.Request {
					// The form's double-submit token: a script sets both halves.
					form := url.Values{"csrf": {"x"}, "organization": {"acme"}, "username": {fmt.Sprintf("user%d", rand.IntN(1000))}, "password": {"wrong"}}
					return formRequest(base+"/console/sign-in", form, "198.51.100.8", "earshot_sign_in=x")
				}},
				// Last: it spends the good client's address's budget.
				{"token flood, random client ids, from the good client's address", func(base string) *http.Request {
					return wrongSecret(fmt.Sprintf("client-%d", rand.Int64()), good.address)(base)
				}},
			}
			// Warm up (connections, caches) before the baseline.
			if _, err := authPhase(ctx, srv.base, bearer, good, 2*time.Second, rate, 0, nil); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "phase	/Me p50	/Me p99	p99 / no flood	token p50	token p99	tokens refused	flood requests	401	429	server CPU	")
			var quiet time.Duration
			for _, ph := range phases {
				fmt.Fprintf(log, "%s: %d s…\n", ph.name, seconds)
				cpuBefore, _ := processCPU(srv.pid)
				res, err := authPhase(ctx, srv.base, bearer, good, time.Duration(seconds)*time.Second, rate, floodConns, ph.flood)
				if err != nil {
					return fmt.Errorf("%s: %w", ph.name, err)
				}
				cpuAfter, _ := processCPU(srv.pid)
				p99 := pct(res.latencies, 99)
				if ph.flood == nil {
					quiet = p99
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f×\t%s\t%s\t%d of %d\t%d\t%d\t%d\t%.1f s\t\n", ph.name, ms(pct(res.latencies, 50)), ms(p99),
					float64(p99)/float64(quiet), ms(pct(res.tokens, 50)), ms(pct(res.tokens, 99)), res.tokensRefused, len(res.tokens)+int(res.tokensRefused),
					res.flood, res.status[http.StatusUnauthorized], res.status[http.StatusTooManyRequests], (cpuAfter - cpuBefore).Seconds())
			}
			tw.Flush()
			fmt.Fprintln(c.OutOrStdout(), "targets: /Me's p99 beside a flood ≤ 2× its p99 without; the good client's token p50 ≤ 2× without, none refused")
			return nil
		},
	}
	cmd.Flags().IntVar(&seconds, "seconds", 20, "length of each phase")
	cmd.Flags().Float64Var(&rate, "rate", 40, "the authenticated client's requests per second")
	cmd.Flags().IntVar(&floodConns, "flood", 32, "connections flooding")
	cmd.Flags().StringVar(&server, "server", "", "earshot binary to serve with (default: this one)")
	return cmd
}

// goodClient is a client that asks for tokens with its right secret.
type goodClient struct{ id, secret, address string }

// formRequest is a form POST from an address (X-Forwarded-For), with a
// cookie when one is given.
func formRequest(target string, form url.Values, address, cookie string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", address)
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	return req
}

type authResult struct {
	latencies     []time.Duration // /Me's, sorted
	tokens        []time.Duration // the good client's granted token requests, sorted
	tokensRefused int64
	flood         int64
	status        map[int]int64 // the flood's answers by status
}

// authPhase runs the clients for d, beside a flood of conns connections
// when flood is not nil (it makes each flood request).
func authPhase(ctx context.Context, base, bearer string, good goodClient, d time.Duration, rate float64, conns int, flood func(string) *http.Request) (authResult, error) {
	res := authResult{status: map[int]int64{}}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var floodCount atomic.Int64
	if flood != nil {
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, CheckRedirect: noRedirects}
				for ctx.Err() == nil {
					resp, err := client.Do(flood(base).WithContext(ctx))
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
	// The clients: open loop, each request at its time whatever the others
	// take, so that a slow server shows as latency, not as fewer requests.
	var errs atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	openLoop := func(every time.Duration, request func()) {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-tick.C:
				wg.Go(request)
			}
		}
	}
	timed := func(req *http.Request) (int, time.Duration) {
		began := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, time.Since(began)
	}
	var loops sync.WaitGroup
	loops.Go(func() {
		openLoop(500*time.Millisecond, func() {
			form := url.Values{"grant_type": {"client_credentials"}, "client_id": {good.id}, "client_secret": {good.secret}}
			status, took := timed(formRequest(base+"/connect/token", form, good.address, ""))
			mu.Lock()
			defer mu.Unlock()
			switch status {
			case http.StatusOK:
				res.tokens = append(res.tokens, took)
			case http.StatusTooManyRequests:
				res.tokensRefused++
			default:
				errs.Add(1)
			}
		})
	})
	openLoop(time.Duration(float64(time.Second)/rate), func() {
		req, _ := http.NewRequest(http.MethodGet, base+"/Me", nil)
		req.Header.Set("Authorization", bearer)
		status, took := timed(req)
		if status != http.StatusOK {
			errs.Add(1)
			return
		}
		mu.Lock()
		res.latencies = append(res.latencies, took)
		mu.Unlock()
	})
	loops.Wait()
	wg.Wait()
	if n := errs.Load(); n > 0 {
		return res, fmt.Errorf("%d of the clients' requests failed", n)
	}
	if len(res.latencies) == 0 {
		return res, fmt.Errorf("no request of the client completed")
	}
	slices.Sort(res.latencies)
	slices.Sort(res.tokens)
	res.flood = floodCount.Load()
	return res, nil
}

// noRedirects keeps a flood's answers as they came.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
