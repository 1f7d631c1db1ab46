package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/secretguard"
)

// tokenFrom asks for a token from an address.
func (e *testEnv) tokenFrom(addr, clientID, secret string) *httptest.ResponseRecorder {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}}
	req := httptest.NewRequest("POST", "/connect/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = addr + ":40000"
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

func TestWrongSecretsAreLimited(t *testing.T) {
	// Budgets that do not refill while the test runs (a secret check is
	// slow under -race).
	e := newTestEnv(t, Options{SecretGuard: secretguard.NewWith(1.0/3600, secretguard.FailureBurst, 1)})
	// The client authenticates from its own address once: that address is
	// known for it from then on.
	if r := e.tokenFrom("192.0.2.1", e.clientID, e.clientSecret); r.Code != 200 {
		t.Fatalf("first token: %d %s", r.Code, r.Body)
	}

	// An attacker's address fails its budget, then gets 429 with
	// Retry-After, without a secret check, even with the right secret.
	for i := range secretguard.FailureBurst {
		if r := e.tokenFrom("198.51.100.7", e.clientID, "wrong"); r.Code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d %s", i+1, r.Code, r.Body)
		}
	}
	start := time.Now()
	r := e.tokenFrom("198.51.100.7", e.clientID, e.clientSecret)
	if secs, _ := strconv.Atoi(r.Header().Get("Retry-After")); r.Code != http.StatusTooManyRequests || secs < 1 ||
		!strings.Contains(r.Body.String(), "Too many failed authentication attempts") {
		t.Fatalf("over the budget: %d %q %s", r.Code, r.Header().Get("Retry-After"), r.Body)
	}
	if took := time.Since(start); took > 20*time.Millisecond {
		t.Errorf("a refused attempt took %v: it checked the secret", took)
	}

	// The client id's own budget is spent too (the attacker used it): a
	// new address is refused for it, the client's known one is not.
	if r := e.tokenFrom("203.0.113.9", e.clientID, e.clientSecret); r.Code != http.StatusTooManyRequests {
		t.Errorf("a new address for the attacked client: %d %s", r.Code, r.Body)
	}
	if r := e.tokenFrom("192.0.2.1", e.clientID, e.clientSecret); r.Code != 200 {
		t.Errorf("the client's known address: %d %s", r.Code, r.Body)
	}
	// Other clients' ids and other addresses are untouched.
	if r := e.tokenFrom("203.0.113.9", "someone-else", "wrong"); r.Code != http.StatusUnauthorized {
		t.Errorf("another client id from another address: %d %s", r.Code, r.Body)
	}
}

// With every secret-check slot taken, a token request waits, then is told
// to retry: a flood cannot queue work without bound.
func TestSecretChecksAreBounded(t *testing.T) {
	guard := secretguard.NewWith(1, 10, 1)
	guard.Wait = 50 * time.Millisecond
	e := newTestEnv(t, Options{SecretGuard: guard})
	// Another door's check holds the one slot.
	holding, release := make(chan struct{}), make(chan struct{})
	attempt, _ := guard.Admit(t.Context(), "user:acme/ann", "192.0.2.5")
	go attempt.Check(t.Context(), func(context.Context) { close(holding); <-release })
	<-holding
	r := e.tokenFrom("192.0.2.1", e.clientID, e.clientSecret)
	if r.Code != http.StatusTooManyRequests || r.Header().Get("Retry-After") != "1" {
		t.Fatalf("all slots taken: %d %s", r.Code, r.Body)
	}
	close(release)
	if r := e.tokenFrom("192.0.2.1", e.clientID, e.clientSecret); r.Code != 200 {
		t.Fatalf("a slot free: %d %s", r.Code, r.Body)
	}
}

// A failed attempt and a refused one are answered after the pause.
func TestFailedAttemptsPause(t *testing.T) {
	e := newTestEnv(t, Options{SecretGuard: secretguard.NewWith(1.0/3600, 2, 1)}) // the address's budget: two failures
	e.srv.guard.Pause = 200 * time.Millisecond
	timed := func(secret string, want int) {
		t.Helper()
		start := time.Now()
		r := e.tokenFrom("192.0.2.1", e.clientID, secret)
		took := time.Since(start)
		if r.Code != want {
			t.Fatalf("%d %s, want %d", r.Code, r.Body, want)
		}
		if want != 200 && took < e.srv.guard.Pause {
			t.Errorf("status %d answered after %v (pause %v)", r.Code, took, e.srv.guard.Pause)
		}
	}
	timed(e.clientSecret, 200)
	timed("wrong", http.StatusUnauthorized)
	timed("wrong", http.StatusUnauthorized)
	timed("wrong", http.StatusTooManyRequests)
}

// A client's tokens end when it is disabled (and stay ended when it is
// enabled again), when its secret is rotated, and when it is deleted; the
// operator's tokens are not a client's.
func TestClientTokensEndWithTheClient(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	ctx := t.Context()
	token := func() string {
		t.Helper()
		r := e.tokenFrom("192.0.2.1", e.clientID, e.clientSecret)
		if r.Code != 200 {
			t.Fatalf("token: %d %s", r.Code, r.Body)
		}
		var body struct {
			AccessToken string `json:"access_token"`
		}
		json.Unmarshal(r.Body.Bytes(), &body)
		return body.AccessToken
	}
	works := func(tok string) bool { return e.do("GET", "/Me", nil, bearer(tok)).Code == 200 }

	before := token()
	if !works(before) {
		t.Fatal("a fresh token does not work")
	}
	if err := e.cat.Orgs.SetClientDisabled(ctx, e.clientID, true); err != nil {
		t.Fatal(err)
	}
	if works(before) {
		t.Error("a disabled client's token still works")
	}
	if err := e.cat.Orgs.SetClientDisabled(ctx, e.clientID, false); err != nil {
		t.Fatal(err)
	}
	if works(before) {
		t.Error("enabling the client again brought its old token back")
	}

	old := token()
	hash, _ := oauth.HashSecret("a-new-secret-of-enough-length")
	if err := e.cat.Orgs.SetClientSecret(ctx, e.clientID, hash); err != nil {
		t.Fatal(err)
	}
	if works(old) {
		t.Error("a token of the old secret still works")
	}
	e.clientSecret = "a-new-secret-of-enough-length"
	current := token()
	if !works(current) {
		t.Error("a token of the new secret does not work")
	}

	operator, _ := e.tokens.IssueForOperator(e.org.ID, oauth.Scope)
	if err := e.cat.Orgs.DeleteClient(ctx, e.clientID); err != nil {
		t.Fatal(err)
	}
	if works(current) {
		t.Error("a deleted client's token still works")
	}
	if !works(operator) {
		t.Error("the operator's token stopped working")
	}
}
