package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/warehouse/catalog"
)

// classifierItem is a classifier as GET /Conversations/Classifiers lists
// it (CONTRACT §6).
type classifierItem struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	ClassifierType string `json:"classifierType"`
	Description    string `json:"description"`
	CategoryName   string `json:"categoryName"`
	Reportable     bool   `json:"reportable"`
	Groupable      bool   `json:"groupable"`
}

// classifierView is the management extension's full classifier.
type classifierView struct {
	classifierItem
	IsActive   bool            `json:"isActive"`
	Version    int             `json:"version"`
	Definition json.RawMessage `json:"definition"`
	CreatedOn  dates.Timestamp `json:"createdOn"`
	ModifiedOn dates.Timestamp `json:"modifiedOn"`
}

func newClassifierItem(c catalog.Classifier) classifierItem {
	return classifierItem{ID: c.ID, Name: c.Name, ClassifierType: c.Type, Description: c.Description,
		CategoryName: c.CategoryName, Reportable: c.Reportable, Groupable: c.Groupable}
}

func newClassifierView(c catalog.Classifier) classifierView {
	return classifierView{classifierItem: newClassifierItem(c), IsActive: c.IsActive, Version: c.Version,
		Definition: c.Definition, CreatedOn: dates.Timestamp(c.CreatedOn), ModifiedOn: dates.Timestamp(c.ModifiedOn)}
}

const classifierNotFound = "No classifier with this id exists in your organization."

// listClassifiers is GET /Conversations/Classifiers: the organization's
// active classifiers by id, PageSize (1–1000, default 100) after LastId,
// filtered by CategoryNames and ClassifierTypes (CSV, any casing).
func (s *classifiersAPI) listClassifiers(c *gin.Context) error {
	get, errs := queryParams(c), fieldErrors{}
	f := catalog.ClassifierFilter{ActiveOnly: true, Limit: errs.pageSize(get, "PageSize"), LastID: errs.guid(get, "LastId"),
		Categories: errs.values(get, "CategoryNames", analysis.Categories), Types: errs.values(get, "ClassifierTypes", analysis.Types)}
	if p := errs.problem(); p != nil {
		return p
	}
	list, err := s.deps.Classifiers.Classifiers(c.Request.Context(), orgID(c), f)
	if err != nil {
		return missing(err, "")
	}
	writeViews(c, list, newClassifierItem)
	return nil
}

// getClassifier is GET /Conversations/Classifiers/{id}.
func (s *classifiersAPI) getClassifier(c *gin.Context) error {
	return getByID(c, s.deps.Classifiers.Classifier, newClassifierView, classifierNotFound)
}

// readClassifierInput reads the fields of POST and PUT; on POST the
// descriptive fields are required.
func readClassifierInput(body *reqbody.Object, create bool) catalog.ClassifierInput {
	in := catalog.ClassifierInput{Description: body.String("description"), Reportable: body.Bool("reportable"),
		Groupable: body.Bool("groupable"), IsActive: body.Bool("isActive")}
	if create {
		in.Name = body.Required("name")
	} else {
		in.Name = body.NotBlank("name")
	}
	for _, f := range []struct {
		name    string
		allowed []string
		dst     **string
	}{{"classifierType", analysis.Types, &in.Type}, {"categoryName", analysis.Categories, &in.CategoryName}} {
		v := body.String(f.name)
		switch {
		case v == nil && create:
			body.Fail(f.name, "is required: one of "+strings.Join(f.allowed, ", ")+".")
		case v != nil && oneOf(*v, f.allowed) == "":
			body.Fail(f.name, "must be one of "+strings.Join(f.allowed, ", ")+".")
		case v != nil:
			canonical := oneOf(*v, f.allowed)
			*f.dst = &canonical
		}
	}
	switch body.Kind("definition") {
	case "object":
		var raw json.RawMessage
		body.Decode("definition", &raw)
		in.Definition = raw
	case "":
		if create {
			body.Fail("definition", "is required: the classifier's definition, an object.")
		}
	default:
		body.Fail("definition", "must be an object.")
	}
	return in
}

// createClassifier is POST /Conversations/Classifiers: version 1 of a new
// classifier, its definition checked for its type.
func (s *classifiersAPI) createClassifier(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	in := readClassifierInput(body, true)
	if in.Reportable == nil {
		in.Reportable = ptrTo(true)
	}
	if in.Groupable == nil {
		in.Groupable = ptrTo(false)
	}
	if in.Description == nil {
		in.Description = ptrTo("")
	}
	return s.writeClassifier(c, body, http.StatusCreated, func(ctx context.Context) (catalog.Classifier, error) {
		return s.authoring.Create(ctx, actorOf(ctx), in)
	})
}

// updateClassifier is PUT /Conversations/Classifiers/{id}: the fields
// given change, and the classifier gets a new version.
func (s *classifiersAPI) updateClassifier(c *gin.Context) error {
	id, body, err := readUpdate(c)
	if err != nil {
		return err
	}
	in := readClassifierInput(body, false)
	return s.writeClassifier(c, body, http.StatusOK, func(ctx context.Context) (catalog.Classifier, error) {
		return s.authoring.Update(ctx, actorOf(ctx), id, in)
	})
}

// writeClassifier answers a classifier's write: the classifier, or a 400
// whose errors name the path inside a definition that does not fit its
// type.
func (s *classifiersAPI) writeClassifier(c *gin.Context, body *reqbody.Object, status int, write func(context.Context) (catalog.Classifier, error)) error {
	if p := body.Problem(); p != nil {
		return p
	}
	cl, err := write(c.Request.Context())
	switch {
	case err != nil:
		return missing(err, classifierNotFound)
	default:
		c.JSON(status, newClassifierView(cl))
	}
	return nil
}

// deleteClassifier is DELETE /Conversations/Classifiers/{id}: it stops
// running and leaves the lists; its past results stay explainable.
func (s *classifiersAPI) deleteClassifier(c *gin.Context) error {
	id, err := pathGUID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	if err := s.authoring.Delete(ctx, actorOf(ctx), id); err != nil {
		return missing(err, classifierNotFound)
	}
	c.Status(http.StatusNoContent)
	return nil
}

func ptrTo[T any](v T) *T { return &v }
