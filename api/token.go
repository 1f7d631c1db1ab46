package api

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/secretguard"
	"github.com/earshot/earshot/warehouse/catalog"
)

// maxTokenRequestBytes bounds the form of a token request.
const maxTokenRequestBytes = 16 << 10

// token is POST /connect/token, the OAuth 2.0 client-credentials grant
// (RFC 6749 §4.4). Errors are RFC 6749 §5.2 JSON, not problem bodies.
func (s *Server) token(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.Header("Pragma", "no-cache")
	fail := func(status int, code, description string) {
		c.AbortWithStatusJSON(status, gin.H{"error": code, "error_description": description})
	}

	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt != "application/x-www-form-urlencoded" {
		fail(http.StatusBadRequest, "invalid_request", "The body must be application/x-www-form-urlencoded.")
		return
	}
	if c.Request.ContentLength > maxTokenRequestBytes {
		fail(http.StatusRequestEntityTooLarge, "invalid_request", fmt.Sprintf("A token request's form must be at most %d bytes.", maxTokenRequestBytes))
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxTokenRequestBytes)
	if err := c.Request.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "invalid_request", "The form body could not be read.")
		return
	}
	form := c.Request.PostForm
	for _, name := range []string{"grant_type", "scope", "client_id", "client_secret"} {
		if len(form[name]) > 1 { // RFC 6749 §3.2: parameters must not repeat
			fail(http.StatusBadRequest, "invalid_request", "The parameter "+name+" is repeated.")
			return
		}
	}

	basicID, basicSecret, hasBasic := c.Request.BasicAuth()
	bodyID, bodySecret := form.Get("client_id"), form.Get("client_secret")
	// With Basic, the body may repeat the client's id (RFC 6749 §3.2.1),
	// but a second secret is a second way of authenticating (§2.3).
	switch {
	case hasBasic && bodySecret != "":
		fail(http.StatusBadRequest, "invalid_request", "Send the client credentials either with HTTP Basic or in the body, not both.")
		return
	case hasBasic && bodyID != "" && bodyID != basicID:
		fail(http.StatusBadRequest, "invalid_request", "The client_id of the body is not the client of HTTP Basic.")
		return
	}
	clientID, secret := bodyID, bodySecret
	if hasBasic {
		clientID, secret = basicID, basicSecret
	}

	switch grant := form.Get("grant_type"); {
	case grant == "":
		fail(http.StatusBadRequest, "invalid_request", "The parameter grant_type is required.")
		return
	case grant != "client_credentials":
		fail(http.StatusBadRequest, "unsupported_grant_type", "Only grant_type=client_credentials is supported.")
		return
	}
	requested := strings.Fields(form.Get("scope"))
	for _, s := range requested {
		if !slices.Contains(catalog.ClientScopes, s) {
			fail(http.StatusBadRequest, "invalid_scope", "The scopes offered are "+strings.Join(catalog.ClientScopes, " and ")+".")
			return
		}
	}

	invalidClient := func() {
		if hasBasic {
			c.Header("WWW-Authenticate", `Basic realm="earshot", charset="UTF-8"`)
		}
		fail(http.StatusUnauthorized, "invalid_client", "Client authentication failed.")
	}
	if clientID == "" || secret == "" {
		invalidClient()
		return
	}
	ctx := c.Request.Context()
	attempt, err := s.guard.Admit(ctx, "client:"+clientID, c.ClientIP())
	if err != nil {
		problem.Write(c, guardRefusal(err))
		return
	}
	var client catalog.APIClient
	if err := attempt.Check(ctx, func(ctx context.Context) { client, err = oauth.Authenticate(ctx, s.deps.Orgs, clientID, secret) }); err != nil {
		attempt.Abandoned()
		problem.Write(c, guardRefusal(err))
		return
	}
	if errors.Is(err, oauth.ErrInvalidClient) {
		attempt.Failed(ctx)
		invalidClient()
		return
	}
	if err != nil {
		attempt.Abandoned()
		if p := outage(err); p != nil {
			s.deps.Logger.Warn("token: client lookup", "err", err)
			c.Header("Retry-After", p.Header.Get("Retry-After"))
			fail(http.StatusServiceUnavailable, "temporarily_unavailable", p.Detail)
			return
		}
		s.deps.Logger.Error("token: client lookup", "err", err)
		fail(http.StatusInternalServerError, "server_error", "The server could not check the client; try again.")
		return
	}
	attempt.Succeeded()
	scope, ok := grantedScope(client, requested)
	if !ok {
		fail(http.StatusBadRequest, "invalid_scope", "This client may request "+strings.Join(client.Scopes, " and ")+" only.")
		return
	}
	token, err := s.deps.Tokens.IssueForClient(client, scope)
	if err != nil {
		s.deps.Logger.Error("token: sign", "err", err)
		fail(http.StatusInternalServerError, "server_error", "The server could not sign a token; try again.")
		return
	}
	c.JSON(http.StatusOK, gin.H{
		"access_token": token,
		"token_type":   "Bearer",
		"expires_in":   int(s.deps.Tokens.TTL().Seconds()),
		"scope":        scope,
	})
}

// grantedScope is the scope a token request gets: the requested scopes,
// each one the client may have; none requested is acxapi when the client
// has it, else every scope it has.
func grantedScope(client catalog.APIClient, requested []string) (string, bool) {
	if len(requested) == 0 {
		if slices.Contains(client.Scopes, oauth.Scope) {
			return oauth.Scope, true
		}
		return strings.Join(client.Scopes, " "), len(client.Scopes) > 0
	}
	var granted []string
	for _, s := range requested {
		if !slices.Contains(client.Scopes, s) {
			return "", false
		}
		if !slices.Contains(granted, s) {
			granted = append(granted, s)
		}
	}
	return strings.Join(granted, " "), true
}

// guardRefusal is the answer to an attempt the secret guard turned away.
func guardRefusal(err error) *problem.Problem {
	var refused *secretguard.Refused
	switch {
	case errors.As(err, &refused) && refused.Busy:
		return tooMany(1, "The server is checking many credentials at once; retry after 1 second(s).")
	case errors.As(err, &refused):
		return tooMany(refused.RetryAfter, "Too many failed authentication attempts; retry after "+strconv.Itoa(refused.RetryAfter)+" second(s).")
	}
	return problem.New(http.StatusRequestTimeout, "The request ended before its credentials were checked.")
}

// tooMany is the 429 of a refused request, with the seconds to wait.
func tooMany(seconds int, detail string) *problem.Problem {
	p := problem.New(http.StatusTooManyRequests, detail)
	p.Header = http.Header{"Retry-After": {strconv.Itoa(seconds)}}
	return p
}
