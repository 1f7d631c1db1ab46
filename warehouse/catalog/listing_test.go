package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Interactions newest first, page after page before a cursor, give the
// oldest-first list reversed; the count is every page's together.
func TestInteractionsNewestFirstAndCounted(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	var want []string
	for i := range 7 {
		it := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: fmt.Sprintf("%d.json", i),
			ArrivedOn: time.Now().UTC(), LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: time.Now().UTC()}
		if err := c.Interactions.CreateInteraction(ctx, it, false); err != nil {
			t.Fatal(err)
		}
		want = append(want, it.ID)
	}
	slices.Sort(want)
	slices.Reverse(want)
	var got []string
	f := InteractionFilter{Newest: true, Limit: 3}
	for {
		page, err := c.Interactions.Interactions(ctx, org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page {
			got = append(got, it.ID)
		}
		if len(page) < f.Limit {
			break
		}
		f.BeforeID = page[len(page)-1].ID
	}
	n, err := c.Interactions.CountInteractions(ctx, org.ID, InteractionFilter{Newest: true, BeforeID: want[0], Limit: 1})
	if !slices.Equal(got, want) || err != nil || n != 7 {
		t.Errorf("newest first: %v, want %v; counted %d (%v), want 7", got, want, n, err)
	}
}

// ScoresBy averages the submitted evaluations with a score by agent, of
// conversations in the window: not an open one, not NoValue, not one of
// a conversation outside the window.
func TestEvaluationScoresByAgent(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	form, err := c.Evaluations.CreateForm(ctx, EvaluationForm{OrgID: org.ID, Name: "QA", Definition: []byte(`{"modules":[]}`), IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	evaluate := func(i int, agent string, arrived time.Time, status string, score float64) {
		t.Helper()
		it := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: fmt.Sprintf("s%d.json", i),
			ArrivedOn: arrived, LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: now, AgentCode: &agent}
		if err := c.Interactions.CreateInteraction(ctx, it, false); err != nil {
			t.Fatal(err)
		}
		e, err := c.Evaluations.CreateEvaluation(ctx, Evaluation{OrgID: org.ID, FormID: form.ID, ConversationID: it.ID, AnalystID: "u", Status: EvaluationNotStarted})
		if err != nil {
			t.Fatal(err)
		}
		if status == EvaluationNotStarted {
			return
		}
		if _, err := c.Evaluations.SaveEvaluation(ctx, org.ID, e.ID, EvaluationChange{Answers: []EvaluationAnswer{}, Score: &score, Status: status,
			From: []string{EvaluationNotStarted}, Submitted: true}); err != nil {
			t.Fatal(err)
		}
	}
	evaluate(1, "A1", now, EvaluationCompleted, 80)
	evaluate(2, "A1", now, EvaluationCompleted, 60)
	evaluate(3, "A1", now, EvaluationNoValue, 0)
	evaluate(4, "A1", now, EvaluationNotStarted, 0)
	evaluate(5, "A1", now.AddDate(0, 0, -3), EvaluationCompleted, 10)
	evaluate(6, "A2", now, EvaluationCompleted, 50)
	got, err := c.Evaluations.ScoresBy(ctx, org.ID, ScoreQuery{ArrivedFrom: now.Add(-time.Hour), ArrivedTo: now.Add(time.Hour), ByAgent: true})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b ScoreGroup) int { return strings.Compare(a.Key, b.Key) })
	if want := []ScoreGroup{{"A1", 2, 70}, {"A2", 1, 50}}; !slices.Equal(got, want) {
		t.Errorf("scores by agent: %+v, want %+v", got, want)
	}
}
