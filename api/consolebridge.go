package api

import (
	"context"
	"slices"
	"strings"

	"github.com/earshot/earshot/api/console"
	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// consoleResults gives the console a conversation's results as
// /ModelResults shows them (reviews included), with the evidence of the
// machine's, and records its reviews as POST /ModelResults/Reviews does.
type consoleResults struct{ s *Server }

func (r consoleResults) ConversationResults(ctx context.Context, org string, it catalog.Interaction) ([]console.Result, error) {
	if it.LakeRunID == nil {
		return nil, nil
	}
	models, err := r.s.activeModels(ctx, org)
	if err != nil {
		return nil, err
	}
	cv := results.Conversation{ID: it.ID, RunID: *it.LakeRunID, Status: it.Status, ClientCallID: it.ClientCallID,
		ArrivedOn: it.ArrivedOn, InteractionDate: it.InteractionDate, HierarchyNodeID: it.HierarchyNodeID}
	found, err := r.s.readPageResults(ctx, org, models, []results.Conversation{cv})
	if err != nil {
		return nil, err
	}
	evidence, err := r.s.deps.Results.ClassifierEvidence(ctx, org, cv, models.ids)
	if err != nil {
		return nil, err
	}
	spans := map[string][]console.Span{}
	for _, e := range evidence {
		for _, sp := range e.Spans {
			spans[e.ClassifierID] = append(spans[e.ClassifierID], console.Span{Turn: int(sp.Turn), StartMs: sp.StartMs, EndMs: sp.EndMs, Text: sp.Text})
		}
	}
	reviewed := map[string]bool{}
	for _, rv := range found.reviews[it.ID] {
		for _, rr := range rv.Results {
			reviewed[rr.ModelID] = true
		}
	}
	item := processedItem(cv, models, found.machine[it.ID], found.reviews[it.ID])
	out := make([]console.Result, 0, len(*item.ModelResults))
	for _, m := range *item.ModelResults {
		out = append(out, console.Result{ModelID: m.ModelID, Name: m.ModelName, Value: m.Result, Text: m.TextResult,
			Reviewed: reviewed[m.ModelID], Evidence: spans[m.ModelID]})
	}
	return out, nil
}

// consoleWorkflows gives the console a workflow's page, from the view GET
// /Workflows/{id} answers.
type consoleWorkflows struct{ s *Server }

func (c consoleWorkflows) Workflow(ctx context.Context, actor access.Actor, id string) (console.WorkflowPage, error) {
	org, userID := actor.OrgID, actor.UserID
	w, err := c.s.qa.Workflow(ctx, actor, id)
	if err != nil {
		return console.WorkflowPage{}, err
	}
	page, err := c.s.readWorkflowPage(ctx, org, []catalog.Workflow{w})
	if err != nil {
		return console.WorkflowPage{}, err
	}
	view, err := page.view(w)
	if err != nil {
		return console.WorkflowPage{}, err
	}
	def := page.definitions[w.TemplateID]
	out := console.WorkflowPage{ID: w.ID, Name: view.WorkflowName, Type: view.WorkflowType, Status: view.WorkflowStatus,
		Conversation: view.InteractionID, Boss: def.BossModule, Current: w.CurrentLevel}
	for _, l := range view.Levels {
		lv := console.LevelView{Level: l.Level, Assignees: strings.Join(l.Assignees, ", "), Done: l.Completer != nil}
		lv.Completer, lv.Outcome, lv.Notes = deref(l.Completer), deref(l.Outcome), deref(l.Notes)
		out.Levels = append(out.Levels, lv)
	}
	if w.Status == catalog.WorkflowOpen {
		out.Last = w.CurrentLevel == len(def.Levels)-1
		assignees := def.Levels[w.CurrentLevel].Assignees
		out.MayComplete = len(assignees) == 0 || slices.Contains(assignees, userID)
	} else {
		for _, q := range view.BossModule.Questions {
			if len(q.Answers) > 0 {
				out.Answered = append(out.Answered, q)
			}
		}
	}
	return out, nil
}
