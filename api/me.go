package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
	"github.com/earshot/earshot/internal/contract/dates"
)

// me is GET /Me [extension]: who the token speaks for. Integrators use it to
// check a token and see which organization it reaches.
func (s *Server) me(c *gin.Context) {
	p, _ := tenant.From(c.Request.Context())
	org, err := s.deps.Orgs.Organization(c.Request.Context(), p.OrgID)
	if err != nil {
		s.deps.Logger.Error("me: organization lookup", "err", err, "org", p.OrgID)
		problem.Write(c, problem.New(http.StatusInternalServerError, "The server could not read your organization; report the traceId to the operator."))
		return
	}
	c.JSON(http.StatusOK, gin.H{
		"clientId":              p.ClientID,
		"organizationId":        org.ID,
		"organizationName":      org.Name,
		"scope":                 p.Scope,
		"organizationCreatedOn": dates.Format(org.CreatedOn),
	})
}
