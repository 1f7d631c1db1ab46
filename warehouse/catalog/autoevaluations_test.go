package catalog

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// Auto evaluations on both engines: inserted numbered after a person's,
// listed by source, replaced for the conversations given, reviewed (a
// person's refused), rescored, summed by agent from the window's
// conversations, and paired with people's answers for agreement.
func TestAutoEvaluations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	form, err := c.Evaluations.CreateForm(ctx, EvaluationForm{OrgID: org.ID, Name: "Auto", Definition: []byte(`{"modules":[],"autoScore":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if forms, err := c.Evaluations.Forms(ctx, org.ID); err != nil || len(forms) != 1 || forms[0].ID != form.ID {
		t.Fatalf("forms %v %v", forms, err)
	}
	now := time.Now().UTC()
	agent := "A1"
	var convs []string
	var rows [][]any
	for range 3 {
		id := NewID()
		convs = append(convs, id)
		rows = append(rows, interactionRow(Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusReadyToSample, AgentCode: &agent,
			FileName: id + ".json", ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, &id))
	}
	human, err := c.Evaluations.CreateEvaluation(ctx, Evaluation{OrgID: org.ID, FormID: form.ID, ConversationID: convs[0], AnalystID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	auto := func(conv string, score float64, results string) Evaluation {
		return Evaluation{ID: NewID(), OrgID: org.ID, FormID: form.ID, ConversationID: conv, Score: &score, AutoAnswers: results}
	}
	commit := func(replaced map[string][]string, evaluations ...Evaluation) {
		t.Helper()
		if err := c.inTx(ctx, func(tx *sql.Tx) error {
			return c.Interactions.replaceAutoEvaluations(ctx, tx, replaced, []UploadOutcome{{Evaluations: evaluations}}, now)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	commit(nil, auto(convs[0], 100, "1"), auto(convs[1], 0, "0"), auto(convs[2], 50, "1"))
	commit(map[string][]string{org.ID: {convs[2]}}, auto(convs[2], 40, "0")) // a re-run of the third
	list, err := c.Evaluations.Evaluations(ctx, org.ID, EvaluationFilter{Source: SourceAuto, Limit: 10})
	if err != nil || len(list) != 3 || list[0].Number != 2 || list[2].Number != 5 || list[2].AutoAnswers != "0" || *list[2].Score != 40 ||
		list[0].Status != EvaluationAutoScored || list[0].AnalystID != "" {
		t.Fatalf("Auto evaluations %+v %v", list, err)
	}
	if people, _ := c.Evaluations.Evaluations(ctx, org.ID, EvaluationFilter{Source: SourceHuman, Limit: 10}); len(people) != 1 || people[0].Number != 1 {
		t.Fatalf("people's %+v", people)
	}

	// A review, then a reclassification's rescoring.
	by, score := "u", 0.0
	reviewed, err := c.Evaluations.ReviewAutoAnswers(ctx, org.ID, list[0].ID, []EvaluationAnswer{{QuestionID: "q", AnswerID: NewID(),
		TagIDs: []string{"no"}, TagValues: []string{"No"}, AutoTagIDs: []string{"yes"}, ReviewedBy: &by, ReviewedOn: &now}}, &score)
	if err != nil || len(reviewed.Answers) != 1 || reviewed.Answers[0].ReviewedBy == nil || *reviewed.Score != 0 {
		t.Fatalf("reviewed %+v %v", reviewed, err)
	}
	if _, err := c.Evaluations.ReviewAutoAnswers(ctx, org.ID, human.ID, nil, &score); err != ErrNotAuto {
		t.Fatalf("reviewing a person's evaluation: %v", err)
	}
	list[1].AutoAnswers, list[1].Score = "1", &[]float64{100}[0]
	if err := c.Evaluations.UpdateAutoEvaluations(ctx, org.ID, []Evaluation{list[1]}); err != nil {
		t.Fatal(err)
	}
	groups, err := c.Evaluations.ScoresBy(ctx, org.ID, ScoreQuery{ArrivedFrom: now.Add(-time.Hour), ArrivedTo: now.Add(time.Hour), ByAgent: true, Source: SourceAuto})
	if err != nil || len(groups) != 1 || groups[0].Key != "A1" || groups[0].Evaluations != 3 || groups[0].Mean != (0+100+40)/3.0 {
		t.Fatalf("auto scores by agent %+v %v", groups, err)
	}

	// The person's evaluation, submitted, pairs with the first conversation's
	// Auto evaluation: its answers and the classifiers' results.
	if _, err := c.Evaluations.SaveEvaluation(ctx, org.ID, human.ID, EvaluationChange{Answers: []EvaluationAnswer{{QuestionID: "q", AnswerID: NewID(),
		TagIDs: []string{"yes"}}}, Score: &score, Status: EvaluationCompleted, From: []string{EvaluationNotStarted}, Submitted: true}); err != nil {
		t.Fatal(err)
	}
	pairs, err := c.Evaluations.AnswerPairs(ctx, org.ID, form.ID)
	if err != nil || len(pairs) != 2 || !pairs[0].Reviewed || pairs[0].Auto[0] != "yes" || pairs[0].Human[0] != "no" ||
		pairs[1].Reviewed || pairs[1].AutoAnswers != "1" || pairs[1].Human[0] != "yes" {
		t.Fatalf("pairs %+v %v", pairs, err)
	}
}
