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

// pathGUID reads a GUID path parameter, or the 400 when it is not one.
func pathGUID(c *gin.Context, name string) (string, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return "", problem.Field(name, "must be a GUID.", "The "+name+" in the path must be a GUID.")
	}
	return id.String(), nil
}

// boolQuery reads an optional true/false query parameter (IsActive).
func boolQuery(c *gin.Context, name string) (*bool, error) {
	v, ok := query(c, name)
	if !ok || v == "" {
		return nil, nil
	}
	switch strings.ToLower(v) {
	case "true":
		b := true
		return &b, nil
	case "false":
		b := false
		return &b, nil
	}
	return nil, problem.Field(name, "must be true or false.", "The query parameter "+name+" must be true or false.")
}

// handle adapts an operation's handler, which answers or returns its
// error; answerError answers that, the one way for every operation.
func (s *shared) handle(h func(c *gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			s.answerError(c, err)
		}
	}
}

// answerError answers a handler's error: a problem as it is, a refusal a
// 403 with its sentence, an input mistake (*invalid.Field) a 400 naming
// its field, anything else a 500 (logged with the trace id).
func (s *shared) answerError(c *gin.Context, err error) {
	var p *problem.Problem
	var refused *access.Refused
	mistake, isMistake := invalid.As(err)
	switch {
	case errors.As(err, &p):
	case errors.As(err, &refused):
		p = refusal(refused)
	case isMistake:
		p = problem.Mistake(mistake)
	default:
		p = s.internal(c, err)
	}
	problem.Write(c, p)
}

// missing is err with a missing row as a 404 with notFound as detail: the
// same whether the id is unknown, another organization's or out of the
// caller's reach.
func missing(err error, notFound string) error {
	if _, isMistake := invalid.As(err); !isMistake && errors.Is(err, catalog.ErrNotFound) {
		return problem.New(http.StatusNotFound, notFound)
	}
	return err
}

// listActive answers a list operation with an IsActive filter: the
// organization's rows, each as its view. A non-empty emptyDetail makes an
// empty list a 404 (as /Agent/All wants); otherwise it is 200 [].
func listActive[R, V any](c *gin.Context, load func(ctx context.Context, orgID string, active *bool) ([]R, error),
	view func(R) V, emptyDetail string) error {
	active, err := boolQuery(c, "IsActive")
	if err != nil {
		return err
	}
	rows, err := load(c.Request.Context(), orgID(c), active)
	if err != nil {
		return missing(err, "")
	}
	if len(rows) == 0 && emptyDetail != "" {
		return problem.New(http.StatusNotFound, emptyDetail)
	}
	writeViews(c, rows, view)
	return nil
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
func getByID[R, V any](c *gin.Context, load func(ctx context.Context, orgID, id string) (R, error),
	view func(R) V, notFound string) error {
	id, err := pathGUID(c, "id")
	if err != nil {
		return err
	}
	row, err := load(c.Request.Context(), orgID(c), id)
	if err != nil {
		return missing(err, notFound)
	}
	c.JSON(http.StatusOK, view(row))
	return nil
}

// readBody reads a JSON object body, or the 400 or 413 when it is none.
func readBody(c *gin.Context) (*reqbody.Object, error) {
	body, p := reqbody.Read(c)
	if p != nil {
		return nil, p
	}
	return body, nil
}

// readUpdate reads the GUID path id and the JSON body of an update
// (PUT or PATCH /X/{id}); a bad one is the problem to answer.
func readUpdate(c *gin.Context) (string, *reqbody.Object, error) {
	id, err := pathGUID(c, "id")
	if err != nil {
		return "", nil, err
	}
	body, err := readBody(c)
	return id, body, err
}

// internal logs an unexpected error and returns the 500 to answer with;
// an outage (a full disk, a catalog out of reach) is a 503 that says so,
// with when to retry.
func (s *shared) internal(c *gin.Context, err error) *problem.Problem {
	if p := outage(err); p != nil {
		s.deps.Logger.Warn("unavailable", "err", err, "route", c.FullPath(), "request_id", c.GetString(problem.TraceIDKey))
		return p
	}
	s.deps.Logger.Error("internal error", "err", err, "route", c.FullPath(), "request_id", c.GetString(problem.TraceIDKey))
	return problem.New(http.StatusInternalServerError, "The server could not complete this request; report the traceId to the operator.")
}
