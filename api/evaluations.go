package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/access"
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
		CreatedOn: dates.Timestamp(f.CreatedOn), ModifiedOn: dates.Timestamp(f.ModifiedOn), Modules: def.Modules, CustomerTypes: def.CustomerTypes}, nil
}

// createForm is POST /Evaluations/Forms: name, description, modules (each
// with questions and their answer tags) and customer types.
func (s *Server) createForm(c *gin.Context) {
	body, ok := readBody(c)
	if !ok {
		return
	}
	name := body.Required("name")
	description := body.String("description")
	var def quality.Form
	if !body.Decode("modules", &def.Modules) && !body.Has("modules") {
		body.Fail("modules", "is required: the form's modules, each with its questions.")
	}
	var customerTypes []string
	body.Decode("customerTypes", &customerTypes)
	for _, ct := range customerTypes {
		def.CustomerTypes = append(def.CustomerTypes, quality.CustomerType{Name: strings.TrimSpace(ct)})
	}
	if p := body.Problem(); p != nil {
		problem.Write(c, p)
		return
	}
	if err := def.Prepare(catalog.NewID); err != nil {
		var fe *quality.FieldError
		errors.As(err, &fe)
		problem.Write(c, problem.Field(fe.Path, fe.Message, fe.Error()))
		return
	}
	definition, _ := json.Marshal(def)
	form, err := s.deps.Quality.CreateForm(c.Request.Context(), catalog.EvaluationForm{OrgID: orgID(c), Name: *name,
		Description: deref(description), Definition: definition})
	if err != nil {
		s.catalogError(c, err, "")
		return
	}
	view, _ := newFormView(form)
	c.JSON(http.StatusCreated, view)
}

// listForms is GET /Evaluations/Forms.
func (s *Server) listForms(c *gin.Context) {
	forms, err := s.deps.Quality.Forms(c.Request.Context(), orgID(c))
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	out := []formView{}
	for _, f := range forms {
		v, err := newFormView(f)
		if err != nil {
			problem.Write(c, s.internal(c, err))
			return
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, out)
}

const unknownForm = "No evaluation form with this id exists in your organization."

// getForm is GET /Evaluations/Forms/{id}.
func (s *Server) getForm(c *gin.Context) {
	id, ok := pathGUID(c, "id")
	if !ok {
		return
	}
	form, err := s.deps.Quality.Form(c.Request.Context(), orgID(c), id)
	if err != nil {
		s.catalogError(c, err, unknownForm)
		return
	}
	view, err := newFormView(form)
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	c.JSON(http.StatusOK, view)
}

// evaluationForm reads a form of the organization and its definition.
func (s *Server) evaluationForm(ctx context.Context, org, id string) (*quality.Form, error) {
	stored, err := s.deps.Quality.Form(ctx, org, id)
	if err != nil {
		return nil, err
	}
	var def quality.Form
	err = json.Unmarshal(stored.Definition, &def)
	return &def, err
}

// assignEvaluation is POST /Evaluations: an evaluation of a processed
// conversation on a form, by an analyst (a user, by id or user name), for
// an agent (the conversation's unless given).
func (s *Server) assignEvaluation(c *gin.Context) {
	body, ok := readBody(c)
	if !ok {
		return
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
		problem.Write(c, p)
		return
	}
	ctx, org := c.Request.Context(), orgID(c)
	if _, err := s.deps.Quality.Form(ctx, org, *formID); err != nil {
		s.catalogFieldError(c, err, "formId", "is not an evaluation form of your organization.")
		return
	}
	own, err := s.internalID(ctx, org, *conversationID)
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	it, err := s.deps.Interactions.Interaction(ctx, org, own)
	if err == nil && !reads(ctx).Allows(it.MediaType, it.HierarchyNodeID) {
		err = catalog.ErrNotFound
	}
	if err != nil {
		s.catalogFieldError(c, err, "conversationId", "is not a conversation of your organization.")
		return
	}
	if it.LakeRunID == nil {
		problem.Write(c, problem.Field("conversationId", "is not processed yet: a conversation is evaluated once it is ReadyToSample or Sampled.",
			"The conversation is not processed yet; assign its evaluation once it is ReadyToSample or Sampled."))
		return
	}
	user, err := s.activeUser(ctx, org, *analyst)
	if err != nil {
		s.catalogFieldError(c, err, "analyst", "is not an active user of your organization (give a user id or user name).")
		return
	}
	agent := it.AgentID
	if agentID != nil {
		if _, err := s.deps.People.Agent(ctx, org, *agentID); err != nil {
			s.catalogFieldError(c, err, "agentId", "is not an agent of your organization.")
			return
		}
		agent = agentID
	}
	e, err := s.deps.Quality.CreateEvaluation(ctx, catalog.Evaluation{OrgID: org, FormID: *formID, ConversationID: it.ID, AgentID: agent, AnalystID: user.ID})
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	s.writeEvaluation(c, http.StatusCreated, e)
}

// activeUser is the organization's active user with that user name or
// id (ErrNotFound when none is).
func (s *Server) activeUser(ctx context.Context, org, key string) (catalog.User, error) {
	u, err := s.deps.People.UserByName(ctx, org, key)
	if _, parseErr := uuid.Parse(key); errors.Is(err, catalog.ErrNotFound) && parseErr == nil {
		u, err = s.deps.People.User(ctx, org, key)
	}
	if err == nil && u.Disabled {
		err = catalog.ErrNotFound
	}
	return u, err
}

// catalogFieldError answers a reference that names nothing with a 400 on
// the field, and other errors as catalogError does.
func (s *Server) catalogFieldError(c *gin.Context, err error, field, message string) {
	if errors.Is(err, catalog.ErrNotFound) {
		problem.Write(c, problem.Field(field, message, "The "+field+" "+message))
		return
	}
	s.catalogError(c, err, "")
}

const unknownEvaluation = "No evaluation with this id exists in your organization."

// visibleEvaluation is an evaluation of the organization whose
// conversation the caller may read.
func (s *Server) visibleEvaluation(c *gin.Context) (catalog.Evaluation, bool) {
	id, ok := pathGUID(c, "id")
	if !ok {
		return catalog.Evaluation{}, false
	}
	ctx := c.Request.Context()
	list, err := s.deps.Quality.Evaluations(ctx, orgID(c), catalog.EvaluationFilter{IDs: []string{id}, Scope: reads(ctx), Limit: 1})
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return catalog.Evaluation{}, false
	}
	if len(list) == 0 {
		problem.Write(c, problem.New(http.StatusNotFound, unknownEvaluation))
		return catalog.Evaluation{}, false
	}
	return list[0], true
}

