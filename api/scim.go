package api

import (
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/elimity-com/scim"
	scimerrors "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/warehouse/catalog"
)

// SCIM 2.0 provisioning of an organization's users and groups (RFC 7643,
// 7644), for a client whose token has the scim scope, as Okta's and
// Microsoft Entra ID's provisioning clients use it. elimity-com/scim
// speaks the protocol — discovery, the schemas' validation, filters,
// paging, PATCH parsing, errors — and scimUsers and scimGroups map its
// resources to the catalog's users and groups; scimcompat.go makes what
// those clients send into what the library reads.

// scimScope is the scope of a provisioning client's token.
const scimScope = "scim"

// scimResourceTypes are the resource types served, each with handler.
func scimResourceTypes(users, groups scim.ResourceHandler) []scim.ResourceType {
	return []scim.ResourceType{
		{ID: optional.NewString("User"), Name: "User", Endpoint: "/Users", Description: optional.NewString("User Account"),
			Schema: userSchemas.core, Handler: users,
			SchemaExtensions: []scim.SchemaExtension{{Schema: userSchemas.extensions[0]}}},
		{ID: optional.NewString("Group"), Name: "Group", Endpoint: "/Groups", Description: optional.NewString("Group"),
			Schema: groupSchemas.core, Handler: groups},
	}
}

// newSCIM is the SCIM protocol server, mounted at /scim/v2, and a probe:
// the same protocol over handlers that change nothing, which says which
// operation of a refused PATCH the library refused (scimrefusal.go).
func (s *Server) newSCIM() (served, probe http.Handler, err error) {
	config := scim.ServiceProviderConfig{
		DocumentationURI: optional.NewString(s.opts.PublicURL + "/swagger/v1/swagger.json"),
		AuthenticationSchemes: []scim.AuthenticationScheme{{Type: scim.AuthenticationTypeOauthBearerToken, Name: "OAuth Bearer Token",
			Description: "A token of scope scim: of POST /connect/token (client credentials), or long-lived of earshot admin client scim-token.",
			Primary:     true}},
		MaxResults: maxPageSize, SupportFiltering: true, SupportPatch: true,
	}
	for _, h := range []*http.Handler{&served, &probe} {
		types := scimResourceTypes(scimUsers{s}, scimGroups{s})
		if h == &probe {
			types = scimResourceTypes(scimProbe{}, scimProbe{})
		}
		srv, err := scim.NewServer(&scim.ServerArgs{ServiceProviderConfig: &config, ResourceTypes: types},
			scim.WithBaseURL(s.opts.PublicURL+"/scim/v2"))
		if err != nil {
			return nil, nil, err
		}
		*h = http.StripPrefix("/scim", srv)
	}
	return served, probe, nil
}

// scimHandler answers every SCIM route through the protocol server: the
// request made into what it reads (scimRequest), a refused PATCH's answer
// naming the operation refused (scimNamedRefusal), and a successful
// answer rewritten where the library says less or otherwise than RFC 7644
// (scimResponse).
func (s *Server) scimHandler(c *gin.Context) {
	body, err := scimRequest(c.Request)
	if err != nil {
		c.Status(http.StatusBadRequest)
		return
	}
	rec := httptest.NewRecorder()
	s.scim.ServeHTTP(rec, c.Request)
	for k, vs := range rec.Header() {
		c.Writer.Header()[k] = vs
	}
	c.Writer.Header().Del("Content-Length") // the body may change
	out := rec.Body.Bytes()
	switch {
	case rec.Code == http.StatusBadRequest && c.Request.Method == http.MethodPatch:
		out = s.scimNamedRefusal(c.Request, body, out)
	case rec.Code < http.StatusMultipleChoices:
		out = scimResponse(c.Request, out)
	}
	c.Data(rec.Code, rec.Header().Get("Content-Type"), out)
}

// scimVersion is a resource's entity tag: it changes with every change.
func scimVersion(modified time.Time) string {
	return `W/"` + strconv.FormatInt(modified.UnixMicro(), 36) + `"`
}

// scimIfMatch refuses a change to a resource of another version than the
// request's If-Match.
func scimIfMatch(r *http.Request, modified time.Time) error {
	if match := r.Header.Get("If-Match"); match != "" && match != "*" && match != scimVersion(modified) {
		return errSCIMChanged
	}
	return nil
}

// errSCIMChanged: the resource changed since the version the client read.
var errSCIMChanged = scimerrors.ScimError{Detail: "The resource changed since the version in If-Match; read it again.",
	Status: http.StatusPreconditionFailed}

func scimBadRequest(detail string) error { return scimerrors.ScimErrorBadRequest(detail) }

// scimFail maps a catalog error to a SCIM one.
func (s *Server) scimFail(err error, id string) error {
	mistake, isMistake := invalid.As(err)
	switch {
	case isMistake && errors.Is(err, catalog.ErrExists):
		return scimerrors.ScimError{ScimType: scimerrors.ScimTypeUniqueness, Detail: mistake.Path + ": " + mistake.Message, Status: http.StatusConflict}
	case isMistake:
		return scimBadRequest(mistake.Path + ": " + mistake.Message)
	case errors.Is(err, catalog.ErrNotFound):
		return scimerrors.ScimErrorResourceNotFound(id)
	case errors.Is(err, catalog.ErrChanged):
		return errSCIMChanged
	}
	var scimErr scimerrors.ScimError
	if errors.As(err, &scimErr) {
		return err
	}
	s.deps.Logger.Error("scim", "err", err)
	return err
}

// scimPage is the page of resources that pass a list request's filter.
func scimPage(resources []scim.Resource, params scim.ListRequestParams) scim.Page {
	var matched []scim.Resource
	for _, res := range resources {
		if params.FilterValidator != nil {
			attrs := maps.Clone(res.Attributes)
			attrs["id"] = res.ID
			if res.ExternalID.Present() {
				attrs["externalId"] = res.ExternalID.Value()
			}
			if params.FilterValidator.PassesFilter(attrs) != nil {
				continue
			}
		}
		matched = append(matched, res)
	}
	page := scim.Page{TotalResults: len(matched), Resources: []scim.Resource{}}
	start := max(params.StartIndex, 1) - 1
	for i := start; i < len(matched) && len(page.Resources) < max(params.Count, 0); i++ {
		page.Resources = append(page.Resources, matched[i])
	}
	return page
}
