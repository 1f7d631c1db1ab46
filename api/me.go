package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/tenant"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// me is GET /Me [extension]: who the token speaks for. Integrators use it to
// check a token and see which organization it reaches.
func (s *peopleAPI) me(c *gin.Context) error {
	p, _ := tenant.From(c.Request.Context())
	org, err := s.deps.Orgs.Organization(c.Request.Context(), p.OrgID)
	if errors.Is(err, catalog.ErrNotFound) {
		// A token of an organization that is gone (or of another
		// installation signing with the same keys) speaks for no one.
		return unauthorized()
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{
		"clientId":              p.ClientID,
		"organizationId":        org.ID,
		"organizationName":      org.Name,
		"scope":                 p.Scope,
		"organizationCreatedOn": dates.Format(org.CreatedOn),
	})
	return nil
}