// getEvaluation is GET /Evaluations/{id}.
func (s *Server) getEvaluation(c *gin.Context) {
	if e, ok := s.visibleEvaluation(c); ok {
		s.writeEvaluation(c, http.StatusOK, e)
	}
}

// answerEvaluation is PUT /Evaluations/{id}/Answers: the answers so far
// (replacing earlier ones), the call summary and the customer type; the
// evaluation is then InProgress. A submitted evaluation is closed.
func (s *Server) answerEvaluation(c *gin.Context) {
	e, ok := s.visibleEvaluation(c)
	if !ok {
		return
	}
	body, ok := readBody(c)
	if !ok {
		return
	}
	var answers []quality.Answer
	body.Decode("answers", &answers)
	summary := body.String("callSummary")
	customerType := body.String("customerType")
	if p := body.Problem(); p != nil {
		problem.Write(c, p)
		return
	}
	if !body.Has("answers") {
		answers = nil
	} else if answers == nil {
		answers = []quality.Answer{}
	}
	s.changeEvaluation(c, e, func(form *quality.Form) (catalog.EvaluationChange, error) {
		return answerChange(form, answers, summary, customerType)
	})
}

// submitEvaluation is POST /Evaluations/{id}/Submit: Completed once every
// required question is answered, or NoValue ({"noValue": true}: the
// conversation could not be evaluated).
func (s *Server) submitEvaluation(c *gin.Context) {
	e, ok := s.visibleEvaluation(c)
	if !ok {
		return
	}
	noValue := false
	if c.Request.ContentLength != 0 {
		body, ok := readBody(c)
		if !ok {
			return
		}
		if v := body.Bool("noValue"); v != nil {
			noValue = *v
		}
		if p := body.Problem(); p != nil {
			problem.Write(c, p)
			return
		}
	}
	s.changeEvaluation(c, e, func(form *quality.Form) (catalog.EvaluationChange, error) {
		return submitChange(form, e, noValue)
	})
}

// changeEvaluation saves the change an evaluation's form gives, or
// answers why there is none.
func (s *Server) changeEvaluation(c *gin.Context, e catalog.Evaluation, changeOf func(*quality.Form) (catalog.EvaluationChange, error)) {
	ctx := c.Request.Context()
	if err := s.mayPerform(ctx, actorOf(ctx), e.ConversationID, e.AnalystID); err != nil {
		s.catalogError(c, err, unknownEvaluation)
		return
	}
	form, err := s.evaluationForm(ctx, orgID(c), e.FormID)
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	change, err := changeOf(form)
	if err != nil {
		writeQualityError(c, err)
		return
	}
	s.saveEvaluation(c, e.ID, change)
}

