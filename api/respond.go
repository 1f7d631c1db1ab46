package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/api/tenant"
	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/warehouse/catalog"
)

// orgID is the caller's organization; every catalog call of a handler
// passes it.
func orgID(c *gin.Context) string {
	p, _ := tenant.From(c.Request.Context())
	return p.OrgID
}

// pathGUID reads a GUID path parameter, answering 400 when it is not one.
func pathGUID(c *gin.Context, name string) (string, bool) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		problem.Write(c, problem.Field(name, "must be a GUID.", "The "+name+" in the path must be a GUID."))
		return "", false
	}
	return id.String(), true
}

// boolQuery reads an optional true/false query parameter (IsActive).
func boolQuery(c *gin.Context, name string) (*bool, bool) {
	v, ok := query(c, name)
	if !ok || v == "" {
		return nil, true
	}
	switch strings.ToLower(v) {
	case "true":
		b := true
		return &b, true
	case "false":
		b := false
		return &b, true
	}
	problem.Write(c, problem.Field(name, "must be true or false.", "The query parameter "+name+" must be true or false."))
	return nil, false
}

// writeError answers a use case's or the catalog's error, the one way
// every handler does: a refusal is a 403 with its sentence, an input
// mistake (*invalid.Field) a 400 naming its field, a missing row a 404
// with notFound as detail (the same whether the id is unknown, another
// organization's or out of the caller's reach), anything else a 500.
func (s *shared) writeError(c *gin.Context, err error, notFound string) {
	var refused *access.Refused
	mistake, isMistake := invalid.As(err)
	switch {
	case errors.As(err, &refused):
		refuse(c, refused)
	case isMistake:
		problem.Write(c, problem.Mistake(mistake))
	case errors.Is(err, catalog.ErrNotFound):
		problem.Write(c, problem.New(http.StatusNotFound, notFound))
	default:
		problem.Write(c, s.internal(c, err))
	}
}

// listActive answers a list operation with an IsActive filter: the
// organization's rows, each as its view. A non-empty emptyDetail makes an
// empty list a 404 (as /Agent/All wants); otherwise it is 200 [].
func listActive[R, V any](s *shared, c *gin.Context, load func(ctx context.Context, orgID string, active *bool) ([]R, error),
	view func(R) V, emptyDetail string) {
	active, ok := boolQuery(c, "IsActive")
	if !ok {
		return
	}
	rows, err := load(c.Request.Context(), orgID(c), active)
	if err != nil {
		s.writeError(c, err, "")
		return
	}
	if len(rows) == 0 && emptyDetail != "" {
		problem.Write(c, problem.New(http.StatusNotFound, emptyDetail))
		return
	}
	writeViews(c, rows, view)
}

// writeViews answers 200 with the rows as their views (a bare array, [] when
// empty).
func writeViews[R, V any](c *gin.Context, rows []R, view func(R) V) {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = view(r)
	}
	c.JSON(http.StatusOK, out)
}

// getByID answers GET /X/{id}: 400 for an id that is not a GUID, 404 (with
// notFound) for an id the organization does not have.
func getByID[R, V any](s *shared, c *gin.Context, load func(ctx context.Context, orgID, id string) (R, error),
	view func(R) V, notFound string) {
	id, ok := pathGUID(c, "id")
	if !ok {
		return
	}
	row, err := load(c.Request.Context(), orgID(c), id)
	if err != nil {
		s.writeError(c, err, notFound)
		return
	}
	c.JSON(http.StatusOK, view(row))
}

// readBody reads a JSON object body, answering 400 or 413 when it is none.
func readBody(c *gin.Context) (*reqbody.Object, bool) {
	body, p := reqbody.Read(c)
	if p != nil {
		problem.Write(c, p)
		return nil, false
	}
	return body, true
}

// readUpdate reads the GUID path id and the JSON body of an update
// (PUT or PATCH /X/{id}), answering the error itself when either is bad.
func readUpdate(c *gin.Context) (string, *reqbody.Object, bool) {
	id, ok := pathGUID(c, "id")
	if !ok {
		return "", nil, false
	}
	body, ok := readBody(c)
	return id, body, ok
}

// internal logs an unexpected error and returns the 500 to answer with.
func (s *shared) internal(c *gin.Context, err error) *problem.Problem {
	s.deps.Logger.Error("internal error", "err", err, "route", c.FullPath(), "request_id", c.GetString(problem.TraceIDKey))
	return problem.New(http.StatusInternalServerError, "The server could not complete this request; report the traceId to the operator.")
}
