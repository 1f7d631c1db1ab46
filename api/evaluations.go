package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Quality evaluations: forms [extension], evaluations assigned, answered
// and submitted through extension operations, and the vendor's two GETs
// (evaluations.go views them, evaluationviews.go lays them out).

// formView is a form as the extension operations show it.
type formView struct {
	ID            string                 `json:"id"`
	Name          string                 `json:"name"`
	Description   string                 `json:"description"`
	IsActive      bool                   `json:"isActive"`
	CreatedOn     dates.Timestamp        `json:"createdOn"`
	ModifiedOn    dates.Timestamp        `json:"modifiedOn"`
	Modules       []quality.Module       `json:"modules"`
	CustomerTypes []quality.CustomerType `json:"customerTypes"`
	AutoScore     bool                   `json:"autoScore"`
}

func newFormView(f catalog.EvaluationForm) (formView, error) {
	var def quality.Form
	if err := json.Unmarshal(f.Definition, &def); err != nil {
		return formView{}, err
	}
	if def.CustomerTypes == nil { // a form without customer types lists none (the document's array is not nullable)
		def.CustomerTypes = []quality.CustomerType{}
	}
	return formView{ID: f.ID, Name: f.Name, Description: f.Description, IsActive: f.IsActive,
		CreatedOn: dates.Timestamp(f.CreatedOn), ModifiedOn: dates.Timestamp(f.ModifiedOn), Modules: def.Modules, CustomerTypes: def.CustomerTypes,
		AutoScore: def.AutoScore}, nil
}

// createForm is POST /Evaluations/Forms: name, description, modules (each
// with questions and their answer tags, a question maybe bound to
// classifiers), customer types, and autoScore.
func (s *qualityAPI) createForm(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	name := body.Required("name")
	description := body.String("description")
	var def quality.Form
	if !body.Decode("modules", &def.Modules) && !body.Has("modules") {
		body.Fail("modules", "is required: the form's modules, each with its questions.")
	}
	if auto := body.Bool("autoScore"); auto != nil {
		def.AutoScore = *auto
	}
	var customerTypes []string
	body.Decode("customerTypes", &customerTypes)
	for _, ct := range customerTypes {
		def.CustomerTypes = append(def.CustomerTypes, quality.CustomerType{Name: strings.TrimSpace(ct)})
	}
	if p := body.Problem(); p != nil {
		return p
	}
	form, err := s.qa.CreateForm(c.Request.Context(), actorOf(c.Request.Context()), *name, deref(description), def)
	if err != nil {
		return missing(err, "")
	}
	view, _ := newFormView(form)
	c.JSON(http.StatusCreated, view)
	return nil
}

// listForms is GET /Evaluations/Forms.
func (s *qualityAPI) listForms(c *gin.Context) error {
	forms, err := s.deps.Quality.Forms(c.Request.Context(), orgID(c))
	if err != nil {
		return err
	}
	out := []formView{}
	for _, f := range forms {
		v, err := newFormView(f)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, out)
	return nil
}

const unknownForm = "No evaluation form with this id exists in your organization."

// getForm is GET /Evaluations/Forms/{id}.
func (s *qualityAPI) getForm(c *gin.Context) error {
	id, err := pathGUID(c, "id")
	if err != nil {
		return err
	}
	form, err := s.deps.Quality.Form(c.Request.Context(), orgID(c), id)
	if err != nil {
		return missing(err, unknownForm)
	}
	view, err := newFormView(form)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, view)
	return nil
}

// assignEvaluation is POST /Evaluations: an evaluation of a processed
// conversation on a form, by an analyst (a user, by id or user name), for
// an agent (the conversation's unless given).
func (s *qualityAPI) assignEvaluation(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	formID := body.GUID("formId")
	conversationID := body.GUID("conversationId")
	analyst := body.Required("analyst")
	agentID := body.GUID("agentId")
	for field, v := range map[string]*string{"formId": formID, "conversationId": conversationID} {
		if v == nil && !body.Has(field) {
			body.Fail(field, "is required.")
		}
	}
	if p := body.Problem(); p != nil {
		return p
	}
	ctx, org := c.Request.Context(), orgID(c)
	own, err := s.internalID(ctx, org, *conversationID)
	if err != nil {
		return err
	}
	e, err := s.qa.Assign(ctx, actorOf(ctx), qa.NewAssignment{FormID: *formID, ConversationID: own, Analyst: *analyst, AgentID: agentID})
	if err != nil {
		return err
	}
	return s.writeEvaluation(c, http.StatusCreated, e)
}

// activeUser is the organization's active user with that user name or
// id (ErrNotFound when none is): qa.Service.ActiveUser.
func (s *shared) activeUser(ctx context.Context, org, key string) (catalog.User, error) {
	return s.qa.ActiveUser(ctx, org, key)
}

// fieldNotFound is a reference that names nothing as a 400 on the field;
// other errors stay as they are.
func fieldNotFound(err error, field, message string) error {
	if errors.Is(err, catalog.ErrNotFound) {
		return problem.Field(field, message, "The "+field+" "+message)
	}
	return missing(err, "")
}

const unknownEvaluation = "No evaluation with this id exists in your organization."

// visibleEvaluation is an evaluation of the organization whose
// conversation the caller may read.
func (s *qualityAPI) visibleEvaluation(c *gin.Context) (catalog.Evaluation, error) {
	id, err := pathGUID(c, "id")
	if err != nil {
		return catalog.Evaluation{}, err
	}
	ctx := c.Request.Context()
	e, _, err := s.qa.Evaluation(ctx, actorOf(ctx), id)
	if err != nil {
		return catalog.Evaluation{}, evaluationError(err)
	}
	return e, nil
}

