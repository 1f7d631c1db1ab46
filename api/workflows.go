package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Review workflows: templates [extension], workflows started by QA
// sampling or by a request and advanced level by level [extension], and
// the vendor's GET /Workflows.

// workflowView is a workflow as GET /Workflows shapes it, with templateId,
// currentLevel and createdOn added.
type workflowView struct {
	// InteractionID is the conversation's id [decided]: Earshot has one id
	// per conversation, usable with every other operation.
	InteractionID    string              `json:"interactionId"`
	EvaluationNumber int                 `json:"evaluationNumber"` // 0 when no evaluation started it
	WorkflowID       string              `json:"workflowId"`
	WorkflowType     string              `json:"workflowType"`
	WorkflowName     string              `json:"workflowName"`
	WorkflowStatus   string              `json:"workflowStatus"`
	Levels           []workflowLevelView `json:"levels"`
	BossModule       quality.BossModule  `json:"bossModule"`
	TemplateID       string              `json:"templateId"`
	CurrentLevel     *int                `json:"currentLevel"` // null once closed
	CreatedOn        dates.Timestamp     `json:"createdOn"`
}

// workflowLevelView is a level: its assignees and, once completed, who
// completed it, how and with what notes (users by user name).
type workflowLevelView struct {
	Level     int      `json:"level"`
	Assignees []string `json:"assignees"`
	Completer *string  `json:"completer"`
	DomainID  *string  `json:"domainId"`
	Outcome   *string  `json:"outcome"`
	Notes     *string  `json:"notes"`
}

// templateView is a workflow template as the extension operations show it.
type templateView struct {
	ID             string             `json:"id"`
	Name           string             `json:"name"`
	WorkflowType   string             `json:"workflowType"`
	StartOnSampled bool               `json:"startOnSampled"`
	CreatedOn      dates.Timestamp    `json:"createdOn"`
	Levels         []quality.Level    `json:"levels"` // assignees by user name
	BossModule     quality.BossModule `json:"bossModule"`
}

// workflowViewOf is a workflow's view.
func workflowViewOf(w qa.WorkflowView) workflowView {
	v := workflowView{InteractionID: w.Conversation, EvaluationNumber: w.EvaluationNumber, WorkflowID: w.ID, WorkflowType: w.Template.WorkflowType,
		WorkflowName: w.Template.Name, WorkflowStatus: w.Status, Levels: []workflowLevelView{}, BossModule: w.BossModule,
		TemplateID: w.TemplateID, CreatedOn: dates.Timestamp(w.CreatedOn)}
	if w.Status == catalog.WorkflowOpen {
		v.CurrentLevel = &w.CurrentLevel
	}
	for _, l := range w.Levels {
		lv := workflowLevelView{Level: l.Level, Assignees: l.Assignees}
		if l.Done {
			lv.Completer, lv.Outcome, lv.Notes = &l.Completer, &l.Outcome, &l.Notes
		}
		v.Levels = append(v.Levels, lv)
	}
	return v
}

func (s *qualityAPI) writeWorkflow(c *gin.Context, status int, w catalog.Workflow) error {
	views, err := s.qa.WorkflowViews(c.Request.Context(), orgID(c), []catalog.Workflow{w})
	if err != nil {
		return err
	}
	c.JSON(status, workflowViewOf(views[0]))
	return nil
}

// createTemplate is POST /Workflows/Templates: a name, a type, levels
// (each with assignees: user names or ids), a boss module, and whether QA
// sampling starts one for each sampled conversation.
func (s *qualityAPI) createTemplate(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	name := body.Required("name")
	typ := body.NotBlank("workflowType")
	var def quality.Workflow
	if !body.Decode("levels", &def.Levels) && !body.Has("levels") {
		body.Fail("levels", "is required: the levels, each with its assignees (user names or ids; none = anyone).")
	}
	body.Decode("bossModule", &def.BossModule)
	onSampled := body.Bool("startOnSampled")
	if p := body.Problem(); p != nil {
		return p
	}
	in := qa.NewTemplate{Name: *name, Definition: def, StartOnSampled: deref(onSampled)}
	if typ != nil {
		in.Type = *typ
	}
	t, err := s.qa.CreateTemplate(c.Request.Context(), actorOf(c.Request.Context()), in)
	if err != nil {
		return missing(err, "")
	}
	return s.writeTemplate(c, http.StatusCreated, t)
}

func (s *qualityAPI) writeTemplate(c *gin.Context, status int, t catalog.WorkflowTemplate) error {
	names, err := s.qa.UserNames(c.Request.Context(), orgID(c))
	var v templateView
	if err == nil {
		v, err = templateViewOf(t, names)
	}
	if err != nil {
		return err
	}
	c.JSON(status, v)
	return nil
}

// templateViewOf is a template's view, its assignees by user name.
func templateViewOf(t catalog.WorkflowTemplate, names qa.Names) (templateView, error) {
	var def quality.Workflow
	if err := json.Unmarshal(t.Definition, &def); err != nil {
		return templateView{}, err
	}
	for i := range def.Levels {
		def.Levels[i].Assignees = names.Of(def.Levels[i].Assignees)
	}
	return templateView{ID: t.ID, Name: t.Name, WorkflowType: t.WorkflowType, StartOnSampled: t.StartOnSampled,
		CreatedOn: dates.Timestamp(t.CreatedOn), Levels: def.Levels, BossModule: def.BossModule}, nil
}

