package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// An organization's auto-scored form gets one Auto evaluation per
// processed conversation, committed with it: an archive of 1,000 chats
// gives 1,000, each answered from that chat's classifier results and
// scored by the form's formula, the unbound question left open; a second
// run of the archive replaces them, never adds to them.
func TestIngestAutoScoresEveryConversation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	classifier := func(name, def string) string {
		c, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput(name, "Classifier", def))
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	greeting := classifier("Greeting", `{"groups":[{"rules":[{"phrases":["good morning","hello"],"speaker":"Agent"}]}]}`)
	cancel := classifier("Cancellation", `{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`)
	refund := classifier("Refund", `{"groups":[{"rules":[{"phrases":["refund"]}]}]}`)
	form := autoForm(t, e, greeting, cancel, refund)

	// Three kinds of chat, and the score each gets by hand: greeting
	// (weight 1) and keeping the customer (weight 3, no cancellation and
	// no refund) answered, "Resolved?" (weight 5) left open.
	kinds := []struct {
		text          string
		greeted, kept string
		score         float64
	}{
		{"[00:00:01] Agent: Good morning\n[00:00:05] Customer: I want to cancel", "Yes", "No", 100 * 1.0 / 4},
		{"[00:00:01] Agent: Hi\n[00:00:05] Customer: a refund please", "No", "No", 0},
		{"[00:00:01] Agent: Hello\n[00:00:05] Customer: thanks, all good", "Yes", "Yes", 100},
	}
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("chats/%04d-%d.txt", i, i%3)] = kinds[i%3].text
	}
	tarID := e.stage(t, "qa.tar", tarOf(t, files, ""))
	var verify func(run string)
	ingest := func(run string) {
		t.Helper()
		if _, err := e.runner.Run(ctx, "ingest"); err != nil {
			t.Fatal(err)
		}
		verify(run)
	}
	verify = func(run string) {
		t.Helper()
		list, err := e.cat.Evaluations.Evaluations(ctx, e.org.ID, catalog.EvaluationFilter{Source: catalog.SourceAuto, Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1000 {
			t.Fatalf("%s: %d Auto evaluations, want one per chat: 1000", run, len(list))
		}
		def, err := qa.Service{Evaluations: e.cat.Evaluations}.Form(ctx, e.org.ID, form.ID)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, ev := range list {
			ev = qa.Completed(def, ev)
			it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, ev.ConversationID)
			if err != nil || *it.UploadID != tarID || seen[it.ID] {
				t.Fatalf("%s: evaluation %d of conversation %s (%v), seen before %v", run, ev.Number, ev.ConversationID, err, seen[it.ID])
			}
			seen[it.ID] = true
			k := kinds[int(it.FileName[len(it.FileName)-5]-'0')]
			var got []string
			for _, a := range ev.Answers {
				got = append(got, strings.Join(a.TagValues, ","))
				if strings.Join(a.AutoTagIDs, ",") != strings.Join(a.TagIDs, ",") || a.ReviewedBy != nil {
					t.Fatalf("%s: answer %+v: an auto answer keeps what the classifiers said, unreviewed", run, a)
				}
			}
			if ev.FormID != form.ID || ev.Status != catalog.EvaluationAutoScored || ev.AnalystID != "" ||
				strings.Join(got, " ") != k.greeted+" "+k.kept || ev.Score == nil || *ev.Score != k.score {
				t.Fatalf("%s: %s: evaluation %+v answers %v, want %s %s scored %v", run, it.FileName, ev, got, k.greeted, k.kept, k.score)
			}
		}
		human, _ := e.cat.Evaluations.Evaluations(ctx, e.org.ID, catalog.EvaluationFilter{Source: catalog.SourceHuman, Limit: 10})
		if len(human) != 0 {
			t.Fatalf("%s: %d Human evaluations", run, len(human))
		}
	}
	ingest("first run")
	if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, tarID); err != nil {
		t.Fatal(err)
	}
	ingest("second run")
	// None of the first run's is left, even of the chats it replaced.
	var rows int
	e.sql.QueryRowContext(ctx, `SELECT count(*) FROM auto_evaluations WHERE org_id = ?`, e.org.ID).Scan(&rows)
	if rows != 1000 {
		t.Fatalf("%d evaluation rows after two runs, want the second run's 1000", rows)
	}

	// The greeting classifier now looks for "hi": reclassifying updates
	// the greeting answers and the scores — the first kind now 0, the
	// second 100 — and leaves the rest as they were.
	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, greeting, catalog.ClassifierInput{
		Definition: []byte(`{"groups":[{"rules":[{"phrases":["hi"],"speaker":"Agent"}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	kinds[0].greeted, kinds[0].score = "No", 0
	kinds[1].greeted, kinds[1].score = "Yes", 25
	kinds[2].greeted, kinds[2].score = "No", 75
	e.runner.jobs["reclassify"].(*Reclassify).Page = 500
	day := time.Now().UTC()
	run, err := e.runner.Start(ctx, "reclassify", e.org.ID, catalog.ReclassifyParams{ClassifierID: greeting, From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	e.runner.Wait()
	if done, err := e.cat.Jobs.OrgJobRun(ctx, e.org.ID, run.ID); err != nil || done.Status != "succeeded" || done.Counts["auto_evaluations"] != 1000 {
		t.Fatalf("reclassification %+v %v: every evaluation's greeting changed", done, err)
	}
	verify("after the reclassification")

	// In the lake for analysts: the export job's evaluation_answers
	// snapshot has every answer of every Auto evaluation, as it stands.
	export := &Export{Orgs: e.cat.Orgs, Snapshots: e.cat, Auto: &qa.AutoScorer{Store: e.cat.Evaluations}, Parquet: e.lake, Bucket: e.bucket,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if counts, err := export.Run(ctx, catalog.JobRun{}); err != nil || counts["evaluation_answers_rows"] != 2000 {
		t.Fatalf("export: %v %v", counts, err)
	}
	var evaluations, answers int
	var mean float64
	snapshot := filepath.Join(e.bucketDir, filepath.FromSlash(ExportDir("evaluation_answers", e.org.ID)), "date=*", "*.parquet")
	if err := e.lake.QueryRowContext(ctx, `SELECT count(DISTINCT evaluation_id), count(*), avg(evaluation_score) FROM read_parquet(?)
		WHERE source = 'Auto' AND form_name = 'Auto QA' AND auto_tag_values = tag_values AND analyst_id IS NULL`, snapshot).Scan(&evaluations, &answers, &mean); err != nil {
		t.Fatal(err)
	}
	// The kinds' scores after the reclassification: 0, 25, 75 (334, 333
	// and 333 chats).
	want := (334*0 + 333*25 + 333*75) / 1000.0
	if evaluations != 1000 || answers != 2000 || math.Abs(mean-want) > 1e-9 {
		t.Fatalf("the lake's Auto evaluations: %d, %d answers, mean score %v (want 1000, 2000, %v)", evaluations, answers, mean, want)
	}
}

// autoForm creates the organization's auto-scored form through the
// application layer: greeting bound to one classifier, keeping the
// customer to a rule over two (neither a cancellation nor a refund), and
// a question for a person.
func autoForm(t *testing.T, e *env, greeting, cancel, refund string) catalog.EvaluationForm {
	t.Helper()
	yesNo := func() []quality.Tag {
		one, zero := 1.0, 0.0
		return []quality.Tag{{Value: "Yes", ScoredValue: &one}, {Value: "No", ScoredValue: &zero}}
	}
	def := quality.Form{AutoScore: true, Modules: []quality.Module{{Name: "Call", Questions: []quality.Question{
		{Text: "Greeted the customer?", Weight: 1, Tags: yesNo(), Binding: quality.Binding{ClassifierID: greeting, WhenTrue: "Yes", WhenFalse: "No"}},
		{Text: "Kept the customer?", Weight: 3, Tags: yesNo(),
			Binding: quality.Binding{Rule: &quality.Rule{Operator: "none", ClassifierIDs: []string{cancel, refund}}, WhenTrue: "Yes", WhenFalse: "No"}},
		{Text: "Resolved?", Weight: 5, Tags: yesNo()},
	}}}}
	svc := qa.Service{Evaluations: e.cat.Evaluations, Classifiers: e.cat.Classifiers}
	f, err := svc.CreateForm(context.Background(), access.Organization(e.org.ID), "Auto QA", "", def)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
