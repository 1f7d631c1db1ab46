package api

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/earshot/earshot/api/oauth"
)

func TestBearerAccepted(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok, err := e.tokens.IssueForClient(e.client, oauth.Scope)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/Me", nil, bearer(tok))
	if r.Code != 200 {
		t.Fatalf("status %d: %s", r.Code, r.Body)
	}
	body := r.json(t)
	if body["organizationId"] != e.org.ID || body["clientId"] != e.clientID || body["organizationName"] != "acme" {
		t.Fatalf("body = %v", body)
	}
	golden(t, "me", r.Body.Bytes())
}

func TestBearerRejected(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	key := sharedKeys.Signing()
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	claims := func(exp time.Duration) *oauth.Claims {
		now := time.Now()
		return &oauth.Claims{Org: e.org.ID, Scope: "acxapi", RegisteredClaims: jwt.RegisteredClaims{
			Issuer: testPublicURL, Subject: e.clientID, IssuedAt: jwt.NewNumericDate(now.Add(-2 * time.Hour)),
			ExpiresAt: jwt.NewNumericDate(now.Add(exp)),
		}}
	}
	sign := func(m jwt.SigningMethod, k any, c jwt.Claims) string {
		tok := jwt.NewWithClaims(m, c)
		tok.Header["kid"] = key.ID
		s, err := tok.SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	headers := map[string]http.Header{
		"missing":         {},
		"empty":           {"Authorization": {""}},
		"basic scheme":    {"Authorization": {"Basic Zm9vOmJhcg=="}},
		"no token":        {"Authorization": {"Bearer"}},
		"garbage":         {"Authorization": {"Bearer !!!"}},
		"not a jwt":       {"Authorization": {"Bearer abc.def.ghi"}},
		"expired":         bearer(sign(jwt.SigningMethodRS256, key.Private, claims(-time.Minute))),
		"other key":       bearer(sign(jwt.SigningMethodRS256, other, claims(time.Hour))),
		"alg none":        bearer(sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(time.Hour))),
		"header injected": {"Authorization": {"Bearer x\r\nX-Evil: 1"}},
	}
	var first string
	for name, h := range headers {
		h.Set("X-Request-Id", "fixed-id")
		r := e.do("GET", "/Me", nil, h)
		if r.Code != 401 {
			t.Errorf("%s: status %d", name, r.Code)
			continue
		}
		if got := r.Header().Get("WWW-Authenticate"); got != `Bearer error="invalid_token"` {
			t.Errorf("%s: WWW-Authenticate %q", name, got)
		}
		if ct := r.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", name, ct)
		}
		if first == "" {
			first = r.Body.String()
			golden(t, "unauthorized", r.Body.Bytes())
		} else if r.Body.String() != first {
			t.Errorf("%s: body differs from the other 401s (leaks which part was wrong): %s", name, r.Body)
		}
	}
}

func TestBearerWithoutScopeIsForbidden(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok, err := e.tokens.IssueForOperator(e.org.ID, "reports")
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/Me", nil, bearer(tok))
	if r.Code != 403 || r.json(t)["status"] != float64(403) {
		t.Fatalf("status %d: %s", r.Code, r.Body)
	}
}

// A well-signed token of an organization the catalog does not have (gone,
// or another installation's with the same keys) is a 401, not a 500.
func TestTokenOfUnknownOrganization(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok, err := e.tokens.IssueForOperator("01a209e0-0000-7000-8000-000000000000", oauth.Scope)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/Me", nil, bearer(tok))
	if r.Code != 401 || r.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("status %d: %s", r.Code, r.Body)
	}
}
