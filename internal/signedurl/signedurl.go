// Package signedurl downloads the file a client names by URL instead of
// uploading it (POST /Media/Upload with signedUrl), without letting the URL
// reach the server's own network (SSRF): https only (http when configured),
// every connected address checked against loopback, private, link-local,
// multicast, cloud-metadata and other special ranges — on the first request
// and on every redirect, at most 3 of them — with a timeout and a size limit.
package signedurl

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is wrapped by every refusal and failure; its text names the
// cause for the client.
var ErrRefused = errors.New("the signedUrl could not be used")

// ErrTooLarge: the file is larger than the size limit.
var ErrTooLarge = errors.New("the signedUrl's file is too large")

// ErrIncomplete is wrapped by a download that stopped before its end.
var ErrIncomplete = errors.New("the signedUrl download did not complete")

// MaxRedirects is how many redirects a download may follow.
const MaxRedirects = 3

// Options configure a Fetcher.
type Options struct {
	AllowHTTP bool           // accept plain http:// (development only)
	Allow     []netip.Prefix // ranges exempt from the guard (e.g. a trusted internal store)
	Timeout   time.Duration  // whole download, headers and body; default 10 minutes
	MaxBytes  int64          // size limit; 0 = none
	// LookupIP resolves host names; default net.DefaultResolver. Tests
	// replace it to map names to addresses without DNS.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// TLS overrides the TLS client configuration (tests trust their own CA).
	TLS *tls.Config
	// LocalAddrs are this machine's own addresses, refused whatever their
	// class (a service listening on 0.0.0.0 answers on the public one too);
	// default: the interfaces' addresses, read at every check.
	LocalAddrs func() ([]netip.Addr, error)
}

// Fetcher downloads signed URLs under the guard, and posts to the
// endpoints organizations register for their results under the same
// guard.
type Fetcher struct {
	opts   Options
	client *http.Client
	poster *http.Client // follows no redirect: a redirected POST would resend its body elsewhere
}

// New makes a Fetcher.
func New(opts Options) *Fetcher {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.LookupIP == nil {
		opts.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if opts.LocalAddrs == nil {
		opts.LocalAddrs = interfaceAddrs
	}
	f := &Fetcher{opts: opts}
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: f.control}
	transport := &http.Transport{
		Proxy: nil, // a proxy would connect for us, past the guard
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			addrs, err := f.resolve(ctx, host)
			if err != nil {
				return nil, err
			}
			var lastErr error
			for _, a := range addrs {
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
				if err == nil {
					return conn, nil
				}
				lastErr = err
			}
			return nil, lastErr
		},
		TLSClientConfig:       opts.TLS,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f.poster = &http.Client{
		Transport:     transport,
		Timeout:       postTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	f.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrRefused, MaxRedirects)
			}
			return f.checkScheme(req.URL)
		},
	}
	return f
}

// resolve maps a host to addresses, refusing at once when every address is
// forbidden (the dial-time check is the one that counts).
func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := f.opts.LookupIP(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%w: the host %s does not resolve", ErrRefused, host)
	}
	var ok []netip.Addr
	for _, a := range addrs {
		if f.allowed(a) {
			ok = append(ok, a)
		}
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("%w: the host %s resolves to a forbidden address", ErrRefused, host)
	}
	return ok, nil
}

// control runs on every socket just before it connects, with the address it
// connects to: the check no DNS trick can get around.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unexpected address %s", ErrRefused, address)
	}
	if !f.allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s is a forbidden address (this machine's, loopback, private, link-local, multicast, reserved or metadata)", ErrRefused, ap.Addr())
	}
	return nil
}

// forbidden ranges besides what netip classifies.
var forbidden = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),         // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),     // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),      // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),     // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),       // reserved, broadcast
	netip.MustParsePrefix("192.0.2.0/24"),      // documentation (TEST-NET-1)
	netip.MustParsePrefix("198.51.100.0/24"),   // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),    // documentation (TEST-NET-3)
	netip.MustParsePrefix("192.88.99.0/24"),    // 6to4 relays
	netip.MustParsePrefix("::/96"),             // IPv4-compatible ::a.b.c.d (deprecated; may reach IPv4 space)
	netip.MustParsePrefix("64:ff9b::/96"),      // NAT64 (could reach IPv4 private space)
	netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use NAT64
	netip.MustParsePrefix("100::/64"),          // discard-only
	netip.MustParsePrefix("2001::/32"),         // Teredo (tunnels to IPv4)
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("2002::/16"),         // 6to4 (embeds any IPv4 address)
	netip.MustParsePrefix("fd00:ec2::254/128"), // AWS metadata over IPv6 (inside fc00::/7 too)
}

