package cli

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
)

// A PostgreSQL catalog that stops, for real: while it is down, operations
// answer 503 with Retry-After and a sentence that says so, the token
// endpoint 503 temporarily_unavailable, /readyz 503; once it is back, the
// same process serves again without a restart.
func TestCatalogOutageIsA503(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process on a real PostgreSQL")
	}
	t.Parallel()
	cluster := pgtest.Start(t)
	p := startPeer(t, "A", []string{"--catalog", cluster.URL(), "--bucket", "file://" + filepath.Join(t.TempDir(), "bucket")})
	if got := p.get(p.bearer, "/Metadata"); got.code != http.StatusOK {
		t.Fatalf("before the outage: %d %s", got.code, got.body)
	}
	if err := cluster.StopServer(); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+p.addr+"/Metadata", nil)
	req.Header.Set("Authorization", p.bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" {
		t.Errorf("GET /Metadata with the catalog down: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if got := p.get(p.bearer, "/Metadata"); !strings.Contains(got.body, "cannot reach its catalog database") {
		t.Errorf("the 503's detail: %s", got.body)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {peerClientID}, "client_secret": {peerSecret}}
	tok, err := http.PostForm("http://"+p.addr+"/connect/token", form)
	if err != nil {
		t.Fatal(err)
	}
	tok.Body.Close()
	if tok.StatusCode != http.StatusServiceUnavailable || tok.Header.Get("Retry-After") == "" {
		t.Errorf("POST /connect/token with the catalog down: %d, Retry-After %q", tok.StatusCode, tok.Header.Get("Retry-After"))
	}
	if got := p.get("", "/readyz"); got.code != http.StatusServiceUnavailable || !strings.Contains(got.body, `"catalog":"unavailable"`) {
		t.Errorf("/readyz with the catalog down: %d %s", got.code, got.body)
	}

	if err := cluster.StartServer(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for got := p.get(p.bearer, "/Metadata"); got.code != http.StatusOK; got = p.get(p.bearer, "/Metadata") {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the catalog came back: %d %s", got.code, got.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
