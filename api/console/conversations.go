package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// conversationsPage is how many conversations a page of the list shows.
const conversationsPage = 50

type conversationRow struct {
	ID, Name, Arrived, MediaType, Agent, Status string
}

func rowOf(it catalog.Interaction) conversationRow {
	return conversationRow{ID: it.Public(), Name: it.FileName, Arrived: it.ArrivedOn.Format("2006-01-02 15:04"), MediaType: it.MediaType,
		Agent: agentName(it), Status: statusLabel(it.Status)}
}

func agentName(it catalog.Interaction) string {
	name := strings.TrimSpace(deref(it.AgentFirstName) + " " + deref(it.AgentLastName))
	if name == "" {
		name = deref(it.AgentCode)
	}
	if name == "" {
		name = "—"
	}
	return name
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var consoleStatuses = []string{catalog.StatusProcessing, catalog.StatusReadyToSample, catalog.StatusSampled, catalog.StatusFailedToProcess}

// Searches narrows the list by what only the lake knows: classifier
// results and transcript text (results.Reader).
type Searches interface {
	Search(ctx context.Context, q results.PageQuery, s results.Search) ([]string, error)
}

// resultOption is a choice of the list's classifier result filter.
type resultOption struct{ Value, Label string }

// listFilters are the list's filters as the form shows them.
type listFilters struct {
	From, To, Status, Agent, Team, Result, Text string
}

func (f listFilters) query(after string) string {
	q := url.Values{"from": {f.From}, "to": {f.To}, "status": {f.Status}, "agent": {f.Agent}, "team": {f.Team},
		"result": {f.Result}, "text": {f.Text}, "after": {after}}
	return "/console/conversations?" + q.Encode()
}

// conversations lists what the viewer may see, in id order (arrival
// order), in a date range (the last 7 days by default), by status, agent,
// hierarchy node, a classifier's result and words of the transcript. The
// last two are answered by the lake (processed conversations only), the
// rest by the catalog.
func (c *Console) conversations(ctx *gin.Context) {
	v := viewerFrom(ctx)
	now := time.Now().UTC()
	lf := listFilters{From: ctx.DefaultQuery("from", now.AddDate(0, 0, -7).Format(time.DateOnly)), To: ctx.DefaultQuery("to", now.Format(time.DateOnly)),
		Agent: strings.TrimSpace(ctx.Query("agent")), Team: strings.TrimSpace(ctx.Query("team")),
		Result: ctx.Query("result"), Text: strings.TrimSpace(ctx.Query("text"))}
	f := catalog.InteractionFilter{Scope: v.scope(), Limit: conversationsPage + 1, AfterID: ctx.Query("after"), AgentCode: lf.Agent}
	if t, err := dates.Parse(lf.From); err == nil {
		f.ArrivedFrom = &t
	}
	if t, err := dates.ParseEnd(lf.To); err == nil {
		f.ArrivedTo = &t
	}
	for _, s := range consoleStatuses {
		if strings.EqualFold(s, ctx.Query("status")) {
			f.Status, lf.Status = s, s
		}
	}
	if lf.Team != "" {
		tree, err := c.Hierarchies.Hierarchy(ctx.Request.Context(), v.OrgID)
		if err != nil {
			c.failed(ctx, err)
			return
		}
		f.NodeIDs = []string{} // an unknown code matches nothing
		if node, ok := tree.ByCode(lf.Team); ok {
			f.NodeIDs = tree.Descendants(node.ID)
		}
	}
	options, err := c.resultOptions(ctx.Request.Context(), v.OrgID)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	next := "" // the cursor of the next page, if any
	var list []catalog.Interaction
	if lf.Result != "" || lf.Text != "" {
		list, next, err = c.searched(ctx.Request.Context(), v, f, lf)
	} else if list, err = c.Conversations.Interactions(ctx.Request.Context(), v.OrgID, f); len(list) > conversationsPage {
		list, next = list[:conversationsPage], list[conversationsPage-1].ID
	}
	if err != nil {
		c.failed(ctx, err)
		return
	}
	data := struct {
		page
		listFilters
		Statuses      []string
		Results       []resultOption
		Conversations []conversationRow
		More          bool
		Next          string
	}{page: page{Title: "Conversations", Page: "conversations", Viewer: v}, listFilters: lf, Statuses: consoleStatuses, Results: options, More: next != ""}
	if next != "" {
		data.Next = lf.query(next)
	}
	for _, it := range list {
		data.Conversations = append(data.Conversations, rowOf(it))
	}
	c.render(ctx, http.StatusOK, "conversations", data)
}

// searched is a page of the list when a filter needs the lake: the lake
// finds the ids, the catalog their records (and the status filter); the
// next page starts after the lake's last id.
func (c *Console) searched(ctx context.Context, v *viewer, f catalog.InteractionFilter, lf listFilters) ([]catalog.Interaction, string, error) {
	q := results.PageQuery{OrgID: v.OrgID, Scope: v.scope(), AfterID: f.AfterID, Limit: conversationsPage + 1, NodeIDs: v.scope().Narrow(f.NodeIDs)}
	if f.ArrivedFrom == nil || f.ArrivedTo == nil {
		return nil, "", nil
	}
	q.Window = results.Window{From: *f.ArrivedFrom, To: *f.ArrivedTo}
	s := results.Search{Text: lf.Text, AgentCode: lf.Agent}
	if id, result, ok := strings.Cut(lf.Result, ":"); ok {
		s.ClassifierID, s.Result = id, result
	}
	ids, err := c.Searches.Search(ctx, q, s)
	if err != nil || len(ids) == 0 {
		return nil, "", err
	}
	next := ""
	if len(ids) > conversationsPage {
		ids = ids[:conversationsPage]
		next = ids[len(ids)-1]
	}
	f.IDs, f.ExactIDs, f.AfterID, f.Limit = ids, true, "", len(ids)
	list, err := c.Conversations.Interactions(ctx, v.OrgID, f)
	return list, next, err
}

// resultOptions are the classifier result filter's choices: yes or no
// of each active yes/no classifier.
func (c *Console) resultOptions(ctx context.Context, org string) ([]resultOption, error) {
	all, err := c.Classifiers.Classifiers(ctx, org, catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		return nil, err
	}
	var out []resultOption
	for _, k := range all {
		if k.Type == "Classifier" {
			out = append(out, resultOption{k.ID + ":true", k.Name + ": yes"}, resultOption{k.ID + ":false", k.Name + ": no"})
		}
	}
	return out, nil
}

// conversation shows one conversation the viewer may see: its facts and
// the call as a reviewer reads it (callOf). Any other id is the same
// not-found page.
func (c *Console) conversation(ctx *gin.Context) {
	c.showConversation(ctx, http.StatusOK, "")
}

// showConversation shows the path's conversation with why a change to it
// was not made, if one was not.
func (c *Console) showConversation(ctx *gin.Context, status int, problem string) {
	v := viewerFrom(ctx)
	it, ok := c.visible(ctx, v)
	if !ok {
		return
	}
	row := rowOf(it)
	call, err := c.callOf(ctx.Request.Context(), v, it, "")
	if err != nil {
		c.failed(ctx, err)
		return
	}
	if problem != "" {
		call.Problem = problem
	}
	c.render(ctx, status, "conversation", struct {
		page
		conversationRow
		ClientCallID string
		Call         callView
	}{page: page{Title: row.Name, Viewer: v}, conversationRow: row, ClientCallID: deref(it.ClientCallID), Call: call})
}

func clock(ms int64) string {
	s := ms / 1000
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}
