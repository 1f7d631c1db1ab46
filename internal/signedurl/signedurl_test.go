package signedurl

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// stubResolver maps names to addresses without DNS. No test here sends a
// packet to a non-loopback address: forbidden addresses are refused before
// the socket connects.
func stubResolver(names map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		a, ok := names[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
}

func TestRefusedTargets(t *testing.T) {
	f := New(Options{LookupIP: stubResolver(map[string]string{
		"internal.example": "10.1.2.3", "meta.example": "169.254.169.254", "v6.example": "::1", "mapped.example": "::ffff:127.0.0.1",
		"self.example": "93.184.215.99",
	}), LocalAddrs: func() ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.215.99"), netip.MustParseAddr("2600:1f18::99")}, nil
	}})
	cases := map[string]string{
		"loopback":              "https://127.0.0.1/file.wav",
		"loopback name":         "https://localhost.invalid/file.wav",
		"private":               "https://10.0.0.1/file.wav",
		"metadata":              "https://169.254.169.254/latest/meta-data",
		"ipv6 loopback":         "https://[::1]/x.wav",
		"unspecified":           "https://0.0.0.0/x.wav",
		"cgnat":                 "https://100.64.0.1/x.wav",
		"multicast":             "https://224.0.0.1/x.wav",
		"name to private":       "https://internal.example/x.wav",
		"name to metadata":      "https://meta.example/x.wav",
		"name to ipv6 loopback": "https://v6.example/x.wav",
		"name to mapped v4":     "https://mapped.example/x.wav",
		"plain http":            "http://93.184.215.14/x.wav",
		"ftp":                   "ftp://93.184.215.14/x.wav",
		"relative":              "/x.wav",
		"credentials":           "https://user:pw@93.184.215.14/x.wav",
		"this machine's public": "https://93.184.215.99/x.wav",
		"name to this machine":  "https://self.example/x.wav",
		"this machine's v6":     "https://[2600:1f18::99]/x.wav",
		"test-net-1":            "https://192.0.2.10/x.wav",
		"test-net-2":            "https://198.51.100.10/x.wav",
		"test-net-3":            "https://203.0.113.10/x.wav",
		"6to4 relay":            "https://192.88.99.1/x.wav",
		"ipv4-compatible":       "https://[::7f00:1]/x.wav",
		"ipv4-compatible dots":  "https://[::10.0.0.1]/x.wav",
		"nat64":                 "https://[64:ff9b::a00:1]/x.wav",
		"local-use nat64":       "https://[64:ff9b:1::a00:1]/x.wav",
		"discard-only":          "https://[100::1]/x.wav",
		"teredo":                "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.wav",
		"documentation v6":      "https://[2001:db8::1]/x.wav",
		"6to4":                  "https://[2002:7f00:1::1]/x.wav",
	}
	for name, u := range cases {
		if _, err := f.Open(context.Background(), u); !errors.Is(err, ErrRefused) {
			t.Errorf("%s (%s): %v", name, u, err)
		} else if name == "name to private" && !strings.Contains(err.Error(), "forbidden address") {
			t.Errorf("%s: message does not name the cause: %v", name, err)
		}
		// An emission endpoint gets the same guard.
		if err := f.Check(context.Background(), u); !errors.Is(err, ErrRefused) {
			t.Errorf("check %s (%s): %v", name, u, err)
		}
		if _, err := f.Post(context.Background(), u, []byte("{}"), nil); !errors.Is(err, ErrRefused) {
			t.Errorf("post %s (%s): %v", name, u, err)
		}
	}
}

func TestDownloadsAndRedirects(t *testing.T) {
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/file.wav", func(w http.ResponseWriter, _ *http.Request) { hits.Add(1); io.WriteString(w, "RIFF....WAVE") })
	mux.HandleFunc("/big.wav", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, strings.Repeat("x", 1000)) })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-private-name", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://internal.example/x", http.StatusFound)
	})
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://public.example/x", http.StatusFound)
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		n := len(r.URL.Path) - len("/hop/")
		if n >= 5 {
			io.WriteString(w, "arrived")
			return
		}
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})
	mux.HandleFunc("/missing", http.NotFound)
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()

	// The test server is on loopback: this fetcher exempts exactly it.
	serverAddr := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "https://"))
	f := New(Options{
		Allow:    []netip.Prefix{netip.PrefixFrom(serverAddr.Addr(), 32)},
		TLS:      srv.Client().Transport.(*http.Transport).TLSClientConfig,
		MaxBytes: 100,
		LookupIP: stubResolver(map[string]string{"internal.example": "10.9.9.9", "public.example": "93.184.215.14"}),
	})
	// A POST follows no redirect: it would resend its body elsewhere.
	if resp, err := f.Post(context.Background(), srv.URL+"/to-metadata", []byte("{}"), nil); err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("post to a redirect: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if err := f.Check(context.Background(), srv.URL+"/file.wav"); err != nil {
		t.Fatalf("check of an allowed URL: %v", err)
	}
	body, err := f.Open(context.Background(), srv.URL+"/file.wav")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(body)
	body.Close()
	if string(data) != "RIFF....WAVE" || hits.Load() != 1 {
		t.Fatalf("download: %q", data)
	}
	for name, path := range map[string]string{
		"redirect to metadata":       "/to-metadata",
		"redirect to a private name": "/to-private-name",
		"redirect to http":           "/to-http",
		"more than 3 redirects":      "/hop/",
		"error status":               "/missing",
	} {
		if _, err := f.Open(context.Background(), srv.URL+path); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := f.Open(context.Background(), srv.URL+"/big.wav"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the size limit: %v", err)
	}
	// Three redirects are fine.
	if body, err := f.Open(context.Background(), srv.URL+"/hop/xx"); err != nil {
		t.Errorf("3 redirects: %v", err)
	} else {
		body.Close()
	}
	// Without the exemption, the same server is refused: it is loopback.
	strict := New(Options{TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig})
	if _, err := strict.Open(context.Background(), srv.URL+"/file.wav"); !errors.Is(err, ErrRefused) {
		t.Fatalf("loopback server reached: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatal("a refused download reached the server")
	}
}
