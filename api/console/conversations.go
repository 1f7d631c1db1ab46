package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// conversationsPage is how many conversations a page of the list shows.
const conversationsPage = 50

type conversationRow struct {
	ID, Name, Arrived, MediaType, Agent, Status string
	Excerpt                                     []part // the turn a word search found, the words marked
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
	Excerpts(ctx context.Context, q results.PageQuery, ids []string, text string) (map[string]string, error)
}

// resultOption is a choice of the list's classifier result filter.
type resultOption struct{ Value, Label string }

// listFilters are the list's filters as the form shows them, and its
// order: newest first, or oldest first.
type listFilters struct {
	From, To, Status, Agent, Team, Result, Text, Order string
}

// oldest is the order of the list from the first to arrive.
const oldest = "oldest"

// query is the list's address with its filters and a cursor: the page
// after the conversation of this id, in the list's order.
func (f listFilters) query(cursor string) string {
	q := url.Values{"from": {f.From}, "to": {f.To}, "status": {f.Status}, "agent": {f.Agent}, "team": {f.Team},
		"result": {f.Result}, "text": {f.Text}, "order": {f.Order}}
	for k, v := range q {
		if v[0] == "" {
			delete(q, k)
		}
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return "/console/conversations?" + q.Encode()
}

// conversations lists what the viewer may see, newest first (or oldest
// first), in a date range (the last 7 days by default), by status, agent,
// hierarchy node, a classifier's result and words of the transcript, with
// how many there are in all. The last two filters are answered by the
// lake (processed conversations only), the rest by the catalog.
func (c *Console) conversations(ctx *gin.Context) {
	v := viewerFrom(ctx)
	now := time.Now().UTC()
	lf := listFilters{From: ctx.DefaultQuery("from", now.AddDate(0, 0, -7).Format(time.DateOnly)), To: ctx.DefaultQuery("to", now.Format(time.DateOnly)),
		Agent: strings.TrimSpace(ctx.Query("agent")), Team: strings.TrimSpace(ctx.Query("team")),
		Result: ctx.Query("result"), Text: strings.TrimSpace(ctx.Query("text"))}
	if ctx.Query("order") == oldest {
		lf.Order = oldest
	}
	f := catalog.InteractionFilter{Scope: v.scope(), Limit: conversationsPage + 1, AgentCode: lf.Agent, Newest: lf.Order != oldest}
	if f.Newest {
		f.BeforeID = ctx.Query("cursor")
	} else {
		f.AfterID = ctx.Query("cursor")
	}
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
	total := int64(-1) // not counted
	// The page and its total are read side by side: neither needs the
	// other.
	var reads errgroup.Group
	rctx := ctx.Request.Context()
	if lf.Result != "" || lf.Text != "" {
		reads.Go(func() (err error) {
			list, next, err = c.searched(rctx, v, f, lf)
			return err
		})
		if lf.Text == "" && lf.Status == "" {
			reads.Go(func() (err error) {
				total, err = c.resultTotal(rctx, v, f, lf)
				return err
			})
		}
	} else {
		reads.Go(func() (err error) {
			if list, err = c.Conversations.Interactions(rctx, v.OrgID, f); err == nil && len(list) > conversationsPage {
				list, next = list[:conversationsPage], list[conversationsPage-1].ID
			}
			return err
		})
		reads.Go(func() (err error) {
			total, err = c.Conversations.CountInteractions(rctx, v.OrgID, f)
			return err
		})
	}
	if err := reads.Wait(); err != nil {
		c.failed(ctx, err)
		return
	}
	data := struct {
		page
		listFilters
		Statuses      []statusOption
		Results       []resultOption
		Conversations []conversationRow
		Total         string
		Next, Newest  string
		Oldest        string
	}{page: page{Title: "Conversations", Page: "conversations", Viewer: v}, listFilters: lf, Results: options}
	for _, s := range consoleStatuses {
		data.Statuses = append(data.Statuses, statusOption{s, statusLabel(s)})
	}
	if next != "" {
		data.Next = lf.query(next)
	}
	newest, old := lf, lf
	newest.Order, old.Order = "", oldest
	data.Newest, data.Oldest = newest.query(""), old.query("")
	if total >= 0 {
		data.Total = fmt.Sprintf("%d conversation(s) in all", total)
	}
	excerpts := map[string]string{}
	if q, _, ok := lakeSearch(v, f, lf); ok && lf.Text != "" && len(list) > 0 {
		ids := make([]string, len(list))
		for i, it := range list {
			ids[i] = it.ID
		}
		if excerpts, err = c.Searches.Excerpts(ctx.Request.Context(), q, ids, lf.Text); err != nil {
			c.failed(ctx, err)
			return
		}
	}
	for _, it := range list {
		row := rowOf(it)
		if turn, ok := excerpts[it.ID]; ok {
			row.Excerpt = marked(excerpt(turn, lf.Text), []string{lf.Text})
		}
		data.Conversations = append(data.Conversations, row)
	}
	c.render(ctx, http.StatusOK, "conversations", data)
}

// excerptRunes is how much of a turn an excerpt shows around the words.
const excerptRunes = 80

// excerpt is the part of a turn around the first place it has word (in
// any case), cut at spaces, with an ellipsis where it was cut.
func excerpt(turn, word string) string {
	runes := []rune(turn)
	if len(runes) <= 2*excerptRunes {
		return turn
	}
	lower := strings.ToLower(turn)
	at := strings.Index(lower, strings.ToLower(word))
	if at < 0 || len(lower) != len(turn) { // casing moved byte offsets: from the start
		at = 0
	}
	center := len([]rune(turn[:at]))
	from, to := max(center-excerptRunes, 0), min(center+excerptRunes, len(runes))
	out := strings.TrimSpace(string(runes[from:to]))
	if from > 0 {
		if i := strings.IndexByte(out, ' '); i >= 0 && i < 20 {
			out = out[i+1:]
		}
		out = "…" + out
	}
	if to < len(runes) {
		if i := strings.LastIndexByte(out, ' '); i > len(out)-20 {
			out = out[:i]
		}
		out += "…"
	}
	return out
}

// statusOption is a choice of the list's status filter.
type statusOption struct{ Value, Label string }

// searched is a page of the list when a filter needs the lake: the lake
// finds the ids, the catalog their records (and the status filter); the
// next page starts after the lake's last id.
func (c *Console) searched(ctx context.Context, v *viewer, f catalog.InteractionFilter, lf listFilters) ([]catalog.Interaction, string, error) {
	q, s, ok := lakeSearch(v, f, lf)
	if !ok {
		return nil, "", nil
	}
	if cursorID := s.BeforeID + q.AfterID; cursorID != "" {
		// The page goes on from the cursor's arrival: the lake's windows
		// are read from there, not from the range's end.
		cursor, err := c.Conversations.Interaction(ctx, v.OrgID, cursorID)
		if err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return nil, "", err
		}
		switch {
		case err != nil:
		case s.Newest && cursor.ArrivedOn.Before(q.To):
			q.To = cursor.ArrivedOn
		case !s.Newest && cursor.ArrivedOn.After(q.From):
			q.From = cursor.ArrivedOn
		}
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
	// The lake applied the range, hierarchy and agent filters: the catalog
	// reads the records by their ids (with the viewer's scope and the
	// status filter, which only it knows), not by a scan of the range.
	f.IDs, f.ExactIDs, f.AfterID, f.BeforeID, f.Limit = ids, true, "", "", len(ids)
	f.ArrivedFrom, f.ArrivedTo, f.NodeIDs, f.AgentCode = nil, nil, nil, ""
	list, err := c.Conversations.Interactions(ctx, v.OrgID, f)
	return list, next, err
}

// lakeSearch is the lake's query of the list's filters; false when the
// range is not one.
func lakeSearch(v *viewer, f catalog.InteractionFilter, lf listFilters) (results.PageQuery, results.Search, bool) {
	q := results.PageQuery{OrgID: v.OrgID, Scope: v.scope(), AfterID: f.AfterID, Limit: conversationsPage + 1, NodeIDs: v.scope().Narrow(f.NodeIDs)}
	if f.ArrivedFrom == nil || f.ArrivedTo == nil {
		return q, results.Search{}, false
	}
	q.Window = results.Window{From: *f.ArrivedFrom, To: *f.ArrivedTo}
	s := results.Search{Text: lf.Text, AgentCode: lf.Agent, Newest: f.Newest, BeforeID: f.BeforeID}
	if id, result, ok := strings.Cut(lf.Result, ":"); ok {
		s.ClassifierID, s.Result = id, result
	}
	return q, s, true
}

// resultTotal counts the conversations a classifier's result finds over
// the list's range from the figures the jobs keep of each day (the
// dashboard's): every page's total without reading the lake's rows.
func (c *Console) resultTotal(ctx context.Context, v *viewer, f catalog.InteractionFilter, lf listFilters) (int64, error) {
	q, s, ok := lakeSearch(v, f, lf)
	if !ok {
		return 0, nil
	}
	q.AfterID, q.Limit = "", 0
	if s.AgentCode != "" {
		groups, err := c.Figures.Groups(ctx, q, results.ByAgent, []string{s.ClassifierID}, everyGroup)
		var n int64
		for _, g := range groups {
			if strings.EqualFold(g.Key, s.AgentCode) {
				n += s.Matching(g.Scores[s.ClassifierID])
			}
		}
		return n, err
	}
	days, err := c.Figures.Daily(ctx, q, []string{s.ClassifierID})
	var n int64
	for _, d := range days {
		n += s.Matching(d.Score(s.ClassifierID))
	}
	return n, err
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
	c.renderConversation(ctx, status, it, problem, "")
}

// renderConversation shows a conversation the viewer may see, with why a
// review (problem) or an assignment (assignProblem) was not made.
func (c *Console) renderConversation(ctx *gin.Context, status int, it catalog.Interaction, problem, assignProblem string) {
	v := viewerFrom(ctx)
	row := rowOf(it)
	call, err := c.callOf(ctx.Request.Context(), v, it, "", strings.TrimSpace(ctx.Query("mark")))
	if err != nil {
		c.failed(ctx, err)
		return
	}
	if problem != "" {
		call.Problem = problem
	}
	assign, err := c.assignOf(ctx.Request.Context(), v, it)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	if assign != nil {
		assign.Problem = assignProblem
		if n, err := strconv.Atoi(ctx.Query("assigned")); err == nil {
			assign.Notice = "Evaluation " + itoa(n) + " assigned; it waits in its reviewer's queue."
		}
	}
	auto, err := c.Quality.AutoEvaluationsOf(ctx.Request.Context(), v.actor, it.ID)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	var scored []autoScored
	for _, e := range auto {
		row := autoScored{ID: e.ID, Number: e.Number, Score: "—"}
		if e.Score != nil {
			row.Score = fmt.Sprintf("%.1f %%", *e.Score)
		}
		scored = append(scored, row)
	}
	c.render(ctx, status, "conversation", struct {
		page
		conversationRow
		ClientCallID string
		Call         callView
		Assign       *assignView
		AutoScored   []autoScored
	}{page: page{Title: row.Name, Viewer: v}, conversationRow: row, ClientCallID: deref(it.ClientCallID), Call: call, Assign: assign, AutoScored: scored})
}

// autoScored is an Auto evaluation of a conversation, to open and review.
type autoScored struct {
	ID, Score string
	Number    int
}

func clock(ms int64) string {
	s := ms / 1000
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}
