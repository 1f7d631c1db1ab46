package qa

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// FormSource lists an organization's evaluation forms
// (catalog.EvaluationStore).
type FormSource interface {
	Forms(ctx context.Context, orgID string) ([]catalog.EvaluationForm, error)
}

// AutoScorer answers each organization's active auto-scored forms on every
// processed conversation of a batch, from the classifier results the batch
// already holds: the Auto evaluations the batch commits with its
// conversations. Safe for concurrent use.
type AutoScorer struct {
	Forms FormSource

	parsed sync.Map // form id → *quality.Form: a form never changes once made
}

// Score is the batch's Auto evaluations, one per conversation and
// auto-scored form whose bound questions the conversation's results
// answer.
func (a *AutoScorer) Score(ctx context.Context, b *lake.Batch) ([]catalog.Evaluation, error) {
	if len(b.Conversations) == 0 {
		return nil, nil
	}
	forms := map[string][]autoForm{} // organization → its auto-scored forms
	results := map[string]map[string]string{}
	for _, r := range b.ClassifierResults {
		if results[r.ConversationID] == nil {
			results[r.ConversationID] = map[string]string{}
		}
		results[r.ConversationID][r.ClassifierID] = r.Result
	}
	var out []catalog.Evaluation
	for _, conv := range b.Conversations {
		orgForms, ok := forms[conv.OrgID]
		if !ok {
			var err error
			if orgForms, err = a.autoForms(ctx, conv.OrgID); err != nil {
				return nil, err
			}
			forms[conv.OrgID] = orgForms
		}
		of := results[conv.ID]
		for _, f := range orgForms {
			answers := f.def.AutoAnswers(func(id string) (string, bool) { v, ok := of[id]; return v, ok })
			if len(answers) == 0 {
				continue
			}
			stored, score, err := storedAnswers(f.def, answers)
			if err != nil {
				return nil, fmt.Errorf("form %s: %w", f.id, err)
			}
			for i := range stored {
				stored[i].AutoTagIDs = stored[i].TagIDs
			}
			out = append(out, catalog.Evaluation{ID: catalog.NewID(), OrgID: conv.OrgID, FormID: f.id, ConversationID: conv.ID,
				AgentID: conv.AgentID, Source: catalog.SourceAuto, Status: catalog.EvaluationAutoScored, Score: &score, Answers: stored})
		}
	}
	return out, nil
}

// autoForm is an auto-scored form, read.
type autoForm struct {
	id  string
	def *quality.Form
}

// autoForms are the organization's active auto-scored forms.
func (a *AutoScorer) autoForms(ctx context.Context, orgID string) ([]autoForm, error) {
	all, err := a.Forms.Forms(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var out []autoForm
	for _, f := range all {
		if !f.IsActive {
			continue
		}
		def, ok := a.parsed.Load(f.ID)
		if !ok {
			var form quality.Form
			if err := json.Unmarshal(f.Definition, &form); err != nil {
				return nil, fmt.Errorf("form %s: %w", f.ID, err)
			}
			def, _ = a.parsed.LoadOrStore(f.ID, &form)
		}
		if form := def.(*quality.Form); form.AutoScore {
			out = append(out, autoForm{f.ID, form})
		}
	}
	return out, nil
}
