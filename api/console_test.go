package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/secretguard"
	"github.com/earshot/earshot/warehouse/catalog"
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
// one answer whatever was wrong; failures are bounded by the secret guard
// without telling which users exist and without locking a user out of the
// address they sign in from; a session cookie is Secure, HttpOnly and
// SameSite=Strict; the pages forbid framing.
func TestConsoleSignIn(t *testing.T) {
	t.Parallel()
	// Budgets that do not refill while the test runs.
	e := newTestEnv(t, Options{SecretGuard: secretguard.NewWith(1.0/3600, secretguard.FailureBurst, 2)},
		func(d *Deps) { d.Console.PublicURL = "https://earshot.test" })
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	hash, _ := oauth.HashSecret("correct horse battery")
	if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
		t.Fatal(err)
	}
	attemptFrom := func(address, org, user, password string) response {
		c := e.signInCookie(t)
		req := httptest.NewRequest("POST", "/console/sign-in", strings.NewReader(url.Values{"csrf": {c.Value}, "organization": {org}, "username": {user}, "password": {password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", c.String())
		req.RemoteAddr = address + ":40000"
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		return response{rec}
	}
	home := "192.0.2.1" // where ann signs in from
	attempt := func(org, user, password string) response { return attemptFrom(home, org, user, password) }

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

	// A stranger fails ann's password from its own address until its
	// budgets are spent: then even the right password is refused there,
	// and from any address ann has not signed in from; ann at home is not
	// locked out.
	stranger := "198.51.100.7"
	for i := range secretguard.FailureBurst - 1 { // ann's wrong password above, before she signed in, spent one

		if r := attemptFrom(stranger, "acme", "ann", "wrong"); r.Code != http.StatusUnauthorized {
			t.Fatalf("the stranger's attempt %d: %d %s", i+1, r.Code, r.Body)
		}
	}
	refusedAnn := attemptFrom(stranger, "acme", "ann", "correct horse battery")
	if refusedAnn.Code != http.StatusTooManyRequests || !strings.Contains(refusedAnn.Body.String(), "Too many failed sign-ins") {
		t.Fatalf("the stranger past its budget: %d %s", refusedAnn.Code, refusedAnn.Body)
	}
	if r := attemptFrom("203.0.113.9", "acme", "ann", "correct horse battery"); r.Code != http.StatusTooManyRequests {
		t.Errorf("ann's spent account from an address she has not used: %d", r.Code)
	}
	if r := attempt("acme", "ann", "correct horse battery"); r.Code != http.StatusSeeOther {
		t.Fatalf("ann at home, after the stranger: %d %s", r.Code, r.Body)
	}
	// A user name that does not exist is answered the same way, failure
	// for failure: nothing tells it from ann.
	for i := range secretguard.FailureBurst - 1 { // as for ann, one try above
		if r := attemptFrom(fmt.Sprintf("192.0.2.%d", 100+i), "acme", "nobody", "wrong"); r.Code != http.StatusUnauthorized {
			t.Fatalf("unknown user, attempt %d: %d", i+1, r.Code)
		}
	}
	refusedNobody := attemptFrom("192.0.2.200", "acme", "nobody", "wrong")
	if refusedNobody.Code != refusedAnn.Code || sentenceOf(refusedNobody.Body.String()) != sentenceOf(refusedAnn.Body.String()) {
		t.Errorf("an unknown user past the budget: %d %q; ann: %d %q", refusedNobody.Code, sentenceOf(refusedNobody.Body.String()),
			refusedAnn.Code, sentenceOf(refusedAnn.Body.String()))
	}
	// A new password (an administrator's) ends the sessions.
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

// sentenceOf is the error sentence of a sign-in page, with the seconds to
// wait left out.
func sentenceOf(page string) string {
	_, after, _ := strings.Cut(page, `class="error"`)
	line, _, _ := strings.Cut(after, "</")
	return regexp.MustCompile(`[0-9]+`).ReplaceAllString(line, "N")
}

// Addresses without a session or without a page: / leads to the console,
// an unknown console address is the console's not-found page (the API's
// JSON elsewhere), a page asked for leads to sign-in and back, a form sent
// after its session ended leads to sign-in and back to the page it came
// from, and a background save gets a 401 its page can tell.
func TestConsoleAddresses(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	for _, tc := range []struct {
		method, path   string
		header         http.Header
		status         int
		location, body string
	}{
		{"GET", "/", nil, http.StatusSeeOther, "/console", ""},
		{"GET", "/console/nope", nil, http.StatusNotFound, "", "No page of the console is at this address."},
		{"GET", "/nope", nil, http.StatusNotFound, "", `"status":404`},
		{"GET", "/console/evaluations/e1?x=1", nil, http.StatusSeeOther, "/console/sign-in?next=%2Fconsole%2Fevaluations%2Fe1%3Fx%3D1", ""},
		{"POST", "/console/evaluations/e1", http.Header{"Sec-Fetch-Mode": {"navigate"}, "Referer": {"http://example.com/console/evaluations/e1"}},
			http.StatusSeeOther, "/console/sign-in?ended=1&next=%2Fconsole%2Fevaluations%2Fe1", ""},
		{"POST", "/console/evaluations/e1", http.Header{"Referer": {"http://elsewhere.example/console/x"}},
			http.StatusSeeOther, "/console/sign-in?ended=1&next=%2Fconsole%2Fevaluations%2Fe1", ""},
		{"POST", "/console/evaluations/e1/draft", http.Header{"Sec-Fetch-Mode": {"cors"}}, http.StatusUnauthorized, "", "Your session has ended"},
	} {
		r := e.do(tc.method, tc.path, nil, tc.header)
		if r.Code != tc.status || r.Header().Get("Location") != tc.location || !strings.Contains(r.Body.String(), tc.body) {
			t.Errorf("%s %s: %d %q %q", tc.method, tc.path, r.Code, r.Header().Get("Location"), r.Body.String())
		}
	}
}

// QA sampling started from the console samples the organization now, by
// the server's rate and seed, to whom manages evaluations; a server whose
// sampling is off says so; an agent is refused.
func TestConsoleSampleNow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, role string
		rate       float64
		status     int
		want       string // in the Location, or the page
	}{
		{"a supervisor", "Supervisor", 1, http.StatusSeeOther, "/console/queue?sampled=2&started=0"},
		{"sampling off", "Supervisor", 0, http.StatusBadRequest, "QA sampling is off on this server"},
		{"an agent", "Agent", 1, http.StatusForbidden, "Your role does not allow"},
	} {
		e := newTestEnv(t, Options{Sampling: qa.Sampling{Rate: tc.rate, Seed: "s"}})
		tok := e.token(t)
		f := buildOrg(t, e, tok, "")
		for _, name := range []string{"a.json", "b.json"} {
			mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team), file(name,
				`{"messages":[{"participant":"Agent","text":"Hello.","timestamp":"2025-10-03T10:00:00Z"}]}`)), 200)
		}
		e.runIngest(t)
		u := e.matrixUser(t, tok, tc.role, "Edit", f.site)
		r := e.consoleForm("/console/queue/sample", url.Values{"csrf": {u.csrf}}, u.session)
		if r.Code != tc.status || !strings.Contains(r.Header().Get("Location")+r.Body.String(), tc.want) {
			t.Errorf("%s: %d %s %.300s", tc.name, r.Code, r.Header().Get("Location"), r.Body.String())
		}
		sampled, err := e.cat.Interactions.Interactions(context.Background(), e.org.ID, catalog.InteractionFilter{Status: catalog.StatusSampled})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 2, false: 0}[r.Code == http.StatusSeeOther]; len(sampled) != want {
			t.Errorf("%s: %d conversations sampled, want %d", tc.name, len(sampled), want)
		}
	}
}
