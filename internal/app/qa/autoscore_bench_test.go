package qa

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// formsOnly is an AutoStore of one auto-scored form.
type formsOnly struct{ form catalog.EvaluationForm }

func (f formsOnly) Forms(context.Context, string) ([]catalog.EvaluationForm, error) {
	return []catalog.EvaluationForm{f.form}, nil
}
func (formsOnly) Evaluations(context.Context, string, catalog.EvaluationFilter) ([]catalog.Evaluation, error) {
	return nil, nil
}
func (formsOnly) UpdateAutoEvaluations(context.Context, string, []catalog.Evaluation) error {
	return nil
}

// BenchmarkAutoScore scores a batch of 1,000 conversations, each with
// eight classifiers' results, on a form of ten bound questions: ingest's
// cost of auto-scoring before the commit.
func BenchmarkAutoScore(b *testing.B) {
	one := 1.0
	zero := 0.0
	var questions []quality.Question
	for i := range 10 {
		q := quality.Question{Text: fmt.Sprint(i), Weight: 1, Tags: []quality.Tag{{Value: "Yes", ScoredValue: &one}, {Value: "No", ScoredValue: &zero}},
			Binding: quality.Binding{ClassifierID: fmt.Sprint("c", i%8), WhenTrue: "Yes", WhenFalse: "No"}}
		questions = append(questions, q)
	}
	def := quality.Form{AutoScore: true, Modules: []quality.Module{{Name: "m", Questions: questions}}}
	n := 0
	if err := def.Prepare(func() string { n++; return fmt.Sprint("id", n) }); err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(def)
	a := &AutoScorer{Store: formsOnly{catalog.EvaluationForm{ID: "f", IsActive: true, Definition: raw}}}
	var batch lake.Batch
	for i := range 1000 {
		id := catalog.NewID()
		batch.Conversations = append(batch.Conversations, lake.Conversation{ID: id, OrgID: "o"})
		for k := range 8 {
			batch.ClassifierResults = append(batch.ClassifierResults, lake.ClassifierResult{ConversationID: id, ClassifierID: fmt.Sprint("c", k),
				Result: fmt.Sprint((i+k)%2 == 0)})
		}
	}
	for b.Loop() {
		out, err := a.Score(context.Background(), &batch)
		if err != nil || len(out) != 1000 {
			b.Fatal(len(out), err)
		}
	}
}
