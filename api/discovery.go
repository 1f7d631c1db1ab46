package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/oauth"
)

// openIDConfiguration is GET /.well-known/openid-configuration: where to get
// tokens and the keys that verify them.
func (s *Server) openIDConfiguration(c *gin.Context) error {
	base := strings.TrimSuffix(s.opts.PublicURL, "/")
	c.JSON(http.StatusOK, gin.H{
		"issuer":                                base,
		"token_endpoint":                        base + "/connect/token",
		"jwks_uri":                              base + "/.well-known/jwks.json",
		"grant_types_supported":                 []string{"client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{oauth.Scope},
		"response_types_supported":              []string{"token"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"subject_types_supported":               []string{"public"},
	})
	return nil
}

// jwks is GET /.well-known/jwks.json: the public keys of every live signing key.
func (s *Server) jwks(c *gin.Context) error {
	c.Header("Cache-Control", "public, max-age=300")
	c.JSON(http.StatusOK, s.deps.Keys.JWKS())
	return nil
}
