package console

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/warehouse/catalog"
)

// assignView is the form that assigns a conversation's evaluation, for
// whom manages evaluations: the active forms and users to choose from.
type assignView struct {
	Forms           []option
	Users           []option
	Notice, Problem string
}

// option is a choice of a select.
type option struct{ Value, Label string }

// assignOf is the assignment form of a processed conversation, or nil
// when the viewer does not manage evaluations or it is not processed.
func (c *Console) assignOf(ctx context.Context, v *viewer, it catalog.Interaction) (*assignView, error) {
	if !v.actor.Allows(access.ManageEvaluations) || it.LakeRunID == nil {
		return nil, nil
	}
	forms, users, err := c.Quality.Choices(ctx, v.actor)
	var refused *access.Refused
	if errors.As(err, &refused) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	a := &assignView{}
	for _, f := range forms {
		a.Forms = append(a.Forms, option{f.ID, f.Name})
	}
	for _, u := range users {
		a.Users = append(a.Users, option{u.UserName, u.UserName + " (" + u.RoleName + ")"})
	}
	return a, nil
}

// assign creates the conversation's evaluation, of the form chosen, for
// the user chosen, by the use case POST /Evaluations calls too.
func (c *Console) assign(ctx *gin.Context) {
	v := viewerFrom(ctx)
	it, ok := c.visible(ctx, v)
	if !ok {
		return
	}
	e, err := c.Quality.Assign(ctx.Request.Context(), v.actor, qa.NewAssignment{FormID: ctx.PostForm("form"), ConversationID: it.ID,
		Analyst: ctx.PostForm("analyst")})
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.renderConversation(ctx, http.StatusBadRequest, it, "", "Not assigned: "+mistake)
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/conversations/"+it.Public()+"?assigned="+strconv.Itoa(e.Number)+"#assign")
	}
}

// reviewOf is the form that sends a Completed evaluation for review, for
// whom manages evaluations: the templates to choose from (nil when it
// does not apply).
func (c *Console) reviewOf(ctx context.Context, v *viewer, e catalog.Evaluation) ([]option, error) {
	if e.Status != catalog.EvaluationCompleted || !v.actor.Allows(access.ManageEvaluations) {
		return nil, nil
	}
	templates, err := c.Quality.Templates(ctx, v.actor)
	var refused *access.Refused
	if errors.As(err, &refused) {
		return nil, nil
	}
	var out []option
	for _, t := range templates {
		out = append(out, option{t.ID, t.Name})
	}
	return out, err
}

// sendForReview starts a review workflow of the template chosen over the
// evaluation, by the use case POST /Workflows calls too, and shows it.
func (c *qualityPages) sendForReview(ctx *gin.Context) {
	v := viewerFrom(ctx)
	a, _, ok := c.loadEvaluation(ctx, v)
	if !ok {
		return
	}
	id := a.Evaluation.ID
	w, err := c.Quality.StartWorkflow(ctx.Request.Context(), v.actor, qa.NewWorkflow{TemplateID: ctx.PostForm("template"), EvaluationID: &id})
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		c.showEvaluation(ctx, http.StatusBadRequest, "Not sent for review: "+mistake)
	case errors.Is(err, catalog.ErrWorkflowExists):
		c.showEvaluation(ctx, http.StatusConflict, "This conversation already has a workflow of this template.")
	case errors.Is(err, catalog.ErrEvaluationClosed):
		c.showEvaluation(ctx, http.StatusConflict, "Only a Completed evaluation is sent for review; this one is no longer Completed.")
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/workflows/"+w.ID)
	}
}