// getEvaluation is GET /Evaluations/{id}.
func (s *qualityAPI) getEvaluation(c *gin.Context) error {
	e, err := s.visibleEvaluation(c)
	if err != nil {
		return err
	}
	return s.writeEvaluation(c, http.StatusOK, e)
}

// answerEvaluation is PUT /Evaluations/{id}/Answers: the answers so far
// (replacing earlier ones), the call summary and the customer type; the
// evaluation is then InProgress. A submitted evaluation is closed.
func (s *qualityAPI) answerEvaluation(c *gin.Context) error {
	e, err := s.visibleEvaluation(c) // an unknown id is a 404 whatever the body
	if err != nil {
		return err
	}
	id := e.ID
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var in qa.Answers
	body.Decode("answers", &in.Answers)
	in.Summary = body.String("callSummary")
	in.CustomerType = body.String("customerType")
	if p := body.Problem(); p != nil {
		return p
	}
	if !body.Has("answers") {
		in.Answers = nil
	} else if in.Answers == nil {
		in.Answers = []quality.Answer{}
	}
	ctx := c.Request.Context()
	return s.writeSavedEvaluation(c, func() (catalog.Evaluation, error) { return s.qa.Answer(ctx, actorOf(ctx), id, in) })
}

// submitEvaluation is POST /Evaluations/{id}/Submit: Completed once every
// required question is answered, or NoValue ({"noValue": true}: the
// conversation could not be evaluated).
func (s *qualityAPI) submitEvaluation(c *gin.Context) error {
	e, err := s.visibleEvaluation(c) // an unknown id is a 404 whatever the body
	if err != nil {
		return err
	}
	id := e.ID
	noValue := false
	if c.Request.ContentLength != 0 {
		body, err := readBody(c)
		if err != nil {
			return err
		}
		if v := body.Bool("noValue"); v != nil {
			noValue = *v
		}
		if p := body.Problem(); p != nil {
			return p
		}
	}
	ctx := c.Request.Context()
	return s.writeSavedEvaluation(c, func() (catalog.Evaluation, error) { return s.qa.Submit(ctx, actorOf(ctx), id, noValue) })
}

// reviewEvaluation is PUT /Evaluations/{id}/Review: a reviewer confirms
// or overrides answers the classifiers gave in an Auto evaluation
// ({"answers": [{"questionId", "tagIds"}]}); the evaluation is rescored.
func (s *qualityAPI) reviewEvaluation(c *gin.Context) error {
	e, err := s.visibleEvaluation(c) // an unknown id is a 404 whatever the body
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var answers []quality.Answer
	if !body.Decode("answers", &answers) && !body.Has("answers") {
		body.Fail("answers", "is required: the answers reviewed, each a questionId and the tagIds chosen.")
	}
	if p := body.Problem(); p != nil {
		return p
	}
	ctx := c.Request.Context()
	return s.writeSavedEvaluation(c, func() (catalog.Evaluation, error) { return s.qa.Review(ctx, actorOf(ctx), e.ID, answers) })
}

// agreementView is how often people agreed with the classifiers on one
// bound question of a form.
type agreementView struct {
	QuestionID    string   `json:"questionId"`
	QuestionText  string   `json:"questionText"`
	Compared      int      `json:"compared"`
	Agreed        int      `json:"agreed"`
	Reviews       int      `json:"reviews"`
	AgreementRate *float64 `json:"agreementRate"` // null until a person answered
}

// formAgreement is GET /Evaluations/Forms/{id}/Agreement: per bound
// question, the agreement between the classifiers' answers and people's.
func (s *qualityAPI) formAgreement(c *gin.Context) error {
	id, err := pathGUID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	list, err := s.qa.Agreement(ctx, actorOf(ctx), id)
	if err != nil {
		return missing(err, unknownForm)
	}
	out := make([]agreementView, len(list))
	for i, q := range list {
		out[i] = agreementView{QuestionID: q.QuestionID, QuestionText: q.QuestionText, Compared: q.Compared, Agreed: q.Agreed, Reviews: q.Reviews}
		if q.Compared > 0 {
			rate := q.Rate()
			out[i].AgreementRate = &rate
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// writeSavedEvaluation answers an evaluation's change: the evaluation as
// it now is, or why it did not change.
func (s *qualityAPI) writeSavedEvaluation(c *gin.Context, save func() (catalog.Evaluation, error)) error {
	e, err := save()
	if err != nil {
		return evaluationError(err)
	}
	return s.writeEvaluation(c, http.StatusOK, e)
}

// evaluationError is a quality use case's error as answered: a closed
// evaluation is a 409, an unknown one a 404.
func evaluationError(err error) error {
	switch {
	case errors.Is(err, qa.ErrClosed):
		return problem.New(http.StatusConflict, "The evaluation was already submitted; its answers can no longer change.")
	case errors.Is(err, qa.ErrNotAuto):
		return problem.New(http.StatusConflict, "The evaluation is a person's; only the answers of an Auto evaluation are reviewed.")
	case errors.Is(err, qa.ErrAuto):
		return problem.New(http.StatusConflict, "The evaluation is answered by classifiers; review its answers with PUT /Evaluations/{id}/Review.")
	default:
		return missing(err, unknownEvaluation)
	}
}
