package console

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func cookieOf(f ssoFlight) string {
	raw, _ := json.Marshal(f)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// The callback's flight cookie: only a whole flight whose state the
// provider sent back is accepted.
func TestFlightOf(t *testing.T) {
	whole := ssoFlight{State: "s", Nonce: "n", Verifier: "v", Organization: "acme"}
	noNonce := whole
	noNonce.Nonce = ""
	for _, tc := range []struct {
		name, cookie, state string
		ok                  bool
	}{
		{"the state sent back", cookieOf(whole), "s", true},
		{"another state", cookieOf(whole), "t", false},
		{"no state sent back", cookieOf(whole), "", false},
		{"no nonce", cookieOf(noNonce), "s", false},
		{"no cookie", "", "", false},
		{"not base64", "%%%", "s", false},
		{"not JSON", base64.RawURLEncoding.EncodeToString([]byte("{")), "s", false},
	} {
		if _, ok := flightOf(tc.cookie, tc.state); ok != tc.ok {
			t.Errorf("%s: accepted %v, want %v", tc.name, ok, tc.ok)
		}
	}
}

// Any cookie a browser may send: no panic, and nothing accepted without
// the state it holds.
func FuzzFlightOf(f *testing.F) {
	f.Add(cookieOf(ssoFlight{State: "s", Nonce: "n", Verifier: "v", Organization: "acme"}), "s")
	f.Add("e30", "")
	f.Fuzz(func(t *testing.T, cookie, state string) {
		got, ok := flightOf(cookie, state)
		if ok && (got.State != state || state == "") {
			t.Fatalf("accepted the state %q for a flight of %q", state, got.State)
		}
	})
}

// A provider set up wrongly is refused before the server starts.
func TestNewSSORefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		cfg  SSOConfig
		want string
	}{
		{SSOConfig{Issuer: "http://127.0.0.1:1", ClientID: "c", ClientSecret: "s", Claim: "sub"}, "is not email or preferred_username"},
		{SSOConfig{Issuer: "http://127.0.0.1:1", ClientID: "c"}, "a client id and a client secret"},
		{SSOConfig{Issuer: "http://127.0.0.1:1", ClientID: "c", ClientSecret: "s"}, "the identity provider http://127.0.0.1:1"},
	} {
		if _, err := NewSSO(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
