package api

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/earshot/earshot/api/console"
	"github.com/earshot/earshot/internal/browsertest"
)

// Single sign-on against a local OpenID Connect provider (mockoidc, a real
// server on loopback) in a real browser: a user whose e-mail the provider
// vouches for signs in to their organization; an unknown e-mail, the
// wrong organization and a callback nobody started are refused on the
// sign-in page. (mockoidc leaves out email_verified when false, so the
// refusal of an unverified address is not exercised here.)
func TestConsoleSingleSignOn(t *testing.T) {
	t.Parallel()
	provider, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Shutdown()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://localhost:" + ln.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):] // a secure context
	cfg := provider.Config()
	sso, err := console.NewSSO(context.Background(), console.SSOConfig{Name: "Acme ID", Issuer: cfg.Issuer, ClientID: cfg.ClientID,
		ClientSecret: cfg.ClientSecret, RedirectURL: base + "/console/sso/callback"})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, Options{}, func(d *Deps) { d.Console.SSO = sso })
	buildOrg(t, e, e.token(t), "")
	server := httptest.NewUnstartedServer(e.srv)
	server.Listener.Close()
	server.Listener = ln
	server.Start()
	defer server.Close()

	ctx := browsertest.Browser(t)
	if err := chromedp.Do(ctx); err != nil { // the browser starts with the test's context, not a step's
		t.Fatal(err)
	}
	// signIn starts a sign-in with the provider for an organization and
	// gives the text of the page it ends on.
	signIn := func(org string, user *mockoidc.MockUser, until string) string {
		t.Helper()
		provider.QueueUser(user)
		wait, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(wait, chromedp.Navigate(base+"/console/sign-in"), chromedp.WaitVisible("#sso-organization"),
			chromedp.SetValue("#sso-organization", org), chromedp.Submit("#sso-organization"), chromedp.WaitVisible(until)); err != nil {
			t.Fatalf("single sign-on to %s did not reach %s: %v", org, until, err)
		}
		text, err := chromedp.Run(ctx, chromedp.Text("main"))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	for _, tc := range []struct {
		name, org string
		user      *mockoidc.MockUser
		want      string
	}{
		{"unknown e-mail", "acme", &mockoidc.MockUser{Subject: "s1", Email: "nobody@example.com", EmailVerified: true}, "No active user of acme matches your Acme ID account"},
		{"another organization", "globex", &mockoidc.MockUser{Subject: "s3", Email: "ann@example.com", EmailVerified: true}, "No active user of globex matches"},
	} {
		if got := signIn(tc.org, tc.user, "p.error"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	browsertest.Shoot(t, ctx, "screenshots", "sign-in-sso")
	browsertest.Accessible(t, ctx, "..", "sign-in-sso")

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/sso/callback?code=stolen&state=forged"), chromedp.WaitVisible("p.error")); err != nil {
		t.Fatal(err)
	}
	forged, err := chromedp.Run(ctx, chromedp.Text("p.error"))
	if err != nil || !strings.Contains(forged, "was not started here") {
		t.Errorf("a callback nobody started: %q (%v)", forged, err)
	}

	text := signIn("ACME", &mockoidc.MockUser{Subject: "s4", Email: "Ann@Example.com", EmailVerified: true}, ".who")
	if !strings.Contains(text, "Conversations") {
		t.Fatalf("after single sign-on: %q", text)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(".who"))
	if err != nil || who != "ann · acme" {
		t.Fatalf("signed in as %q (%v)", who, err)
	}
}
