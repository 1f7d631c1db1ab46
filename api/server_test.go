package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
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

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis/registry"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/earshot/earshot/api/console"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
	"github.com/earshot/earshot/warehouse/results"
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
	t            testing.TB
	srv          *Server
	cat          *catalog.Catalog
	sql          *sql.DB // the catalog file, opened directly
	reader       *results.Reader
	lake         *lakedb.DB
	bucket       *blob.Local
	tokens       *oauth.Tokens
	org          catalog.Organization
	client       catalog.APIClient
	clientID     string
	clientSecret string
	storage      *flakyPinger
	jobs         *jobs.Runner
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

func newTestEnv(t testing.TB, opts Options, mods ...func(*Deps)) *testEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cat, err := catalog.Open(ctx, filepath.Join(dir, testlake.CatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	bucket, err := blob.OpenLocal(filepath.Join(dir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	engine := testlake.Engine(t, filepath.Join(dir, "bucket"))
	reader := &results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine, Figures: cat.Manifest}
	keysOnce.Do(func() {
		var key oauth.Key
		if key, _, err = oauth.GenerateKey(); err == nil {
			sharedKeys, err = oauth.NewKeySet([]oauth.Key{key})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	org, err := cat.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	secret := oauth.NewClientSecret()
	hash, _ := oauth.HashSecret(secret)
	client, err := cat.Orgs.CreateClient(ctx, catalog.APIClient{ID: oauth.NewClientID(), OrgID: org.ID, Name: "test", SecretHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	tokens := oauth.NewTokens(sharedKeys, testPublicURL, time.Hour)
	storage := &flakyPinger{Bucket: bucket}
	opts.PublicURL = testPublicURL
	if opts.MaxUploadBytes == 0 {
		opts.MaxUploadBytes = 1 << 30
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := jobs.NewRunner(cat.Jobs, "api-test", logger, nil)
	evaluations := pipeline.NewSlots(1, 2)
	runner.Register("reclassify", &jobs.Reclassify{Classifiers: cat.Classifiers, Hierarchy: cat.People, Interactions: cat.Interactions, Manifest: cat.Manifest, Transcripts: reader, Lake: &lake.Writer{Bucket: bucket}, Compiler: registry.Compiler{}, Log: logger, Slots: evaluations})
	runner.Register("train", &jobs.Train{Source: pipeline.TrainingSource{Records: cat.Interactions, Transcripts: reader, Reviews: cat.Reviews, Classifiers: cat.Classifiers}, Classifiers: cat.Classifiers, Progress: cat.Jobs, Log: logger, Slots: evaluations})
	deps := Deps{
		Catalog: cat, Orgs: cat.Orgs, People: cat.People, Interactions: cat.Interactions, Classifiers: cat.Classifiers, JobRuns: cat.Jobs, Reviews: cat.Reviews, Quality: cat.Evaluations, Workflows: cat.Workflows, Emissions: cat.Emissions,
		Console: &console.Console{People: cat.People, Organizations: cat.Orgs, Conversations: cat.Interactions, Transcripts: reader,
			Figures: reader, Searches: reader, Classifiers: cat.Classifiers, Hierarchies: cat.People, Originals: bucket, Log: logger},
		Results: reader, Storage: storage, Keys: sharedKeys, Tokens: tokens, SignedURLs: signedurl.New(signedurl.Options{}),
		Registry: prometheus.NewRegistry(), Logger: logger, Compiler: registry.Compiler{}, Jobs: runner, Evaluations: evaluations,
	}
	for _, mod := range mods {
		mod(&deps)
	}
	srv, err := New(deps, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.guard.Pause = 0 // TestFailedAttemptsPause holds the pause
	return &testEnv{t: t, srv: srv, cat: cat, sql: testlake.CatalogSQL(t, filepath.Join(dir, testlake.CatalogFile)), reader: reader, lake: engine, bucket: bucket, tokens: tokens, org: org, client: client, clientID: client.ID, clientSecret: secret, storage: storage, jobs: runner}
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
	if err := checkAgainstDocument(req, rec); err != nil {
		e.t.Errorf("%v\nbody: %s", err, rec.Body)
	}
	return response{rec}
}

var (
	docOnce   sync.Once
	docRouter routers.Router
	docErr    error
)

// checkAgainstDocument validates every response of a documented operation
// against the OpenAPI document: its status must be documented and its body
// must match the schema. Every test request so keeps the document true.
func checkAgainstDocument(req *http.Request, rec *httptest.ResponseRecorder) error {
	docOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(openAPIJSON())
		if err != nil {
			docErr = err
			return
		}
		docRouter, docErr = legacy.NewRouter(doc)
	})
	if docErr != nil {
		return fmt.Errorf("OpenAPI document: %w", docErr)
	}
	// The canonicalizer has rewritten req.URL.Path to the document's casing.
	route, params, err := docRouter.FindRoute(req)
	if err != nil {
		return nil // not a documented operation (unknown route, wrong method, test-only route)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s → %d does not match the OpenAPI document: %w", req.Method, req.URL.Path, rec.Code, err)
	}
	return nil
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func (e *testEnv) token(t testing.TB) string {
	t.Helper()
	tok, err := e.tokens.IssueForOperator(e.org.ID, oauth.Scope)
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

var (
	volatileValue = regexp.MustCompile(`("(?:traceId|access_token|kid|n|clientId|createdOn|modifiedOn|lastLogin|organizationCreatedOn|arrivedOn|eventTime)": )"[^"]*"`)
	stagingDate   = regexp.MustCompile(`/\d{4}/\d{2}/\d{2}/`)
	uuidPattern   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// maskVolatile replaces what changes from run to run: tokens, timestamps of
// creation, and ids — each distinct id by a stable label (<id1>, <id2>, …
// in order of appearance), so that relations such as parentId stay visible.
func maskVolatile(b []byte) []byte {
	b = volatileValue.ReplaceAll(b, []byte(`$1"<volatile>"`))
	b = stagingDate.ReplaceAll(b, []byte(`/<yyyy>/<mm>/<dd>/`))
	labels := map[string]string{}
	return uuidPattern.ReplaceAllFunc(b, func(id []byte) []byte {
		l, ok := labels[string(id)]
		if !ok {
			l = fmt.Sprintf("<id%d>", len(labels)+1)
			labels[string(id)] = l
		}
		return []byte(l)
	})
}

func formBody(v url.Values) (io.Reader, http.Header) {
	return strings.NewReader(v.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
}
