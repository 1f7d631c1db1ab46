package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Quality is the quality work the console does, by the use cases the API
// calls too (qa.Service): the console and PUT /Evaluations/{id}/Answers
// decide and score alike.
type Quality interface {
	Assigned(ctx context.Context, actor access.Actor, limit int) ([]qa.Assignment, error)
	Described(ctx context.Context, actor access.Actor, id string) (qa.Assignment, *quality.Form, error)
	Answer(ctx context.Context, actor access.Actor, id string, in qa.Answers) (catalog.Evaluation, error)
	SubmitAnswers(ctx context.Context, actor access.Actor, id string, in qa.Answers) (catalog.Evaluation, error)
	Advance(ctx context.Context, actor access.Actor, id, completer, outcome, notes string, boss []quality.BossQuestion) (catalog.Workflow, error)
	Waiting(ctx context.Context, actor access.Actor, limit int) ([]qa.Waiting, error)
	WorkflowView(ctx context.Context, actor access.Actor, id string) (qa.WorkflowView, error)
	Scores(ctx context.Context, actor access.Actor, q catalog.ScoreQuery) ([]catalog.ScoreGroup, error)
	AutoScoring(ctx context.Context, actor access.Actor) (bool, error)
	Agreement(ctx context.Context, actor access.Actor, formID string) ([]qa.QuestionAgreement, error)
	Review(ctx context.Context, actor access.Actor, id string, answers []quality.Answer) (catalog.Evaluation, error)
	AutoEvaluationsOf(ctx context.Context, actor access.Actor, conversationID string) ([]catalog.Evaluation, error)
	Choices(ctx context.Context, actor access.Actor) ([]catalog.EvaluationForm, []catalog.User, error)
	Assign(ctx context.Context, actor access.Actor, in qa.NewAssignment) (catalog.Evaluation, error)
	Templates(ctx context.Context, actor access.Actor) ([]catalog.WorkflowTemplate, error)
	StartWorkflow(ctx context.Context, actor access.Actor, in qa.NewWorkflow) (catalog.Workflow, error)
	Forms(ctx context.Context, actor access.Actor) ([]catalog.EvaluationForm, error)
	CreateForm(ctx context.Context, actor access.Actor, name, description string, def quality.Form) (catalog.EvaluationForm, error)
	CreateTemplate(ctx context.Context, actor access.Actor, in qa.NewTemplate) (catalog.WorkflowTemplate, error)
	SetFormActive(ctx context.Context, actor access.Actor, id string, active bool) error
	SampleNow(ctx context.Context, actor access.Actor) (moved, started int64, err error)
}

// queueItem is an evaluation in a queue: what it is, of whose
// conversation and when.
type queueItem struct {
	ID, Label, Status, Form string
	Conversation            conversationRow
}

func queueItemOf(a qa.Assignment) queueItem {
	return queueItem{ID: a.Evaluation.ID, Label: "Evaluation " + itoa(a.Evaluation.Number), Status: statusLabel(a.Evaluation.Status),
		Form: a.FormName, Conversation: rowOf(a.Conversation)}
}

// queue is the viewer's work: the evaluations assigned to them still
// open, and the sampled conversations they may see.
func (c *qualityPages) queue(ctx *gin.Context) {
	notice := ""
	if moved, err := strconv.Atoi(ctx.Query("sampled")); err == nil {
		started, _ := strconv.Atoi(ctx.Query("started"))
		notice = fmt.Sprintf("Sampled %d conversation(s) for QA now, as the nightly sampling does; %d review workflow(s) started.", moved, started)
	}
	c.showQueue(ctx, http.StatusOK, notice, "")
}

// showQueue shows the queue with a notice or why a change was not made.
func (c *qualityPages) showQueue(ctx *gin.Context, status int, notice, problem string) {
	v := viewerFrom(ctx)
	rc := ctx.Request.Context()
	assigned, err := c.Quality.Assigned(rc, v.actor, conversationsPage)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	sampled, err := c.Conversations.Interactions(rc, v.OrgID, catalog.InteractionFilter{Status: catalog.StatusSampled, Scope: v.scope(), Limit: conversationsPage})
	if err != nil {
		c.failed(ctx, err)
		return
	}
	waiting, err := c.Quality.Waiting(rc, v.actor, conversationsPage)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	var workflows []WorkflowItem
	for _, w := range waiting {
		workflows = append(workflows, WorkflowItem{ID: w.Workflow.ID, Name: w.TemplateName, Conversation: w.Workflow.ConversationID, Level: w.Workflow.CurrentLevel + 1})
	}
	data := struct {
		page
		Evaluations     []queueItem
		Workflows       []WorkflowItem
		Conversations   []conversationRow
		Notice, Problem string
	}{page: page{Title: "Your queue", Page: "queue", Viewer: v}, Workflows: workflows, Notice: notice, Problem: problem}
	for _, a := range assigned {
		data.Evaluations = append(data.Evaluations, queueItemOf(a))
	}
	for _, it := range sampled {
		data.Conversations = append(data.Conversations, rowOf(it))
	}
	c.render(ctx, status, "queue", data)
}

