package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/earshot/earshot/api/oauth"
)

// consoleForm posts a form to the console with the cookies given.
func (e *testEnv) consoleForm(path string, form url.Values, cookies ...*http.Cookie) response {
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for _, c := range cookies {
		h.Add("Cookie", c.String())
	}
	return e.do("POST", path, strings.NewReader(form.Encode()), h)
}

// signInCookie is the sign-in form's CSRF cookie, from a fresh form.
func (e *testEnv) signInCookie(t *testing.T) *http.Cookie {
	t.Helper()
	r := e.do("GET", "/console/sign-in", nil, nil)
	for _, c := range r.Result().Cookies() {
		if c.Name == "earshot_sign_in" {
			return c
		}
	}
	t.Fatalf("no sign-in cookie: %v", r.Header())
	return nil
}

// Sign-in: the form's cookie and token must match; a wrong password is
// one answer whatever was wrong; the fifth failure in a row locks the
// user out, right password or not; a session cookie is Secure, HttpOnly
// and SameSite=Strict; the pages forbid framing.
func TestConsoleSignIn(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	hash, _ := oauth.HashSecret("correct horse battery")
	if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
		t.Fatal(err)
	}
	attempt := func(org, user, password string) response {
		c := e.signInCookie(t)
		return e.consoleForm("/console/sign-in", url.Values{"csrf": {c.Value}, "organization": {org}, "username": {user}, "password": {password}}, c)
	}

	// Without the form's cookie, or with another token: refused.
	c := e.signInCookie(t)
	if r := e.consoleForm("/console/sign-in", url.Values{"csrf": {c.Value}, "organization": {"acme"}, "username": {"ann"}, "password": {"correct horse battery"}}); r.Code != 403 {
		t.Errorf("no cookie: %d", r.Code)
	}
	if r := e.consoleForm("/console/sign-in", url.Values{"csrf": {"forged"}, "organization": {"acme"}, "username": {"ann"}, "password": {"x"}}, c); r.Code != 403 {
		t.Errorf("another token: %d", r.Code)
	}
	// Unknown organization, unknown user, wrong password, a user without a
	// password: one answer.
	for _, try := range [][3]string{{"nope", "ann", "x"}, {"acme", "nobody", "x"}, {"acme", "raj", "x"}, {"acme", "ann", "wrong"}} {
		if r := attempt(try[0], try[1], try[2]); r.Code != 401 || !strings.Contains(r.Body.String(), "is not right") {
			t.Errorf("%v: %d %s", try, r.Code, r.Body)
		}
	}
	r := attempt("ACME", "Ann", "correct horse battery")
	var session *http.Cookie
	for _, ck := range r.Result().Cookies() {
		if ck.Name == "earshot_session" {
			session = ck
		}
	}
	if r.Code != http.StatusSeeOther || session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Fatalf("sign-in: %d %+v", r.Code, session)
	}
	if h := r.Header(); h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("headers %v", h)
	}
	// A change with the session but without its token, or from another
	// site: refused.
	if r := e.consoleForm("/console/sign-out", url.Values{}, session); r.Code != 403 {
		t.Errorf("sign-out without the token: %d", r.Code)
	}

	// Five failures in a row (the sign-in above cleared the earlier one)
	// lock ann out: then even the right password is refused.
	for range 4 {
		attempt("acme", "ann", "wrong")
	}
	if r := attempt("acme", "ann", "wrong"); r.Code != http.StatusTooManyRequests {
		t.Fatalf("the fifth failure: %d %s", r.Code, r.Body)
	}
	if r := attempt("acme", "ann", "correct horse battery"); r.Code != http.StatusTooManyRequests || !strings.Contains(r.Body.String(), "locked") {
		t.Fatalf("locked out: %d %s", r.Code, r.Body)
	}
	// A new password (an administrator's) lifts the lockout and ends the
	// sessions.
	if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/console/conversations", nil, http.Header{"Cookie": {session.String()}}); r.Code != http.StatusSeeOther {
		t.Errorf("an ended session: %d", r.Code)
	}
	if r := attempt("acme", "ann", "correct horse battery"); r.Code != http.StatusSeeOther {
		t.Errorf("after the new password: %d %s", r.Code, r.Body)
	}
}
