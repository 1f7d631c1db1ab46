package console

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/reviews"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Reviews records reviews, and reads the results they change, by the use
// cases POST /ModelResults/Reviews and /ModelResults call too
// (reviews.Service).
type Reviews interface {
	Record(ctx context.Context, actor access.Actor, conversationID string, review catalog.Review) (catalog.Interaction, error)
	Outcomes(ctx context.Context, actor access.Actor, it catalog.Interaction) ([]reviews.Outcome, error)
}

// resultView is a classifier's current result as the conversation page
// shows it.
type resultView struct {
	ModelID, Name string
	Value         *bool  // a boolean classifier's result: the page offers Yes and No
	Reviewed      bool   // a person's answer, not the machine's
	Shown         string // Yes, No or the label
	Evidence      string
}

func viewOf(o reviews.Outcome) resultView {
	v := resultView{ModelID: o.Classifier.ID, Name: o.Classifier.Name, Value: o.Result, Reviewed: o.Reviewed, Shown: "—"}
	switch {
	case o.Result != nil && *o.Result:
		v.Shown = "Yes"
	case o.Result != nil:
		v.Shown = "No"
	case o.Text != nil:
		v.Shown = *o.Text
	}
	var spans []string
	for _, s := range o.Evidence {
		spans = append(spans, "“"+s.Text+"”")
	}
	v.Evidence = strings.Join(spans, " ")
	return v
}

// part is a piece of a turn's text, marked when it is evidence.
type part struct {
	Text   string
	Marked bool
}

// marked splits a turn's text at the evidence spans found in it.
func marked(text string, spans []string) []part {
	lower := strings.ToLower(text)
	fold := len(lower) == len(text) // casing kept byte offsets: search without it
	type cut struct{ from, to int }
	var cuts []cut
	for _, s := range spans {
		i := strings.Index(text, s)
		if fold {
			i = strings.Index(lower, strings.ToLower(s))
		}
		if s != "" && i >= 0 {
			cuts = append(cuts, cut{i, i + len(s)})
		}
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.from - b.from })
	var out []part
	at := 0
	for _, c := range cuts {
		if c.to <= at {
			continue // inside a span already marked
		}
		if c.from > at {
			out = append(out, part{Text: text[at:c.from]})
		}
		out = append(out, part{Text: text[max(c.from, at):c.to], Marked: true})
		at = c.to
	}
	if at < len(text) {
		out = append(out, part{Text: text[at:]})
	}
	return out
}

// review records the reviewer's answers for the conversation's boolean
// classifiers (a form of yes/no per classifier) as a HumanReview, then
// shows the conversation again.
func (c *Console) review(ctx *gin.Context) {
	v := viewerFrom(ctx)
	it, ok := c.visible(ctx, v)
	if !ok {
		return
	}
	current, err := c.Reviews.Outcomes(ctx.Request.Context(), v.actor, it)
	if c.stopped(ctx, v, err) {
		return
	}
	review := catalog.Review{EventType: catalog.EventHumanReview, Reviewer: v.UserName}
	for _, r := range current {
		if answer := ctx.PostForm("result-" + r.Classifier.ID); answer == "yes" || answer == "no" {
			yes := answer == "yes"
			review.Results = append(review.Results, catalog.ReviewResult{ModelID: r.Classifier.ID, Result: &yes})
		}
	}
	if len(review.Results) == 0 {
		c.showConversation(ctx, http.StatusBadRequest, "Not recorded: choose Yes or No for at least one classifier.")
		return
	}
	if _, err := c.Reviews.Record(ctx.Request.Context(), v.actor, it.ID, review); c.refused(ctx, v, err) {
		return
	} else if err != nil {
		c.failed(ctx, err)
		return
	}
	back := "/console/conversations/" + it.Public()
	if next := ctx.PostForm("next"); next != "" {
		back = returnTo(next)
	}
	ctx.Redirect(http.StatusSeeOther, back+"#results")
}

// visible reads the path's conversation if the viewer may see it, else
// answers the not-found page.
func (c *Console) visible(ctx *gin.Context, v *viewer) (catalog.Interaction, bool) {
	id := ctx.Param("id")
	ids, err := c.Conversations.InternalIDs(ctx.Request.Context(), v.OrgID, []string{id})
	if err != nil {
		c.failed(ctx, err)
		return catalog.Interaction{}, false
	}
	if own, ok := ids[id]; ok {
		id = own
	}
	it, err := c.Conversations.Interaction(ctx.Request.Context(), v.OrgID, id)
	if errors.Is(err, catalog.ErrNotFound) || err == nil && !v.scope().Allows(it.MediaType, it.HierarchyNodeID) {
		c.notFound(ctx, v)
		return it, false
	}
	if err != nil {
		c.failed(ctx, err)
		return it, false
	}
	return it, true
}