// sample samples the viewer's organization for QA now, by the use case
// the nightly job's rule is (qa.Service.SampleNow), and shows the queue.
func (c *qualityPages) sample(ctx *gin.Context) {
	v := viewerFrom(ctx)
	moved, started, err := c.Quality.SampleNow(ctx.Request.Context(), v.actor)
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showQueue(ctx, http.StatusBadRequest, "", "Not sampled: "+mistake)
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, fmt.Sprintf("/console/queue?sampled=%d&started=%d", moved, started))
	}
}

// questionView is a form's question with the evaluation's answer; in an
// Auto evaluation, what the classifiers answered (Auto, a tag's value) and
// who reviewed it.
type questionView struct {
	quality.Question
	Chosen         map[string]bool
	FillIn         string
	Auto, Reviewed string
	Reviewable     bool
}

// evaluation shows an evaluation to fill (or, once submitted, to read).
func (c *qualityPages) evaluation(ctx *gin.Context) {
	c.showEvaluation(ctx, http.StatusOK, "")
}

func (c *qualityPages) showEvaluation(ctx *gin.Context, status int, problem string) {
	v := viewerFrom(ctx)
	a, form, ok := c.loadEvaluation(ctx, v)
	if !ok {
		return
	}
	e := a.Evaluation
	call, err := c.callOf(ctx.Request.Context(), v, a.Conversation, "/console/evaluations/"+e.ID, "")
	if c.stopped(ctx, v, err) {
		return
	}
	templates, err := c.reviewOf(ctx.Request.Context(), v, e)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	answers := map[string]catalog.EvaluationAnswer{}
	for _, a := range e.Answers {
		answers[a.QuestionID] = a
	}
	type moduleView struct {
		Name      string
		Questions []questionView
	}
	data := struct {
		page
		queueItem
		StatusCode, Summary, Problem, Score string
		Open, Auto                          bool
		Modules                             []moduleView
		Call                                callView
		Templates                           []option // to send it for review
	}{page: page{Title: "Evaluation " + itoa(e.Number), Page: "queue", Viewer: v}, queueItem: queueItemOf(a), StatusCode: e.Status,
		Summary: deref(e.CallSummary), Problem: problem, Call: call, Open: slices.Contains(qa.OpenStatuses, e.Status) && e.Source != catalog.SourceAuto,
		Auto: e.Source == catalog.SourceAuto, Templates: templates}
	if e.Score != nil {
		data.Score = fmt.Sprintf("%.1f %%", *e.Score)
	}
	for _, m := range form.Modules {
		mv := moduleView{Name: m.Name}
		for _, q := range m.Questions {
			qv := questionView{Question: q, Chosen: map[string]bool{}}
			if a, ok := answers[q.ID]; ok {
				for _, id := range a.TagIDs {
					qv.Chosen[id] = true
				}
				qv.FillIn = deref(a.FillIn)
				if a.AutoTagIDs != nil {
					qv.Auto, qv.Reviewable = strings.Join(a.AutoTagValues, ", "), true
				}
				if a.ReviewedOn != nil {
					qv.Reviewed = "reviewed " + a.ReviewedOn.UTC().Format("2006-01-02 15:04")
				}
			}
			mv.Questions = append(mv.Questions, qv)
		}
		data.Modules = append(data.Modules, mv)
	}
	c.render(ctx, status, "evaluation", data)
}

// review records a reviewer's confirmation or override of the answers the
// classifiers gave in an Auto evaluation, by the use case PUT
// /Evaluations/{id}/Review calls too.
func (c *qualityPages) review(ctx *gin.Context) {
	v := viewerFrom(ctx)
	a, _, ok := c.loadEvaluation(ctx, v)
	if !ok {
		return
	}
	var answers []quality.Answer
	for _, ans := range a.Evaluation.Answers {
		if chosen := ctx.PostFormArray("q-" + ans.QuestionID); ans.AutoTagIDs != nil && len(chosen) > 0 {
			answers = append(answers, quality.Answer{QuestionID: ans.QuestionID, TagIDs: chosen})
		}
	}
	_, err := c.Quality.Review(ctx.Request.Context(), v.actor, a.Evaluation.ID, answers)
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showEvaluation(ctx, http.StatusBadRequest, "Not saved: "+mistake)
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/evaluations/"+a.Evaluation.ID)
	}
}

