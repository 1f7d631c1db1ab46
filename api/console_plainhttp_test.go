package api

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/browsertest"
)

// A plain-HTTP installation reached by a name other than localhost: with
// a public URL of http the console's cookies are not Secure and a browser
// signs in; with a public URL of https the browser drops them, and the
// sign-in page says why and what to do instead of a form that expired.
func TestConsoleSignInOverPlainHTTP(t *testing.T) {
	t.Parallel()
	const host = "earshot.example"
	ctx := browsertest.Browser(t, browsertest.Resolve(host))
	signInAt := func(publicURL string) string {
		e := newTestEnv(t, Options{}, func(d *Deps) { d.Console.PublicURL = publicURL })
		f := buildOrg(t, e, e.token(t), "")
		hash, _ := oauth.HashSecret("correct horse battery")
		if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
			t.Fatal(err)
		}
		server := httptest.NewServer(e.srv)
		t.Cleanup(server.Close)
		u, _ := url.Parse(server.URL)
		return browsertest.TextAfter(t, ctx, "main", chromedp.Navigate("http://"+host+":"+u.Port()+"/console"), chromedp.WaitVisible("#password"),
			chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", "ann"), chromedp.SetValue("#password", "correct horse battery"),
			chromedp.Submit("#password"), chromedp.WaitVisible("main h1 + *"))
	}
	if text := signInAt("http://" + host); !strings.Contains(text, "Conversations") || strings.Contains(text, "Sign in") {
		t.Errorf("signing in over plain HTTP with an http public URL: %q", text)
	} else {
		browsertest.Shoot(t, ctx, "screenshots", "plain-http")
	}
	if text := signInAt("https://" + host); !strings.Contains(text, "did not keep the sign-in cookie") || !strings.Contains(text, "--public-url http://") {
		t.Errorf("signing in over plain HTTP with an https public URL: %q", text)
	} else {
		browsertest.Shoot(t, ctx, "screenshots", "sign-in-dropped-cookie")
	}
}
