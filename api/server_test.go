package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testPublicURL = "http://earshot.test"

var (
	keysOnce   sync.Once
	sharedKeys *oauth.KeySet
)

// testEnv is a server on the real parts: a DuckDB catalog file and a local
// bucket in a temporary directory.
type testEnv struct {
	srv          *Server
	cat          *catalog.Catalog
	tokens       *oauth.Tokens
	org          catalog.Organization
	clientID     string
	clientSecret string
	storage      *flakyPinger
}

type flakyPinger struct {
	blob.Bucket
	fail bool
}

func (f *flakyPinger) Ping(ctx context.Context) error {
	if f.fail {
		return errors.New("bucket unreachable")
	}
	return f.Bucket.Ping(ctx)
}

func newTestEnv(t *testing.T, opts Options) *testEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cat, err := catalog.Open(ctx, filepath.Join(dir, "catalog.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	bucket, err := blob.OpenLocal(filepath.Join(dir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	keysOnce.Do(func() {
		kdir, _ := os.MkdirTemp("", "earshot-api-keys")
		sharedKeys, err = oauth.LoadOrCreateKeys(kdir)
	})
	if err != nil {
		t.Fatal(err)
	}
	org, err := cat.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	secret := oauth.NewClientSecret()
	hash, _ := oauth.HashSecret(secret)
	client, err := cat.CreateClient(ctx, catalog.APIClient{ID: oauth.NewClientID(), OrgID: org.ID, Name: "test", SecretHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	tokens := oauth.NewTokens(sharedKeys, testPublicURL, time.Hour)
	storage := &flakyPinger{Bucket: bucket}
	opts.PublicURL = testPublicURL
	srv, err := New(Deps{
		Catalog: cat, Storage: storage, Keys: sharedKeys, Tokens: tokens,
		Registry: prometheus.NewRegistry(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{srv: srv, cat: cat, tokens: tokens, org: org, clientID: client.ID, clientSecret: secret, storage: storage}
}

type response struct {
	*httptest.ResponseRecorder
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body.Bytes(), &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body.String())
	}
	return m
}

func (e *testEnv) do(method, target string, body io.Reader, header http.Header) response {
	req := httptest.NewRequest(method, target, body)
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return response{rec}
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func (e *testEnv) token(t *testing.T) string {
	t.Helper()
	tok, err := e.tokens.Issue(e.clientID, e.org.ID, oauth.Scope)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// golden compares got (JSON) with testdata/golden/NAME.json after masking
// the values that change from run to run.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%s: not JSON: %s", name, got)
	}
	var pretty bytes.Buffer
	enc := json.NewEncoder(&pretty)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	masked := maskVolatile(bytes.TrimSpace(pretty.Bytes()))
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, append(masked, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./api -update to create it)", name, err)
	}
	if string(bytes.TrimSpace(want)) != string(bytes.TrimSpace(masked)) {
		t.Errorf("%s differs from its golden file:\n got: %s\nwant: %s", name, masked, want)
	}
}

var volatile = []*regexp.Regexp{
	regexp.MustCompile(`("(?:traceId|access_token|kid|n|clientId|organizationId)": )"[^"]*"`),
	regexp.MustCompile(`("organizationCreatedOn": )"[^"]*"`),
}

func maskVolatile(b []byte) []byte {
	for _, re := range volatile {
		b = re.ReplaceAll(b, []byte(`$1"<volatile>"`))
	}
	return b
}

func formBody(v url.Values) (io.Reader, http.Header) {
	return strings.NewReader(v.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
}
