package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
)

// authenticate requires a valid bearer token with scope acxapi and puts the
// caller (client and organization) in the request context.
func (s *Server) authenticate(c *gin.Context) { s.requireScope(c, oauth.Scope) }

// provisioning is authenticate for the SCIM operations: scope scim.
func (s *Server) provisioning(c *gin.Context) { s.requireScope(c, scimScope) }

// requireScope requires a valid bearer token with the scope. One answer
// for every kind of bad token, so nothing tells which part was wrong.
func (s *Server) requireScope(c *gin.Context, scope string) {
	token, err := oauth.BearerToken(c.GetHeader("Authorization"))
	var claims *oauth.Claims
	if err == nil {
		claims, err = s.deps.Tokens.Verify(token)
	}
	if err != nil {
		problem.Write(c, unauthorized())
		return
	}
	if !claims.HasScope(scope) {
		c.Header("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+scope+`"`)
		problem.Write(c, problem.New(http.StatusForbidden,
			"The access token lacks the scope '"+scope+"' this operation needs; request a token with scope="+scope+"."))
		return
	}
	if claims.Generation != nil {
		// A client's token ends when the client is disabled, deleted or
		// given a new secret.
		st, err := s.deps.Orgs.ClientTokenState(c.Request.Context(), claims.Subject)
		if err != nil {
			problem.Write(c, s.internal(c, err))
			return
		}
		if !st.Exists || st.Disabled || st.Generation != *claims.Generation {
			problem.Write(c, unauthorized())
			return
		}
	}
	principal := tenant.Principal{ClientID: claims.Subject, OrgID: claims.Org, Scope: claims.Scope, Actor: access.Organization(claims.Org)}
	if name := c.GetHeader(actingUserHeader); name != "" {
		if !s.actFor(c, &principal, name) {
			return
		}
	}
	c.Request = c.Request.WithContext(tenant.With(c.Request.Context(), principal))
	c.Next()
}

// actingUserHeader names the user an API client acts for [extension]: a
// portal built on Earshot sends it so that each of its users reads only
// what the user's hierarchy permissions allow (/UserHierarchy). It can only
// narrow what the client's token reads.
const actingUserHeader = "X-Earshot-User"

// actFor makes p act for the organization's active user with that user
// name or id, with the user's permissions and hierarchy access; false when
// the request was answered.
func (s *Server) actFor(c *gin.Context, p *tenant.Principal, name string) bool {
	ctx := c.Request.Context()
	u, err := s.activeUser(ctx, p.OrgID, name)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		problem.Write(c, problem.New(http.StatusForbidden, "The user named in "+actingUserHeader+" is not an active user of your organization."))
		return false
	case err != nil:
		problem.Write(c, s.internal(c, err))
		return false
	}
	if p.Actor, err = access.OfUser(ctx, s.deps.People, p.OrgID, u); err != nil {
		problem.Write(c, s.internal(c, err))
		return false
	}
	return true
}

// orgIDOf is the caller's organization (a handler outside gin).
func orgIDOf(r *http.Request) string {
	p, _ := tenant.From(r.Context())
	return p.OrgID
}

// reads is what the caller of a request may read (nil: the whole
// organization).
func reads(ctx context.Context) catalog.Scope { return actorOf(ctx).Scope() }

// actorOf is who a request acts as.
func actorOf(ctx context.Context) access.Actor {
	p, _ := tenant.From(ctx)
	return p.Actor
}

// may lets a request through when its actor's role allows the action, and
// answers 403 with the refusal's sentence when it does not. The use cases
// that act on a conversation ask again with its hierarchy node.
func may(act access.Action) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := actorOf(c.Request.Context()).Require(act); err != nil {
			problem.Write(c, refusal(err))
		}
	}
}

// refusal is the answer to an *access.Refused: 403 with its sentence.
func refusal(err error) *problem.Problem {
	return problem.New(http.StatusForbidden, err.Error())
}

// unauthorized is the answer to a request without a valid access token.
func unauthorized() *problem.Problem {
	p := problem.New(http.StatusUnauthorized,
		"A valid access token is required: send 'Authorization: Bearer <token>' with a token from POST /connect/token that has not expired.")
	p.Header = http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}}
	return p
}
