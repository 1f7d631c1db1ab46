package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
)

// authenticate requires a valid bearer token with scope acxapi and puts the
// caller (client and organization) in the request context. One answer for
// every kind of bad token, so nothing tells which part was wrong.
func (s *Server) authenticate(c *gin.Context) {
	token, err := oauth.BearerToken(c.GetHeader("Authorization"))
	var claims *oauth.Claims
	if err == nil {
		claims, err = s.deps.Tokens.Verify(token)
	}
	if err != nil {
		unauthorized(c)
		return
	}
	if !claims.HasScope(oauth.Scope) {
		c.Header("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+oauth.Scope+`"`)
		problem.Write(c, problem.New(http.StatusForbidden,
			"The access token lacks the scope '"+oauth.Scope+"' this operation needs; request a token with scope="+oauth.Scope+"."))
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
			unauthorized(c)
			return
		}
	}
	ctx := tenant.With(c.Request.Context(), tenant.Principal{ClientID: claims.Subject, OrgID: claims.Org, Scope: claims.Scope})
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// unauthorized answers a request without a valid access token.
func unauthorized(c *gin.Context) {
	c.Header("WWW-Authenticate", `Bearer error="invalid_token"`)
	problem.Write(c, problem.New(http.StatusUnauthorized,
		"A valid access token is required: send 'Authorization: Bearer <token>' with a token from POST /connect/token that has not expired."))
}
