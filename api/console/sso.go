package console

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gin-gonic/gin"
	"golang.org/x/oauth2"

	"github.com/earshot/earshot/warehouse/catalog"
)

// SSO is sign-in through an OpenID Connect identity provider
// (authorization code flow with PKCE, a nonce and a state): the ID
// token's e-mail address (or preferred_username) names a user of the
// organization the person chose, who must already exist (SCIM or the
// API provisions them) and be enabled.
type SSO struct {
	Name     string // shown on the sign-in page, e.g. "Okta"
	ByEmail  bool   // match the e-mail claim to users' e-mail; else preferred_username to user names
	config   oauth2.Config
	verifier *oidc.IDTokenVerifier
	origin   string // of the provider's authorization endpoint
}

// SSOConfig is how an identity provider is set up.
type SSOConfig struct {
	Name, Issuer, ClientID, ClientSecret string
	// RedirectURL is where the provider sends the browser back:
	// PUBLIC_URL/console/sso/callback, registered with the provider.
	RedirectURL string
	// Claim is "email" (the default) or "preferred_username".
	Claim string
}

// NewSSO discovers the provider (its /.well-known/openid-configuration).
func NewSSO(ctx context.Context, cfg SSOConfig) (*SSO, error) {
	switch cfg.Claim {
	case "", "email", "preferred_username":
	default:
		return nil, fmt.Errorf("single sign-on: the claim %q is not email or preferred_username", cfg.Claim)
	}
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("single sign-on: a client id and a client secret are needed")
	}
	provider, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("single sign-on: the identity provider %s: %w", cfg.Issuer, err)
	}
	auth, err := url.Parse(provider.Endpoint().AuthURL)
	if err != nil || auth.Host == "" {
		return nil, fmt.Errorf("single sign-on: the identity provider %s has no authorization endpoint", cfg.Issuer)
	}
	name := cfg.Name
	if name == "" {
		name = "single sign-on"
	}
	return &SSO{Name: name, ByEmail: cfg.Claim != "preferred_username",
		config: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: provider.Endpoint(),
			RedirectURL: cfg.RedirectURL, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		verifier: provider.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		origin:   auth.Scheme + "://" + auth.Host,
	}, nil
}

// ssoCookie carries a sign-in in flight from /console/sso to the
// callback. SameSite=Lax: the provider's redirect back is a cross-site
// navigation, on which a Strict cookie is not sent.
const ssoCookie = "earshot_sso"

// ssoFlight is what the callback checks: the state against forged
// callbacks, the nonce against replayed ID tokens, the PKCE verifier
// against stolen codes; and the organization chosen.
type ssoFlight struct {
	State, Nonce, Verifier, Organization string
	Next                                 string // the console page to return to
}

// flightOf reads the flight cookie of a callback and checks the state the
// provider sent back against it.
func flightOf(cookie, state string) (ssoFlight, bool) {
	var f ssoFlight
	decoded, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil || json.Unmarshal(decoded, &f) != nil || f.State == "" || f.Nonce == "" || f.Verifier == "" || f.Organization == "" {
		return f, false
	}
	return f, subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) == 1
}

func (c *Console) ssoName() string {
	if c.SSO == nil {
		return ""
	}
	return c.SSO.Name
}

// ssoStart sends the browser to the identity provider.
func (c *Console) ssoStart(ctx *gin.Context) {
	if c.SSO == nil {
		ctx.String(http.StatusNotFound, "Single sign-on is not set up here.")
		return
	}
	org := strings.TrimSpace(ctx.Query("organization"))
	if org == "" {
		c.ssoRefused(ctx, http.StatusBadRequest, "", "Name your organization to sign in with "+c.SSO.Name+".")
		return
	}
	f := ssoFlight{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(), Organization: org, Next: returnTo(ctx.Query("next"))}
	raw, _ := json.Marshal(f)
	http.SetCookie(ctx.Writer, &http.Cookie{Name: ssoCookie, Value: base64.RawURLEncoding.EncodeToString(raw), Path: "/console/sso",
		MaxAge: 600, Secure: c.secureCookies(ctx), HttpOnly: true, SameSite: http.SameSiteLaxMode})
	ctx.Redirect(http.StatusSeeOther, c.SSO.config.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)))
}