// listTemplates is GET /Workflows/Templates.
func (s *qualityAPI) listTemplates(c *gin.Context) error {
	list, err := s.deps.Workflows.Templates(c.Request.Context(), orgID(c))
	if err != nil {
		return err
	}
	names, err := s.qa.UserNames(c.Request.Context(), orgID(c))
	views := make([]templateView, len(list))
	for i, t := range list {
		if err == nil {
			views[i], err = templateViewOf(t, names)
		}
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, views)
	return nil
}

// startWorkflow is POST /Workflows: a workflow of a template over a
// processed conversation, or over a Completed evaluation (which becomes
// PendingReview until the workflow closes).
func (s *qualityAPI) startWorkflow(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	templateID := body.GUID("templateId")
	conversationID := body.GUID("conversationId")
	evaluationID := body.GUID("evaluationId")
	if templateID == nil && !body.Has("templateId") {
		body.Fail("templateId", "is required.")
	}
	if (conversationID == nil) == (evaluationID == nil) && !body.Has("conversationId") && !body.Has("evaluationId") {
		body.Fail("conversationId", "or evaluationId is required (one of them).")
	}
	if p := body.Problem(); p != nil {
		return p
	}
	ctx, org := c.Request.Context(), orgID(c)
	in := qa.NewWorkflow{TemplateID: *templateID, EvaluationID: evaluationID}
	if evaluationID == nil {
		own, err := s.internalID(ctx, org, *conversationID)
		if err != nil {
			return err
		}
		in.ConversationID = &own
	}
	started, err := s.qa.StartWorkflow(ctx, actorOf(ctx), in)
	switch {
	case errors.Is(err, catalog.ErrWorkflowExists):
		return problem.New(http.StatusConflict, "The conversation already has a workflow of this template.")
	case errors.Is(err, catalog.ErrEvaluationClosed):
		return problem.New(http.StatusConflict, "A workflow reviews a Completed evaluation; this one is not Completed (or is already under review).")
	case err != nil:
		return err
	default:
		return s.writeWorkflow(c, http.StatusCreated, started)
	}
}

const unknownWorkflow = "No workflow with this id exists in your organization."

// visibleWorkflow is a workflow whose conversation the caller may read.
func (s *qualityAPI) visibleWorkflow(c *gin.Context) (catalog.Workflow, error) {
	id, err := pathGUID(c, "id")
	if err != nil {
		return catalog.Workflow{}, err
	}
	ctx := c.Request.Context()
	w, err := s.qa.Workflow(ctx, actorOf(ctx), id)
	if err != nil {
		return catalog.Workflow{}, missing(err, unknownWorkflow)
	}
	return w, nil
}

// getWorkflow is GET /Workflows/{id}.
func (s *qualityAPI) getWorkflow(c *gin.Context) error {
	w, err := s.visibleWorkflow(c)
	if err != nil {
		return err
	}
	return s.writeWorkflow(c, http.StatusOK, w)
}

// advanceWorkflow is POST /Workflows/{id}/Advance: the current level
// completed by one of its assignees (completer: a user name or id), with
// an outcome ("Close Workflow" ends it early), notes, and at the last
// level the boss module's answers.
func (s *qualityAPI) advanceWorkflow(c *gin.Context) error {
	w, err := s.visibleWorkflow(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	completer := body.Required("completer")
	outcome := body.String("outcome")
	notes := body.String("notes")
	var boss []quality.BossQuestion
	body.Decode("bossAnswers", &boss)
	if p := body.Problem(); p != nil {
		return p
	}
	ctx := c.Request.Context()
	user, err := s.activeUser(ctx, orgID(c), *completer)
	if err != nil {
		return fieldNotFound(err, "completer", "is not an active user of your organization.")
	}
	w, err = s.qa.Advance(ctx, actorOf(ctx), w.ID, user.ID, deref(outcome), deref(notes), boss)
	switch {
	case errors.Is(err, qa.ErrClosed):
		return problem.New(http.StatusConflict, "The workflow is closed.")
	case errors.Is(err, catalog.ErrWorkflowMoved):
		return problem.New(http.StatusConflict, "The workflow's level was completed by someone else meanwhile; read it again.")
	case err != nil:
		return missing(err, unknownWorkflow)
	default:
		return s.writeWorkflow(c, http.StatusOK, w)
	}
}

// Page sizes of GET /Workflows (the vendor's bounds).
const (
	workflowsDefaultPageSize = 100
	workflowsMaxPageSize     = 100
)

// listWorkflows is GET /Workflows: by workflowId (start order), in a window
// on the workflow's start (CreatedOnDate) or the conversation's
// interaction date, after LastId.
func (s *qualityAPI) listWorkflows(c *gin.Context) error {
	get := queryParams(c)
	errs := fieldErrors{}
	var f catalog.WorkflowFilter
	f.ByInteraction = errs.choice(get, "DateReference", "CreatedOnDate", "InteractionDate") == "InteractionDate"
	f.From, f.To = errs.date(get, "StartDate", false), errs.date(get, "EndDate", true)
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		errs.add("EndDate", "must not be before StartDate.")
	}
	f.Limit = errs.boundedPageSize(get, "PageSize", workflowsDefaultPageSize, workflowsMaxPageSize)
	f.AfterID = errs.guid(get, "LastId")
	if p := errs.problem(); p != nil {
		return p
	}
	ctx, org := c.Request.Context(), orgID(c)
	f.Scope = reads(ctx)
	list, err := s.deps.Workflows.Workflows(ctx, org, f)
	if err != nil {
		return err
	}
	views, err := s.qa.WorkflowViews(ctx, org, list)
	if err != nil {
		return err
	}
	out := make([]workflowView, len(views))
	for i, v := range views {
		out[i] = workflowViewOf(v)
	}
	c.JSON(http.StatusOK, out)
	return nil
}
