package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// conversationsPage is how many conversations a page of the list shows.
const conversationsPage = 50

type conversationRow struct {
	ID, Name, Arrived, MediaType, Agent, Status string
}

func rowOf(it catalog.Interaction) conversationRow {
	return conversationRow{ID: it.Public(), Name: it.FileName, Arrived: it.ArrivedOn.Format("2006-01-02 15:04"), MediaType: it.MediaType,
		Agent: agentName(it), Status: it.Status}
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

// conversations lists what the viewer may see, newest arrivals last (id
// order), in a date range (the last 7 days by default) and a status.
func (c *Console) conversations(ctx *gin.Context) {
	v := viewerFrom(ctx)
	today := time.Now().UTC().Format(time.DateOnly)
	from, to := ctx.DefaultQuery("from", time.Now().UTC().AddDate(0, 0, -7).Format(time.DateOnly)), ctx.DefaultQuery("to", today)
	f := catalog.InteractionFilter{Scope: v.scope, Limit: conversationsPage + 1, AfterID: ctx.Query("after")}
	if t, err := dates.Parse(from); err == nil {
		f.ArrivedFrom = &t
	}
	if t, err := dates.ParseEnd(to); err == nil {
		f.ArrivedTo = &t
	}
	status := ctx.Query("status")
	for _, s := range consoleStatuses {
		if strings.EqualFold(s, status) {
			f.Status = s
		}
	}
	f.AgentCode = strings.TrimSpace(ctx.Query("agent"))
	team := strings.TrimSpace(ctx.Query("team"))
	if team != "" {
		tree, err := c.Hierarchies.Hierarchy(ctx.Request.Context(), v.OrgID)
		if err != nil {
			c.failed(ctx, err)
			return
		}
		f.NodeIDs = []string{} // an unknown code matches nothing
		if node, ok := tree.ByCode(team); ok {
			f.NodeIDs = tree.Descendants(node.ID)
		}
	}
	list, err := c.Conversations.Interactions(ctx.Request.Context(), v.OrgID, f)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	data := struct {
		page
		From, To, Status string
		Agent, Team      string
		Statuses         []string
		Conversations    []conversationRow
		More             bool
		Next             string
	}{page: page{Title: "Conversations", Page: "conversations", Viewer: v}, From: from, To: to, Status: f.Status, Statuses: consoleStatuses, Agent: f.AgentCode, Team: team}
	if len(list) > conversationsPage {
		list, data.More = list[:conversationsPage], true
		q := url.Values{"from": {from}, "to": {to}, "status": {f.Status}, "agent": {f.AgentCode}, "team": {team}, "after": {list[len(list)-1].ID}}
		data.Next = "/console/conversations?" + q.Encode()
	}
	for _, it := range list {
		data.Conversations = append(data.Conversations, rowOf(it))
	}
	c.render(ctx, http.StatusOK, "conversations", data)
}

type turn struct {
	At, Speaker, Class string
	StartMs            int64
	Parts              []part
}

// conversation shows one conversation the viewer may see: its transcript
// by speaker and time with the evidence of its classifiers' results
// marked, the results, and a form to confirm or correct them. Any other
// id is the same not-found page.
func (c *Console) conversation(ctx *gin.Context) {
	v := viewerFrom(ctx)
	it, ok := c.visible(ctx, v)
	if !ok {
		return
	}
	row := rowOf(it)
	data := struct {
		page
		conversationRow
		ClientCallID string
		Audio        bool
		Turns        []turn
		NoTranscript string
		Results      []resultView
	}{page: page{Title: row.Name, Viewer: v}, conversationRow: row, ClientCallID: deref(it.ClientCallID), Audio: hasAudio(it)}
	switch {
	case it.LakeRunID == nil && it.Status == catalog.StatusFailedToProcess:
		data.NoTranscript = "This conversation could not be processed."
	case it.LakeRunID == nil:
		data.NoTranscript = "This conversation is still being processed; its transcript will follow."
	default:
		segs, err := c.Transcripts.Transcript(ctx.Request.Context(), v.OrgID, it)
		if err != nil {
			c.failed(ctx, err)
			return
		}
		results, err := c.Results.ConversationResults(ctx.Request.Context(), v.OrgID, it)
		if err != nil {
			c.failed(ctx, err)
			return
		}
		evidence := map[int][]string{} // turn → the spans found in it
		for _, r := range results {
			data.Results = append(data.Results, viewOf(r))
			for _, s := range r.Evidence {
				evidence[s.Turn] = append(evidence[s.Turn], s.Text)
			}
		}
		for i, s := range segs {
			data.Turns = append(data.Turns, turn{At: clock(s.StartMs), Speaker: s.Speaker, Class: strings.ToLower(s.Speaker),
				StartMs: s.StartMs, Parts: marked(s.Text, evidence[i])})
		}
		if len(data.Turns) == 0 {
			data.NoTranscript = "This conversation has no words."
		}
	}
	c.render(ctx, http.StatusOK, "conversation", data)
}

func clock(ms int64) string {
	s := ms / 1000
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}