// interfaceAddrs are the addresses of this machine's network interfaces.
func interfaceAddrs() ([]netip.Addr, error) {
	nets, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, n := range nets {
		if p, err := netip.ParsePrefix(n.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out, nil
}

func (f *Fetcher) allowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range f.opts.Allow {
		if p.Contains(a) {
			return true
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsValid() {
		return false
	}
	for _, p := range forbidden {
		if p.Contains(a) {
			return false
		}
	}
	local, err := f.opts.LocalAddrs()
	if err != nil {
		return false // unknown own addresses: refuse rather than guess
	}
	for _, l := range local {
		if l.Unmap() == a {
			return false
		}
	}
	return true
}

func (f *Fetcher) checkScheme(u *url.URL) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && f.opts.AllowHTTP:
		return nil
	}
	return fmt.Errorf("%w: only https URLs are accepted (got %q)", ErrRefused, u.Scheme)
}

// parse checks a URL's form: absolute, https (http when allowed), no
// credentials.
func (f *Fetcher) parse(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: it is not an absolute URL", ErrRefused)
	}
	if err := f.checkScheme(u); err != nil {
		return nil, err
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL are not accepted", ErrRefused)
	}
	return u, nil
}

// Check tells whether a URL is one the guard lets through now: its form,
// and its host resolving to an allowed address (each connection is
// checked again).
func (f *Fetcher) Check(ctx context.Context, rawURL string) error {
	u, err := f.parse(rawURL)
	if err != nil {
		return err
	}
	addrs, err := f.resolve(ctx, u.Hostname())
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if f.allowed(a) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is a forbidden address (this machine's, loopback, private, link-local, multicast, reserved or metadata)", ErrRefused, u.Hostname())
}

// postTimeout bounds one delivery: an endpoint acknowledges, it does not
// process, before it answers.
const postTimeout = 30 * time.Second

// Post sends body to rawURL with header under the guard, following no
// redirect, and returns the response, whose body the caller closes.
func (f *Fetcher) Post(ctx context.Context, rawURL string, body []byte, header http.Header) (*http.Response, error) {
	u, err := f.parse(rawURL)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := f.poster.Do(req)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			return nil, innermostRefusal(err)
		}
		return nil, fmt.Errorf("%w: %v", ErrRefused, unwrapURLError(err))
	}
	return resp, nil
}

// Open starts the download of rawURL and returns its body, which the caller
// closes. The body fails with an ErrRefused error past the size limit.
func (f *Fetcher) Open(ctx context.Context, rawURL string) (io.ReadCloser, error) {
	u, err := f.parse(rawURL)
	if err != nil {
		return nil, err
	}
	// The time limit is the request's deadline (not http.Client.Timeout):
	// the body can then tell a download cut off by it from a complete one.
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if timedOut {
			return nil, fmt.Errorf("%w: it took longer than the limit of %s", ErrRefused, f.opts.Timeout)
		}
		if errors.Is(err, ErrRefused) {
			return nil, innermostRefusal(err)
		}
		return nil, fmt.Errorf("%w: the download failed: %v", ErrRefused, unwrapURLError(err))
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%w: it answered %s", ErrRefused, resp.Status)
	}
	if f.opts.MaxBytes > 0 && resp.ContentLength > f.opts.MaxBytes {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%w: the file is %s bytes, over the limit of %d", ErrTooLarge, strconv.FormatInt(resp.ContentLength, 10), f.opts.MaxBytes)
	}
	return &body{body: resp.Body, ctx: ctx, cancel: cancel, timeout: f.opts.Timeout}, nil
}

// body is a download's body. Its errors say what went wrong in words, and
// an end of the body after the deadline is an error too: a transfer cut
// off by the time limit can end as if it were complete.
type body struct {
	body    io.ReadCloser
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(b.ctx.Err(), context.DeadlineExceeded):
		return n, fmt.Errorf("%w: it took longer than the limit of %s", ErrIncomplete, b.timeout)
	case b.ctx.Err() != nil:
		return n, fmt.Errorf("%w: %v", ErrIncomplete, b.ctx.Err())
	case err == io.EOF:
		return n, err
	}
	return n, fmt.Errorf("%w: %v", ErrIncomplete, err)
}

func (b *body) Close() error {
	defer b.cancel()
	return b.body.Close()
}

// Reason is what went wrong with a download, in words: the text after
// this package's error (whatever wraps it).
func Reason(err error) string {
	msg := err.Error()
	for _, sentinel := range []error{ErrIncomplete, ErrTooLarge, ErrRefused} {
		if i := strings.LastIndex(msg, sentinel.Error()+": "); i >= 0 {
			return msg[i+len(sentinel.Error())+2:]
		}
	}
	return msg
}

// innermostRefusal digs our own refusal out of the transport's wrapping
// (url.Error, net.OpError), so the message names the cause plainly.
func innermostRefusal(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil || next == ErrRefused || !errors.Is(next, ErrRefused) {
			return err
		}
		err = next
	}
}

// unwrapURLError drops net/url's "Get \"…\":" prefix, keeping the cause.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