// mayPerform is nil when the actor may do QA work on a conversation that
// is assigned to the users assignees (none: anyone): the API's and the
// console's one check before an evaluation's answers or a workflow's level
// change. catalog.ErrNotFound when the conversation is out of reach.
func (s *Server) mayPerform(ctx context.Context, actor access.Actor, conversationID string, assignees ...string) error {
	if !actor.IsUser() {
		return nil
	}
	it, err := s.deps.Interactions.Interaction(ctx, actor.OrgID, conversationID)
	if err != nil {
		return err
	}
	if err := actor.RequireOn(access.PerformEvaluations, it.MediaType, it.HierarchyNodeID); err != nil {
		return err
	}
	return actor.RequireAssigned(assignees...)
}

// openStatuses are the statuses an evaluation's answers may change in.
var openStatuses = []string{catalog.EvaluationNotStarted, catalog.EvaluationInProgress}

// answerChange is the change that saves answers (all of them, replacing
// the earlier ones; nil keeps them), a call summary and a customer type
// (nil keeps them), with the scores the answers give; a mistake is a
// *quality.FieldError naming it.
func answerChange(form *quality.Form, answers []quality.Answer, summary, customerType *string) (catalog.EvaluationChange, error) {
	change := catalog.EvaluationChange{CallSummary: summary, Status: catalog.EvaluationInProgress, From: openStatuses}
	if customerType != nil {
		ct, ok := form.CustomerType(*customerType)
		if !ok {
			return change, &quality.FieldError{Path: "customerType", Message: "is not a customer type of the evaluation's form."}
		}
		change.CustomerTypeID = &ct.ID
	}
	if answers == nil {
		return change, nil
	}
	normalized, err := form.Normalize(answers)
	if err != nil {
		return change, err
	}
	scores := form.Score(normalized)
	change.Answers = make([]catalog.EvaluationAnswer, 0, len(normalized))
	for _, a := range normalized {
		module, question, _ := form.Question(a.QuestionID)
		stored := catalog.EvaluationAnswer{QuestionID: a.QuestionID, AnswerID: catalog.NewID(), ModuleID: module.ID, ModuleName: module.Name,
			QuestionText: question.Text, Category: question.Category, Weight: question.Weight, TagIDs: a.TagIDs,
			TagValues: question.TagValues(a.TagIDs), FillIn: a.FillIn, Note: a.Note}
		if ws, ok := scores.Questions[a.QuestionID]; ok {
			stored.WeightedScore = &ws
		}
		change.Answers = append(change.Answers, stored)
	}
	change.Score = &scores.Overall
	return change, nil
}

// submitChange is the change that submits an evaluation: Completed once
// every required question is answered (else a *quality.FieldError naming
// the open ones), or NoValue.
func submitChange(form *quality.Form, e catalog.Evaluation, noValue bool) (catalog.EvaluationChange, error) {
	if noValue {
		return catalog.EvaluationChange{Status: catalog.EvaluationNoValue, From: openStatuses, Submitted: true}, nil
	}
	if missing := form.Unanswered(answersOf(e)); len(missing) > 0 && slices.Contains(openStatuses, e.Status) {
		return catalog.EvaluationChange{}, &quality.FieldError{Path: "answers", Message: "must answer the required questions: " + strings.Join(missing, "; ")}
	}
	return catalog.EvaluationChange{Status: catalog.EvaluationCompleted, From: openStatuses, Submitted: true}, nil
}

// answersOf are an evaluation's stored answers as package quality reads
// them.
func answersOf(e catalog.Evaluation) []quality.Answer {
	out := make([]quality.Answer, len(e.Answers))
	for i, a := range e.Answers {
		out[i] = quality.Answer{QuestionID: a.QuestionID, TagIDs: a.TagIDs, FillIn: a.FillIn, Note: a.Note}
	}
	return out
}

// saveEvaluation applies a change and answers the evaluation; a closed
// one is a 409.
func (s *Server) saveEvaluation(c *gin.Context, id string, change catalog.EvaluationChange) {
	e, err := s.deps.Quality.SaveEvaluation(c.Request.Context(), orgID(c), id, change)
	switch {
	case errors.Is(err, catalog.ErrEvaluationClosed):
		problem.Write(c, problem.New(http.StatusConflict, "The evaluation was already submitted; its answers can no longer change."))
	case err != nil:
		s.catalogError(c, err, unknownEvaluation)
	default:
		s.writeEvaluation(c, http.StatusOK, e)
	}
}
