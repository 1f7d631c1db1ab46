package api

import (
	"strings"
	"testing"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	if r := e.do("GET", "/healthz", nil, nil); r.Code != 200 || r.json(t)["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.Code, r.Body)
	}
	r := e.do("GET", "/readyz", nil, nil)
	if r.Code != 200 {
		t.Fatalf("readyz: %d %s", r.Code, r.Body)
	}
	golden(t, "readyz_ok", r.Body.Bytes())

	e.storage.fail = true
	r = e.do("GET", "/readyz", nil, nil)
	if r.Code != 503 {
		t.Fatalf("readyz with storage down: %d %s", r.Code, r.Body)
	}
	golden(t, "readyz_storage_down", r.Body.Bytes())

	e.storage.fail = false
	e.cat.Close()
	if r := e.do("GET", "/readyz", nil, nil); r.Code != 503 {
		t.Fatalf("readyz with the catalog closed: %d %s", r.Code, r.Body)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	e.do("GET", "/Me", nil, bearer(e.token(t)))
	e.do("GET", "/no/such/route/123", nil, nil)
	r := e.do("GET", "/metrics", nil, nil)
	body := r.Body.String()
	for _, want := range []string{
		`earshot_http_requests_total{method="GET",route="/Me",status="200"} 1`,
		`earshot_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`earshot_http_request_duration_seconds_bucket{method="GET",route="/Me",status="200",le="+Inf"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestDiscovery(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do("GET", "/.well-known/openid-configuration", nil, nil)
	golden(t, "openid_configuration", r.Body.Bytes())
	r = e.do("GET", "/.well-known/jwks.json", nil, nil)
	keys := r.json(t)["keys"].([]any)
	if len(keys) != 1 || keys[0].(map[string]any)["kid"] != sharedKeys.Signing().ID {
		t.Fatalf("jwks = %s", r.Body)
	}
	golden(t, "jwks", r.Body.Bytes())
}
