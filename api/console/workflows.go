package console

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// WorkflowItem is an open workflow whose current level a user may
// complete.
type WorkflowItem struct {
	ID, Name, Conversation string
	Level                  int
}

// workflowPage is a workflow as its page shows it.
type workflowPage struct {
	ID, Name, Type, Status, Conversation string
	Levels                               []levelView
	Boss                                 quality.BossModule // the questions and the answers each allows
	Answered                             []quality.BossQuestion
	Current                              int  // the level awaiting completion, counted from 1
	Last                                 bool // the current level is the last: it answers the boss module
	MayComplete                          bool // the viewer may complete the current level
}

// levelView is a level: who may complete it, and once done, how. Number
// counts levels from 1, as people do.
type levelView struct {
	qa.LevelView
	Assignees string
	Number    int
}

// workflowPageOf lays out a workflow for a viewer.
func workflowPageOf(w qa.WorkflowView, v *viewer) workflowPage {
	out := workflowPage{ID: w.ID, Name: w.Template.Name, Type: statusLabel(w.Template.WorkflowType), Status: statusLabel(w.Status),
		Conversation: w.Conversation, Boss: w.Definition.BossModule, Current: w.CurrentLevel + 1}
	for _, l := range w.Levels {
		out.Levels = append(out.Levels, levelView{LevelView: l, Assignees: strings.Join(l.Assignees, ", "), Number: l.Level + 1})
	}
	if w.Status == catalog.WorkflowOpen {
		out.Last = w.CurrentLevel == len(w.Definition.Levels)-1
		assignees := w.Definition.Levels[w.CurrentLevel].Assignees
		out.MayComplete = len(assignees) == 0 || slices.Contains(assignees, v.UserID)
		return out
	}
	for _, q := range w.BossModule.Questions {
		if len(q.Answers) > 0 {
			out.Answered = append(out.Answered, q)
		}
	}
	return out
}

// workflow shows a workflow and, to an assignee of its current level, the
// form that completes the level.
func (c *qualityPages) workflow(ctx *gin.Context) { c.showWorkflow(ctx, http.StatusOK, "") }

func (c *qualityPages) showWorkflow(ctx *gin.Context, status int, problem string) {
	v := viewerFrom(ctx)
	view, err := c.Quality.WorkflowView(ctx.Request.Context(), v.actor, ctx.Param("id"))
	if !c.loaded(ctx, v, err) {
		return
	}
	w := workflowPageOf(view, v)
	c.render(ctx, status, "workflow", struct {
		page
		workflowPage
		Problem string
	}{page{Title: w.Name, Page: "queue", Viewer: v}, w, problem})
}

// advance completes the current level with the form's outcome, notes and,
// at the last level, the boss module's answers.
func (c *qualityPages) advance(ctx *gin.Context) {
	v := viewerFrom(ctx)
	rc := ctx.Request.Context()
	w, err := c.Quality.WorkflowView(rc, v.actor, ctx.Param("id"))
	if !c.loaded(ctx, v, err) {
		return
	}
	var boss []quality.BossQuestion
	for i, q := range w.Definition.BossModule.Questions {
		if chosen := ctx.PostFormArray("boss-" + itoa(i)); len(chosen) > 0 {
			boss = append(boss, quality.BossQuestion{QuestionText: q.QuestionText, Answers: chosen})
		}
	}
	outcome := ""
	if ctx.PostForm("action") == "close" {
		if ctx.PostForm("confirm-close") != "yes" {
			c.showWorkflow(ctx, http.StatusBadRequest, "Not closed: tick “Close it without completing the levels left” to close the workflow.")
			return
		}
		outcome = quality.CloseOutcome
	}
	_, err = c.Quality.Advance(rc, v.actor, w.ID, v.UserID, outcome, strings.TrimSpace(ctx.PostForm("notes")), boss)
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showWorkflow(ctx, http.StatusBadRequest, "Not done: "+mistake)
	case errors.Is(err, qa.ErrClosed) || errors.Is(err, catalog.ErrWorkflowMoved):
		c.showWorkflow(ctx, http.StatusConflict, "This level was completed meanwhile; here is the workflow as it is now.")
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/workflows/"+w.ID)
	}
}
