package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	Assigned(ctx context.Context, actor access.Actor, limit int) ([]catalog.Evaluation, error)
	Evaluation(ctx context.Context, actor access.Actor, id string) (catalog.Evaluation, *quality.Form, error)
	Answer(ctx context.Context, actor access.Actor, id string, in qa.Answers) (catalog.Evaluation, error)
	Submit(ctx context.Context, actor access.Actor, id string, noValue bool) (catalog.Evaluation, error)
	Advance(ctx context.Context, actor access.Actor, id, completer, outcome, notes string, boss []quality.BossQuestion) (catalog.Workflow, error)
	Waiting(ctx context.Context, actor access.Actor, limit int) ([]qa.Waiting, error)
	WorkflowView(ctx context.Context, actor access.Actor, id string) (qa.WorkflowView, error)
}

type queueItem struct {
	ID, Label, Status, Conversation string
}

// queue is the viewer's work: the evaluations assigned to them still
// open, and the sampled conversations they may see.
func (c *qualityPages) queue(ctx *gin.Context) {
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
		workflows = append(workflows, WorkflowItem{ID: w.Workflow.ID, Name: w.TemplateName, Conversation: w.Workflow.ConversationID, Level: w.Workflow.CurrentLevel})
	}
	data := struct {
		page
		Evaluations   []queueItem
		Workflows     []WorkflowItem
		Conversations []conversationRow
	}{page: page{Title: "Your queue", Page: "queue", Viewer: v}, Workflows: workflows}
	for _, e := range assigned {
		data.Evaluations = append(data.Evaluations, queueItem{ID: e.ID, Label: "Evaluation " + itoa(e.Number), Status: e.Status, Conversation: e.ConversationID})
	}
	for _, it := range sampled {
		data.Conversations = append(data.Conversations, rowOf(it))
	}
	c.render(ctx, http.StatusOK, "queue", data)
}

// questionView is a form's question with the evaluation's answer.
type questionView struct {
	quality.Question
	Chosen map[string]bool
	FillIn string
}

// evaluation shows an evaluation to fill (or, once submitted, to read).
func (c *qualityPages) evaluation(ctx *gin.Context) {
	c.showEvaluation(ctx, http.StatusOK, "")
}

func (c *qualityPages) showEvaluation(ctx *gin.Context, status int, problem string) {
	v := viewerFrom(ctx)
	e, form, ok := c.loadEvaluation(ctx, v)
	if !ok {
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
		ID, Label, Status, Conversation, Summary, Problem string
		Score                                             string
		Open                                              bool
		Modules                                           []moduleView
	}{page: page{Title: "Evaluation " + itoa(e.Number), Page: "queue", Viewer: v}, ID: e.ID, Label: "Evaluation " + itoa(e.Number),
		Status: e.Status, Conversation: e.ConversationID, Summary: deref(e.CallSummary), Problem: problem,
		Open: e.Status == catalog.EvaluationNotStarted || e.Status == catalog.EvaluationInProgress}
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
			}
			mv.Questions = append(mv.Questions, qv)
		}
		data.Modules = append(data.Modules, mv)
	}
	c.render(ctx, status, "evaluation", data)
}

// answer saves the form's answers, and submits them when asked.
func (c *qualityPages) answer(ctx *gin.Context) {
	v := viewerFrom(ctx)
	rc := ctx.Request.Context()
	e, form, ok := c.loadEvaluation(ctx, v)
	if !ok {
		return
	}
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
	_, err := c.Quality.Answer(rc, v.actor, e.ID, qa.Answers{Answers: answers, Summary: &summary})
	if err == nil && ctx.PostForm("action") == "submit" {
		_, err = c.Quality.Submit(rc, v.actor, e.ID, false)
	}
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showEvaluation(ctx, http.StatusBadRequest, "Not saved: "+mistake)
	case errors.Is(err, qa.ErrClosed):
		c.showEvaluation(ctx, http.StatusConflict, "This evaluation was already submitted; its answers can no longer change.")
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/evaluations/"+e.ID)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// loadEvaluation reads the path's evaluation and its form, if the viewer
// may see its conversation, else answers (not found, or a failure).
func (c *qualityPages) loadEvaluation(ctx *gin.Context, v *viewer) (catalog.Evaluation, *quality.Form, bool) {
	e, form, err := c.Quality.Evaluation(ctx.Request.Context(), v.actor, ctx.Param("id"))
	return e, form, c.loaded(ctx, v, err)
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
