package api

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

func TestTokenGrant(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	check := func(t *testing.T, r response) {
		t.Helper()
		if r.Code != http.StatusOK {
			t.Fatalf("status %d: %s", r.Code, r.Body)
		}
		body := r.json(t)
		if body["token_type"] != "Bearer" || body["expires_in"] != float64(3600) || body["scope"] != "acxapi" {
			t.Fatalf("body = %v", body)
		}
		if r.Header().Get("Cache-Control") != "no-store" {
			t.Error("token response is cacheable")
		}
		claims, err := e.tokens.Verify(body["access_token"].(string))
		if err != nil || claims.Subject != e.clientID || claims.Org != e.org.ID || claims.ID == "" {
			t.Fatalf("issued token: %+v, %v", claims, err)
		}
	}
	t.Run("client_secret_post", func(t *testing.T) {
		body, h := formBody(url.Values{"grant_type": {"client_credentials"}, "client_id": {e.clientID}, "client_secret": {e.clientSecret}})
		check(t, e.do("POST", "/connect/token", body, h))
	})
	t.Run("client_secret_basic, explicit scope, odd path casing", func(t *testing.T) {
		body, h := formBody(url.Values{"grant_type": {"client_credentials"}, "scope": {"acxapi"}})
		req := http.Header{"Content-Type": h["Content-Type"]}
		r0, _ := http.NewRequest("POST", "/", nil)
		r0.SetBasicAuth(e.clientID, e.clientSecret)
		req.Set("Authorization", r0.Header.Get("Authorization"))
		r := e.do("POST", "/Connect/Token/", body, req)
		check(t, r)
		golden(t, "token_ok", r.Body.Bytes())
	})
}

func TestTokenErrors(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	ctx := context.Background()
	good := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.clientID}, "client_secret": {e.clientSecret}}
	with := func(k, v string) url.Values {
		out := url.Values{}
		for key, vals := range good {
			out[key] = append([]string(nil), vals...)
		}
		if v == "<delete>" {
			out.Del(k)
		} else {
			out.Set(k, v)
		}
		return out
	}
	cases := []struct {
		name        string
		form        url.Values
		contentType string
		basic       bool
		status      int
		code        string
	}{
		{"wrong secret", with("client_secret", "nope"), "", false, 401, "invalid_client"},
		{"unknown client", with("client_id", "no-such-client"), "", false, 401, "invalid_client"},
		{"no credentials", with("client_id", "<delete>"), "", false, 401, "invalid_client"},
		{"missing grant", with("grant_type", "<delete>"), "", false, 400, "invalid_request"},
		{"password grant", with("grant_type", "password"), "", false, 400, "unsupported_grant_type"},
		{"other scope", with("scope", "admin"), "", false, 400, "invalid_scope"},
		{"extra scope", with("scope", "acxapi admin"), "", false, 400, "invalid_scope"},
		{"json body", good, "application/json", false, 400, "invalid_request"},
		{"repeated grant", url.Values{"grant_type": {"client_credentials", "client_credentials"}}, "", false, 400, "invalid_request"},
		{"basic and a secret in the body", good, "", true, 400, "invalid_request"},
		{"basic and its client_id in the body", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.clientID}}, "", true, 200, ""},
		{"basic and another client_id in the body", url.Values{"grant_type": {"client_credentials"}, "client_id": {"someone-else"}}, "", true, 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, h := formBody(c.form)
			if c.contentType != "" {
				h.Set("Content-Type", c.contentType)
			}
			if c.basic {
				r0, _ := http.NewRequest("POST", "/", nil)
				r0.SetBasicAuth(e.clientID, e.clientSecret)
				h.Set("Authorization", r0.Header.Get("Authorization"))
			}
			r := e.do("POST", "/connect/token", body, h)
			got := r.json(t)
			if c.status == 200 && (r.Code != 200 || got["access_token"] == nil) || c.status != 200 && (r.Code != c.status || got["error"] != c.code) {
				t.Fatalf("got %d %s, want %d %s", r.Code, r.Body, c.status, c.code)
			}
		})
	}

	// Unknown client, wrong secret and disabled client are indistinguishable.
	bodies := map[string]string{}
	for name, form := range map[string]url.Values{
		"wrong secret":   with("client_secret", "nope"),
		"unknown client": with("client_id", "no-such-client"),
	} {
		body, h := formBody(form)
		bodies[name] = e.do("POST", "/connect/token", body, h).Body.String()
	}
	if err := e.cat.Orgs.SetClientDisabled(ctx, e.clientID, true); err != nil {
		t.Fatal(err)
	}
	body, h := formBody(good)
	r := e.do("POST", "/connect/token", body, h)
	if r.Code != 401 {
		t.Fatalf("disabled client got %d", r.Code)
	}
	bodies["disabled"] = r.Body.String()
	if bodies["disabled"] != bodies["wrong secret"] || bodies["wrong secret"] != bodies["unknown client"] {
		t.Fatalf("invalid_client bodies differ, leaking which part was wrong: %v", bodies)
	}
	golden(t, "token_invalid_client", r.Body.Bytes())

	// Basic auth failures say how to authenticate.
	r0, _ := http.NewRequest("POST", "/", nil)
	r0.SetBasicAuth(e.clientID, "wrong")
	body, h = formBody(url.Values{"grant_type": {"client_credentials"}})
	h.Set("Authorization", r0.Header.Get("Authorization"))
	if r := e.do("POST", "/connect/token", body, h); r.Code != 401 || r.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("basic failure: %d, WWW-Authenticate %q", r.Code, r.Header().Get("WWW-Authenticate"))
	}
}
