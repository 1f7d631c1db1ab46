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
