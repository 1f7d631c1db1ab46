package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/secretguard"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Cookies of the console.
const (
	sessionCookie = "earshot_session"
	// signInCookie carries the sign-in form's CSRF token (double submit):
	// a sign-in forged from another site cannot read it.
	signInCookie = "earshot_sign_in"
)

// viewer is the signed-in user of a request.
type viewer struct {
	UserID, UserName, OrgID, OrgName string
	CSRF                             string
	actor                            access.Actor
	tokenHash                        string
}

// scope is what the viewer may read (nil: the whole organization).
func (v *viewer) scope() catalog.Scope { return v.actor.Scope() }

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// setCookie sets a cookie of the console: HttpOnly, SameSite=Strict, for
// /console, and Secure where the console is reached over https.
func (c *Console) setCookie(ctx *gin.Context, name, value string, maxAge int) {
	http.SetCookie(ctx.Writer, &http.Cookie{Name: name, Value: value, Path: "/console", MaxAge: maxAge,
		Secure: c.secureCookies(ctx), HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// secureCookies tells whether the console's cookies are Secure: when its
// public URL is https, when a setting says so (a TLS proxy in front of a
// server whose public URL is not set), or when the request came over TLS.
// Browsers keep Secure cookies over https only (and on localhost): a
// plain-HTTP installation sets a public URL of http.
func (c *Console) secureCookies(ctx *gin.Context) bool {
	return c.SecureCookies || strings.HasPrefix(strings.ToLower(c.PublicURL), "https://") || overHTTPS(ctx)
}

// overHTTPS tells whether the browser reached the console over https,
// directly or through a proxy that says so.
func overHTTPS(ctx *gin.Context) bool {
	return ctx.Request.TLS != nil || strings.EqualFold(ctx.GetHeader("X-Forwarded-Proto"), "https")
}

// sameOrigin refuses a change whose Origin (or Referer) names another
// site: with the CSRF token, the second check against cross-site forms.
func sameOrigin(ctx *gin.Context) bool {
	origin := ctx.GetHeader("Origin")
	if origin == "" || origin == "null" {
		origin = ctx.GetHeader("Referer")
	}
	if origin == "" {
		return true // a client that sends neither is not a browser on another site
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, ctx.Request.Host)
}

// csrfRefused answers a change without the right token.
func csrfRefused(ctx *gin.Context) {
	ctx.String(http.StatusForbidden, "This form has expired or did not come from the console; reload the page and try again.")
	ctx.Abort()
}

func tokensMatch(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

type signInData struct {
	page
	CSRF, Error, Notice, Organization, UserName string
	SSO                                         string // the identity provider's name; "" when none is set up
	Next                                        string // the console page to return to once signed in
}

// sessionEnded is what the sign-in page says to whom a session ended on.
const sessionEnded = "Your session has ended; sign in again to go on where you were. Answers you had not saved are kept in this browser and come back on the form."

// signInPage shows the form (saying why when a session ended).
func (c *Console) signInPage(ctx *gin.Context) {
	notice := ""
	if ctx.Query("ended") != "" {
		notice = sessionEnded
	}
	c.signInForm(ctx, http.StatusOK, signInData{Notice: notice})
}

// signInAgain shows the form again, with the organization and user name
// typed, and why the last try failed.
func (c *Console) signInAgain(ctx *gin.Context, status int, org, userName, message string) {
	c.signInForm(ctx, status, signInData{Organization: org, UserName: userName, Error: message})
}

// signInForm shows the form with a fresh CSRF token in its cookie, and the
// page to return to.
func (c *Console) signInForm(ctx *gin.Context, status int, d signInData) {
	d.CSRF = randomToken()
	c.setCookie(ctx, signInCookie, d.CSRF, 3600)
	d.page, d.SSO, d.Next = page{Title: "Sign in"}, c.ssoName(), returnTo(ctx.Request.FormValue("next"))
	c.render(ctx, status, "sign_in", d)
}

// cookieDropped is why a sign-in came back without its form's cookie when
// the browser could not keep it: a Secure cookie set over plain HTTP.
const cookieDropped = "Your browser did not keep the sign-in cookie: this console's cookies are Secure (its public URL is https), " +
	"and browsers keep them over https only. Open the console at its https address, or start a plain-HTTP installation with --public-url http://…"

// formExpired is why a sign-in came back without the right CSRF token.
const formExpired = "This sign-in form has expired or did not come from the console; try again."

// badSignIn is the one answer to a wrong organization, user name or
// password, so that it tells which of them exists to nobody.
const badSignIn = "The organization, user name or password is not right."

// signIn checks the form: the CSRF token, then the password under the
// secret guard (the token endpoint's): an address, and an account from an
// address it has not signed in from, may fail a few times before they
// wait; an unknown user name has a budget all the same, so no answer
// tells whether a user exists, and a stranger's failures do not lock a
// user out of the addresses it signs in from.
func (c *Console) signIn(ctx *gin.Context) {
	cookie, _ := ctx.Cookie(signInCookie)
	org, name, password := strings.TrimSpace(ctx.PostForm("organization")), strings.TrimSpace(ctx.PostForm("username")), ctx.PostForm("password")
	again := func(status int, message string) { c.signInAgain(ctx, status, org, name, message) }
	switch {
	case cookie == "" && c.secureCookies(ctx) && !overHTTPS(ctx):
		again(http.StatusForbidden, cookieDropped)
		return
	case !sameOrigin(ctx) || !tokensMatch(cookie, ctx.PostForm("csrf")):
		again(http.StatusForbidden, formExpired)
		return
	}
	rc := ctx.Request.Context()
	attempt, err := c.Secrets.Admit(rc, "user:"+strings.ToLower(org)+"/"+strings.ToLower(name), ctx.ClientIP())
	if err != nil {
		again(http.StatusTooManyRequests, guardSentence(err))
		return
	}
	st, err := c.People.SignInState(rc, org, name)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		attempt.Abandoned()
		c.failed(ctx, err)
		return
	}
	usable := err == nil && st.PasswordHash != nil && !st.User.Disabled
	matches := false
	if err := attempt.Check(rc, func(context.Context) {
		if usable {
			matches = oauth.SecretMatches(*st.PasswordHash, password)
		} else {
			oauth.SpendComparison(password) // the same time as a wrong password
		}
	}); err != nil {
		attempt.Abandoned()
		again(http.StatusTooManyRequests, guardSentence(err))
		return
	}
	if !matches {
		attempt.Failed(rc)
		again(http.StatusUnauthorized, badSignIn)
		return
	}
	attempt.Succeeded()
	if c.startSession(ctx, st.User) {
		ctx.Redirect(http.StatusSeeOther, returnTo(ctx.PostForm("next")))
	}
}

// guardSentence tells a person why the secret guard turned a sign-in away.
func guardSentence(err error) string {
	var refused *secretguard.Refused
	switch {
	case errors.As(err, &refused) && refused.Busy:
		return "The server is checking many sign-ins at once; try again in a second."
	case errors.As(err, &refused):
		return fmt.Sprintf("Too many failed sign-ins from here or for this user; try again in %d second(s).", refused.RetryAfter)
	}
	return "The sign-in ended before it was checked; try again."
}

// startSession signs a user in: a new session and its cookie. It answers
// the request itself when it fails.
func (c *Console) startSession(ctx *gin.Context, u catalog.User) bool {
	token := randomToken()
	now := time.Now().UTC()
	if err := c.People.StartSession(ctx.Request.Context(), catalog.Session{TokenHash: hashToken(token), OrgID: u.OrgID, UserID: u.ID,
		CSRF: randomToken(), CreatedOn: now, ExpiresOn: c.sessionEnd(now, now)}); err != nil {
		c.failed(ctx, err)
		return false
	}
	c.setCookie(ctx, signInCookie, "", -1)
	c.setCookie(ctx, sessionCookie, token, int(c.SessionMax.Seconds()))
	return true
}

// sessionEnd is when a session started at created ends if it is last
// used at now: an idle time later, and never past its maximum.
func (c *Console) sessionEnd(created, now time.Time) time.Time {
	end := now.Add(c.SessionIdle)
	if limit := created.Add(c.SessionMax); end.After(limit) {
		return limit
	}
	return end
}

// renewal is how often at most a session in use is renewed (a write).
const renewal = time.Minute

// renew moves a session's end on while it is used.
func (c *Console) renew(ctx context.Context, s catalog.Session) error {
	end := c.sessionEnd(s.CreatedOn, time.Now().UTC())
	if end.Sub(s.ExpiresOn) < renewal {
		return nil
	}
	return c.People.RenewSession(ctx, s.TokenHash, end)
}

// signedIn requires a live session of an active user, and on a change
// its CSRF token; it puts the viewer, with the user's scope, in the
// request.
func (c *Console) signedIn(ctx *gin.Context) {
	token, _ := ctx.Cookie(sessionCookie)
	v, err := c.viewerOf(ctx, token)
	if errors.Is(err, catalog.ErrNotFound) {
		c.signInFirst(ctx)
		ctx.Abort()
		return
	}
	if err != nil {
		c.failed(ctx, err)
		ctx.Abort()
		return
	}
	if ctx.Request.Method != http.MethodGet && (!sameOrigin(ctx) || !tokensMatch(v.CSRF, ctx.PostForm("csrf"))) {
		csrfRefused(ctx)
		return
	}
	ctx.Set("viewer", v)
	ctx.Next()
}

// viewerOf is the viewer of a session token (ErrNotFound when there is no
// live session of an active user).
func (c *Console) viewerOf(ctx *gin.Context, token string) (*viewer, error) {
	if token == "" {
		return nil, catalog.ErrNotFound
	}
	s, err := c.People.Session(ctx.Request.Context(), hashToken(token))
	if err != nil {
		return nil, err
	}
	if err := c.renew(ctx.Request.Context(), s); err != nil {
		return nil, err
	}
	u, err := c.People.User(ctx.Request.Context(), s.OrgID, s.UserID)
	if err != nil {
		return nil, err
	}
	if u.Disabled {
		return nil, catalog.ErrNotFound
	}
	org, err := c.Organizations.Organization(ctx.Request.Context(), s.OrgID)
	if err != nil {
		return nil, err
	}
	actor, err := access.OfUser(ctx.Request.Context(), c.People, s.OrgID, u)
	if err != nil {
		return nil, err
	}
	return &viewer{UserID: u.ID, UserName: u.UserName, OrgID: s.OrgID, OrgName: org.Name, CSRF: s.CSRF, actor: actor, tokenHash: s.TokenHash}, nil
}

func viewerFrom(ctx *gin.Context) *viewer {
	v, _ := ctx.Get("viewer")
	return v.(*viewer)
}

// signOut ends the session.
func (c *Console) signOut(ctx *gin.Context) {
	if err := c.People.EndSession(ctx.Request.Context(), viewerFrom(ctx).tokenHash); err != nil {
		c.failed(ctx, err)
		return
	}
	c.setCookie(ctx, sessionCookie, "", -1)
	ctx.Redirect(http.StatusSeeOther, "/console/sign-in")
}
