package api

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestPathsAreCaseInsensitiveWithOptionalSlash(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	for _, path := range []string{"/Me", "/me", "/ME/", "/mE?Foo=1"} {
		if r := e.do("GET", path, nil, bearer(tok)); r.Code != 200 {
			t.Errorf("GET %s: %d", path, r.Code)
		}
	}
	for _, path := range []string{"/.well-known/JWKS.json", "/.Well-Known/openid-configuration/", "/HEALTHZ", "/Swagger/V1/Swagger.json"} {
		if r := e.do("GET", path, nil, nil); r.Code != 200 {
			t.Errorf("GET %s: %d", path, r.Code)
		}
	}
}

func TestQueryNamesAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.ReleaseMode)
	eng := gin.New()
	eng.GET("/Echo", func(c *gin.Context) {
		v, _ := query(c, "pageSize")
		c.String(200, v)
	})
	h := canonicalize(eng)
	for _, target := range []string{"/echo?PageSize=10", "/Echo/?pagesize=10", "/ECHO?PAGESIZE=10"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 200 || rec.Body.String() != "10" {
			t.Errorf("%s: %d %q", target, rec.Code, rec.Body)
		}
	}
}

func TestUnknownRouteAndMethodGetProblems(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do("GET", "/NoSuchThing", nil, http.Header{"X-Request-Id": {"req-123"}})
	if r.Code != 404 || r.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("404: %d %s", r.Code, r.Header().Get("Content-Type"))
	}
	body := r.json(t)
	if body["traceId"] != "req-123" || r.Header().Get("X-Request-Id") != "req-123" {
		t.Fatalf("request id not echoed: %v / %s", body, r.Header().Get("X-Request-Id"))
	}
	golden(t, "not_found", r.Body.Bytes())

	r = e.do("GET", "/connect/token", nil, nil)
	if r.Code != 405 || r.Header().Get("Allow") != "POST" || r.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("405: %d allow=%q ct=%q", r.Code, r.Header().Get("Allow"), r.Header().Get("Content-Type"))
	}
	golden(t, "method_not_allowed", r.Body.Bytes())
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do("GET", "/healthz", nil, nil)
	generated := r.Header().Get("X-Request-Id")
	if len(generated) != 36 {
		t.Fatalf("generated id %q", generated)
	}
	for _, bad := range []string{strings.Repeat("x", 129), "has space", "quote\"", "tab\t"} {
		r := e.do("GET", "/nowhere", nil, http.Header{"X-Request-Id": {bad}})
		if got := r.Header().Get("X-Request-Id"); got == bad || len(got) != 36 || r.json(t)["traceId"] != got {
			t.Errorf("bad id %q echoed as %q", bad, got)
		}
	}
}

func TestRateLimitPerClient(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{RatePerSec: 0.5, RateBurst: 2})
	tok := e.token(t)
	for i := range 2 {
		if r := e.do("GET", "/Me", nil, bearer(tok)); r.Code != 200 {
			t.Fatalf("request %d within burst: %d", i, r.Code)
		}
	}
	r := e.do("GET", "/Me", nil, bearer(tok))
	if r.Code != 429 || r.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("over the limit: %d", r.Code)
	}
	if secs, err := strconv.Atoi(r.Header().Get("Retry-After")); err != nil || secs < 1 || secs > 2 {
		t.Fatalf("Retry-After %q", r.Header().Get("Retry-After"))
	}
	// Another client has its own bucket.
	other, _ := e.tokens.IssueForClient(e.client, "acxapi")
	if r := e.do("GET", "/Me", nil, bearer(other)); r.Code != 200 {
		t.Fatalf("other client limited too: %d", r.Code)
	}
	// Probes are never limited.
	for range 5 {
		if r := e.do("GET", "/healthz", nil, nil); r.Code != 200 {
			t.Fatalf("healthz limited: %d", r.Code)
		}
	}
}

func TestPanicBecomesProblem(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	e.srv.engine.GET("/boom", func(*gin.Context) { panic("kaboom") })
	r := e.do("GET", "/boom", nil, nil)
	if r.Code != 500 || r.json(t)["status"] != float64(500) || strings.Contains(r.Body.String(), "kaboom") {
		t.Fatalf("panic: %d %s", r.Code, r.Body)
	}
	if r := e.do("GET", "/healthz", nil, nil); r.Code != 200 {
		t.Fatal("server stopped serving after a panic")
	}
}

func TestForwardedForIsIgnoredWithoutTrustedProxies(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{RatePerSec: 0.1, RateBurst: 1})
	// Each request claims another client address; the limit must still apply.
	codes := []int{}
	for i := range 3 {
		r := e.do("POST", "/connect/token", strings.NewReader("grant_type=client_credentials"),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Forwarded-For": {"203.0.113." + strconv.Itoa(i)}})
		codes = append(codes, r.Code)
	}
	if codes[1] != 429 || codes[2] != 429 {
		t.Fatalf("spoofed X-Forwarded-For escaped the limit: %v", codes)
	}
}