// answersIn are the answers a form sent for the evaluation's questions.
func answersIn(ctx *gin.Context, form *quality.Form) qa.Answers {
	answers := []quality.Answer{}
	for _, m := range form.Modules {
		for _, q := range m.Questions {
			field := "q-" + q.ID
			if q.Type == quality.TypeFillIn {
				if text := strings.TrimSpace(ctx.PostForm(field)); text != "" {
					answers = append(answers, quality.Answer{QuestionID: q.ID, FillIn: &text})
				}
			} else if chosen := ctx.PostFormArray(field); len(chosen) > 0 {
				answers = append(answers, quality.Answer{QuestionID: q.ID, TagIDs: chosen})
			}
		}
	}
	summary := strings.TrimSpace(ctx.PostForm("summary"))
	return qa.Answers{Answers: answers, Summary: &summary}
}

// answer saves the form's answers, or submits them with them: a submit
// refused (a required question open) saves nothing.
func (c *qualityPages) answer(ctx *gin.Context) {
	v := viewerFrom(ctx)
	a, form, ok := c.loadEvaluation(ctx, v)
	if !ok {
		return
	}
	id, in := a.Evaluation.ID, answersIn(ctx, form)
	var err error
	if ctx.PostForm("action") == "submit" {
		_, err = c.Quality.SubmitAnswers(ctx.Request.Context(), v.actor, id, in)
	} else {
		_, err = c.Quality.Answer(ctx.Request.Context(), v.actor, id, in)
	}
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showEvaluation(ctx, http.StatusBadRequest, "Not saved: "+mistake)
	case errors.Is(err, qa.ErrClosed):
		c.showEvaluation(ctx, http.StatusConflict, closedSentence)
	case errors.Is(err, qa.ErrAuto):
		c.showEvaluation(ctx, http.StatusConflict, autoSentence)
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/evaluations/"+id)
	}
}

// Why an evaluation's answers did not change: it was submitted, or the
// classifiers answer it.
const (
	closedSentence = "This evaluation was already submitted; its answers can no longer change."
	autoSentence   = "This evaluation is answered by classifiers: its answers are reviewed (PUT /Evaluations/{id}/Review), not typed."
)

// draft saves the answers given so far, as the page sends them in the
// background while a reviewer works: 204, or the sentence of why not.
func (c *qualityPages) draft(ctx *gin.Context) {
	v := viewerFrom(ctx)
	e, form, err := c.Quality.Described(ctx.Request.Context(), v.actor, ctx.Param("id"))
	if err == nil {
		_, err = c.Quality.Answer(ctx.Request.Context(), v.actor, e.Evaluation.ID, answersIn(ctx, form))
	}
	mistake, isMistake := mistakeIn(err)
	var refused *access.Refused
	switch {
	case err == nil:
		ctx.Status(http.StatusNoContent)
	case isMistake:
		ctx.String(http.StatusBadRequest, "Not saved: "+mistake)
	case errors.Is(err, qa.ErrClosed):
		ctx.String(http.StatusConflict, closedSentence)
	case errors.Is(err, qa.ErrAuto):
		ctx.String(http.StatusConflict, autoSentence)
	case errors.As(err, &refused):
		ctx.String(http.StatusForbidden, refused.Detail)
	case errors.Is(err, catalog.ErrNotFound):
		ctx.String(http.StatusNotFound, "No evaluation with this id exists that you may see.")
	default:
		c.Log.Error("console: a draft", "err", err)
		ctx.String(http.StatusInternalServerError, "The draft could not be saved; it is kept in this browser.")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// loadEvaluation reads the path's evaluation and its form, if the viewer
// may see its conversation, else answers (not found, or a failure).
func (c *qualityPages) loadEvaluation(ctx *gin.Context, v *viewer) (qa.Assignment, *quality.Form, bool) {
	a, form, err := c.Quality.Described(ctx.Request.Context(), v.actor, ctx.Param("id"))
	return a, form, c.loaded(ctx, v, err)
}

// loaded answers a failed read of the path's object (not found, or a
// failure); true when there was none.
func (c *qualityPages) loaded(ctx *gin.Context, v *viewer, err error) bool {
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		c.notFound(ctx, v)
	case err != nil:
		c.failed(ctx, err)
	default:
		return true
	}
	return false
}
