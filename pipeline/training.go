package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
	"github.com/earshot/earshot/warehouse/catalog"
)

// ReviewSource gives an organization's review sets (catalog.ReviewStore).
type ReviewSource interface {
	ReviewedConversations(ctx context.Context, orgID string) ([]string, error)
	Reviews(ctx context.Context, orgID string, conversationIDs []string) (map[string][]catalog.Review, error)
}

// ClassifierLister lists an organization's classifiers
// (catalog.ClassifierStore).
type ClassifierLister interface {
	Classifiers(ctx context.Context, orgID string, f catalog.ClassifierFilter) ([]catalog.Classifier, error)
}

// TrainingSource is where a training run's examples come from: the
// organization's stored conversations, its reviews and its classifiers.
type TrainingSource struct {
	Records     Records
	Transcripts Transcripts
	Reviews     ReviewSource
	Classifiers ClassifierLister
}

// trainingPage is how many stored conversations are read at once.
const trainingPage = 500

// ParseExamples reads a training run's examples as its request gave them
// (trained.ParseLabelled); a bad one is a trained.InputError naming it.
func ParseExamples(raw []json.RawMessage) ([]trained.Labelled, error) {
	out := make([]trained.Labelled, len(raw))
	for i, r := range raw {
		l, err := trained.ParseLabelled(r)
		if err != nil {
			return nil, trained.InputError("examples[%d]: %v", i, err)
		}
		out[i] = l
	}
	return out, nil
}

// Examples are a training run's examples: each one given (its text, or
// the stored conversation it names by internal id), and with fromReviews
// every reviewed conversation, as an example for the trained classifiers
// its latest review answered (see trained.Example's Only). A given
// conversation that is not stored is a trained.InputError naming it.
func (src TrainingSource) Examples(ctx context.Context, org string, given []trained.Labelled, fromReviews bool) ([]trained.Example, error) {
	examples := make([]trained.Example, len(given))
	var ids []string
	for i, l := range given {
		examples[i] = l.Example()
		examples[i].Conversation.ID = fmt.Sprintf("examples[%d]", i)
		if l.ConversationID != "" {
			ids = append(ids, l.ConversationID)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	convs, err := src.conversations(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	for i, l := range given {
		if l.ConversationID == "" {
			continue
		}
		c, ok := convs[l.ConversationID]
		if !ok {
			return nil, trained.InputError("examples[%d].conversationId: no processed conversation with this id in your organization", i)
		}
		examples[i].Conversation = &analysis.Conversation{ID: examples[i].Conversation.ID, OrgID: org, Turns: c.Turns}
	}
	if !fromReviews {
		return examples, nil
	}
	reviewed, err := src.reviewExamples(ctx, org)
	if err != nil {
		return nil, err
	}
	return append(examples, reviewed...), nil
}

// reviewExamples are the reviewed conversations as examples of the
// trained classifiers their latest review answered true or false.
func (src TrainingSource) reviewExamples(ctx context.Context, org string) ([]trained.Example, error) {
	classifiers, err := src.Classifiers.Classifiers(ctx, org, catalog.ClassifierFilter{Types: []string{analysis.TypeCoreModel}})
	if err != nil {
		return nil, err
	}
	labelOf := map[string]string{} // trained classifier id → its label
	for _, c := range classifiers {
		var def struct{ Model, Label string }
		if json.Unmarshal(c.Definition, &def) == nil && def.Model == "trained" {
			labelOf[c.ID] = def.Label
		}
	}
	ids, err := src.Reviews.ReviewedConversations(ctx, org)
	if err != nil || len(labelOf) == 0 {
		return nil, err
	}
	var out []trained.Example
	for page := range slices.Chunk(ids, trainingPage) {
		reviews, err := src.Reviews.Reviews(ctx, org, page)
		if err != nil {
			return nil, err
		}
		convs, err := src.conversations(ctx, org, page)
		if err != nil {
			return nil, err
		}
		for _, id := range page {
			sets, c := reviews[id], convs[id]
			if len(sets) == 0 || c == nil {
				continue // a conversation processed again since, or not yet
			}
			e := trained.Example{Conversation: c, Labels: []string{}, Only: []string{}}
			for _, r := range sets[len(sets)-1].Results {
				label, ok := labelOf[r.ModelID]
				if !ok || r.Result == nil {
					continue
				}
				e.Only = append(e.Only, label)
				if *r.Result {
					e.Labels = append(e.Labels, label)
				}
			}
			if len(e.Only) > 0 {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// conversations reads stored conversations by id (the processed ones that
// exist; the others are left out).
func (src TrainingSource) conversations(ctx context.Context, org string, ids []string) (map[string]*analysis.Conversation, error) {
	out := map[string]*analysis.Conversation{}
	for page := range slices.Chunk(ids, trainingPage) {
		its, err := src.Records.Interactions(ctx, org, catalog.InteractionFilter{IDs: page, ExactIDs: true, Limit: len(page),
			Statuses: []string{catalog.StatusReadyToSample, catalog.StatusSampled}})
		if err != nil {
			return nil, err
		}
		segs, err := src.Transcripts.Transcripts(ctx, org, its)
		if err != nil {
			return nil, err
		}
		for _, it := range its {
			out[it.ID] = StoredConversation(it, segs[it.ID], nil)
		}
	}
	return out, nil
}