// ssoCallback completes a sign-in: the code is exchanged, the ID token
// verified (signature, issuer, audience, expiry, nonce) and its claim
// matched to a user of the organization.
func (c *Console) ssoCallback(ctx *gin.Context) {
	if c.SSO == nil {
		ctx.String(http.StatusNotFound, "Single sign-on is not set up here.")
		return
	}
	raw, _ := ctx.Cookie(ssoCookie)
	f, ok := flightOf(raw, ctx.Query("state"))
	if !ok {
		c.ssoRefused(ctx, http.StatusBadRequest, "", "This sign-in was not started here, or took too long. Try again.")
		return
	}
	http.SetCookie(ctx.Writer, &http.Cookie{Name: ssoCookie, Value: "", Path: "/console/sso", MaxAge: -1, Secure: c.secureCookies(ctx), HttpOnly: true, SameSite: http.SameSiteLaxMode})
	if e := ctx.Query("error"); e != "" {
		c.ssoRefused(ctx, http.StatusUnauthorized, f.Organization, c.SSO.Name+" did not sign you in ("+e+").")
		return
	}
	token, err := c.SSO.config.Exchange(ctx.Request.Context(), ctx.Query("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		c.Log.Warn("single sign-on: code exchange", "err", err)
		c.ssoRefused(ctx, http.StatusUnauthorized, f.Organization, c.SSO.Name+" did not confirm this sign-in. Try again.")
		return
	}
	rawID, _ := token.Extra("id_token").(string)
	id, err := c.SSO.verifier.Verify(ctx.Request.Context(), rawID)
	if err != nil || subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(f.Nonce)) != 1 {
		c.Log.Warn("single sign-on: ID token refused", "err", err)
		c.ssoRefused(ctx, http.StatusUnauthorized, f.Organization, c.SSO.Name+" did not confirm this sign-in. Try again.")
		return
	}
	var claims struct {
		Email             string `json:"email"`
		EmailVerified     *bool  `json:"email_verified"`
		PreferredUsername string `json:"preferred_username"`
	}
	if err := id.Claims(&claims); err != nil {
		c.ssoRefused(ctx, http.StatusUnauthorized, f.Organization, c.SSO.Name+" did not confirm this sign-in. Try again.")
		return
	}
	value := claims.PreferredUsername
	if c.SSO.ByEmail {
		value = claims.Email
		if claims.EmailVerified != nil && !*claims.EmailVerified {
			value = ""
		}
	}
	u, err := c.People.SingleSignOnUser(ctx.Request.Context(), f.Organization, value, c.SSO.ByEmail)
	switch {
	case value == "" || errors.Is(err, catalog.ErrNotFound) || err == nil && u.Disabled:
		c.ssoRefused(ctx, http.StatusUnauthorized, f.Organization, "No active user of "+f.Organization+" matches your "+c.SSO.Name+" account. Ask your administrator.")
		return
	case err != nil:
		c.failed(ctx, err)
		return
	}
	if !c.startSession(ctx, u) {
		return
	}
	// A page rather than a redirect: the browser arrived here from the
	// provider's site, and would not send the Strict session cookie on a
	// redirect of that navigation; a navigation from this page is
	// same-site.
	c.render(ctx, http.StatusOK, "signed_in", struct {
		page
		Next string
	}{page{Title: "Signed in"}, returnTo(f.Next)})
}

// ssoRefused shows the sign-in page with why.
func (c *Console) ssoRefused(ctx *gin.Context, status int, org, message string) {
	c.signInAgain(ctx, status, org, "", message)
}
