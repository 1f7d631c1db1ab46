package qa

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// AutoStore is what auto-scoring reads and writes of forms and Auto
// evaluations (catalog.EvaluationStore).
type AutoStore interface {
	Forms(ctx context.Context, orgID string) ([]catalog.EvaluationForm, error)
	Evaluations(ctx context.Context, orgID string, f catalog.EvaluationFilter) ([]catalog.Evaluation, error)
	UpdateAutoEvaluations(ctx context.Context, orgID string, changed []catalog.Evaluation) error
}

// AutoScorer answers each organization's active auto-scored forms on every
// processed conversation of a batch, from the classifier results the batch
// already holds: the Auto evaluations the batch commits with its
// conversations; and brings them up to date when a classifier is run
// again. Safe for concurrent use.
type AutoScorer struct {
	Store AutoStore

	cards sync.Map // form id → *autoForm: a form never changes once made
}

// Score is the batch's Auto evaluations, one per conversation and
// auto-scored form whose bound questions the conversation's results
// answer.
func (a *AutoScorer) Score(ctx context.Context, b *lake.Batch) ([]catalog.Evaluation, error) {
	if len(b.Conversations) == 0 {
		return nil, nil
	}
	forms := map[string][]autoForm{} // organization → its auto-scored forms
	scoring := false
	for _, conv := range b.Conversations {
		if _, ok := forms[conv.OrgID]; !ok {
			orgForms, err := a.autoForms(ctx, conv.OrgID)
			if err != nil {
				return nil, err
			}
			forms[conv.OrgID], scoring = orgForms, scoring || len(orgForms) > 0
		}
	}
	if !scoring {
		return nil, nil
	}
	spans, err := resultSpans(b.ClassifierResults)
	if err != nil {
		return nil, err
	}
	capacity := 0
	for _, conv := range b.Conversations {
		capacity += len(forms[conv.OrgID])
	}
	out := make([]catalog.Evaluation, 0, capacity) // an evaluation is large: no doublings
	for _, conv := range b.Conversations {
		orgForms := forms[conv.OrgID]
		span := spans[conv.ID]
		of := b.ClassifierResults[span[0]:span[1]]
		result := func(classifierID string) (string, bool) {
			for _, r := range of {
				if r.ClassifierID == classifierID {
					return r.Result, true
				}
			}
			return "", false
		}
		for _, f := range orgForms {
			results := f.card.Results(result)
			score, answered := f.card.Score(results)
			if !answered {
				continue
			}
			out = append(out, catalog.Evaluation{OrgID: conv.OrgID, FormID: f.id, ConversationID: conv.ID,
				AgentID: conv.AgentID, Source: catalog.SourceAuto, Status: catalog.EvaluationAutoScored, Score: &score, AutoAnswers: results})
		}
	}
	return out, nil
}

// resultSpans are where each conversation's results are in a batch's:
// the analyzer appends a conversation's results together.
func resultSpans(results []lake.ClassifierResult) (map[string][2]int, error) {
	spans := map[string][2]int{}
	for i := 0; i < len(results); {
		j := i + 1
		for j < len(results) && results[j].ConversationID == results[i].ConversationID {
			j++
		}
		if _, seen := spans[results[i].ConversationID]; seen {
			return nil, fmt.Errorf("conversation %s has classifier results apart in its batch", results[i].ConversationID)
		}
		spans[results[i].ConversationID] = [2]int{i, j}
		i = j
	}
	return spans, nil
}

// autoForm is a form read, with its scorecard.
type autoForm struct {
	id   string
	def  *quality.Form
	card *quality.Scorecard
}

// read is a stored form read, once: kept for the next time.
func (a *AutoScorer) read(f catalog.EvaluationForm) (*autoForm, error) {
	if kept, ok := a.cards.Load(f.ID); ok {
		return kept.(*autoForm), nil
	}
	var def quality.Form
	if err := json.Unmarshal(f.Definition, &def); err != nil {
		return nil, fmt.Errorf("form %s: %w", f.ID, err)
	}
	kept, _ := a.cards.LoadOrStore(f.ID, &autoForm{f.ID, &def, def.Scorecard()})
	return kept.(*autoForm), nil
}

// autoForms are the organization's active auto-scored forms.
func (a *AutoScorer) autoForms(ctx context.Context, orgID string) ([]autoForm, error) {
	all, err := a.Store.Forms(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var out []autoForm
	for _, f := range all {
		if !f.IsActive {
			continue
		}
		form, err := a.read(f)
		if err != nil {
			return nil, err
		}
		if form.def.AutoScore {
			out = append(out, *form)
		}
	}
	return out, nil
}

// Rescore brings up to date the Auto evaluations of conversations a
// classifier was run on again (results: conversation → its new result):
// the answers bound to it and the score, by the same formula, a
// reviewer's confirmations and overrides kept. It returns how many
// changed.
func (a *AutoScorer) Rescore(ctx context.Context, orgID, classifierID string, results map[string]string) (int, error) {
	forms, err := a.autoForms(ctx, orgID)
	if err != nil || len(results) == 0 {
		return 0, err
	}
	byID := map[string]autoForm{}
	for _, f := range forms {
		if f.card.Reads(classifierID) {
			byID[f.id] = f
		}
	}
	if len(byID) == 0 {
		return 0, nil
	}
	ids := slices.Collect(maps.Keys(results))
	list, err := a.Store.Evaluations(ctx, orgID, catalog.EvaluationFilter{Source: catalog.SourceAuto, ConversationIDs: ids, Limit: len(ids) * len(byID)})
	if err != nil {
		return 0, err
	}
	var changed []catalog.Evaluation
	for _, e := range list {
		f, ok := byID[e.FormID]
		if !ok {
			continue
		}
		now := f.card.With(e.AutoAnswers, classifierID, results[e.ConversationID])
		if now == e.AutoAnswers {
			continue
		}
		e.AutoAnswers = now
		_, score := completed(f.def, f.card, e)
		e.Score = &score
		changed = append(changed, e)
	}
	return len(changed), a.Store.UpdateAutoEvaluations(ctx, orgID, changed)
}

// EachAutoEvaluation calls fn with each of the organization's Auto
// evaluations, in number order, its answers as people's are kept (the
// form's words, values and weighted scores) and its form's name: what the
// export job writes for analysts.
func (a *AutoScorer) EachAutoEvaluation(ctx context.Context, orgID string, fn func(e catalog.Evaluation, formName string) error) error {
	stored, err := a.Store.Forms(ctx, orgID)
	if err != nil {
		return err
	}
	forms, names := map[string]*autoForm{}, map[string]string{}
	for _, f := range stored {
		if forms[f.ID], err = a.read(f); err != nil {
			return err
		}
		names[f.ID] = f.Name
	}
	const page = 1000
	for after := 0; ; {
		list, err := a.Store.Evaluations(ctx, orgID, catalog.EvaluationFilter{Source: catalog.SourceAuto, AfterNumber: after, Limit: page})
		if err != nil {
			return err
		}
		for _, e := range list {
			f, ok := forms[e.FormID]
			if !ok {
				return fmt.Errorf("evaluation %d: no form %s", e.Number, e.FormID)
			}
			e, _ = completed(f.def, f.card, e)
			if err := fn(e, names[e.FormID]); err != nil {
				return err
			}
			after = e.Number
		}
		if len(list) < page {
			return nil
		}
	}
}
