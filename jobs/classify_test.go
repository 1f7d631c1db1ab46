package jobs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
)

func classifierInput(name, typ, definition string) catalog.ClassifierInput {
	cat := "Topics"
	yes := true
	return catalog.ClassifierInput{Name: &name, Type: &typ, CategoryName: &cat, Reportable: &yes, Groupable: &yes,
		Definition: json.RawMessage(definition)}
}

// The ingest job runs the organization's active classifiers over what it
// processed and commits their results with the conversations: one row per
// conversation and classifier in classifier_results and model_results,
// with the version they came from; inactive classifiers do not run.
func TestIngestClassifies(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	create := func(name, typ, def string) catalog.Classifier {
		c, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput(name, typ, def))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cancel := create("Cancellation", "Classifier", `{"groups":[{"rules":[{"phrases":["cancel"],"speaker":"Customer"}]}]}`)
	// Version 2 is what runs.
	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, cancel.ID, catalog.ClassifierInput{
		Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["cancel","declined"],"speaker":"Customer"}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	sentiment := create("Customer sentiment", "Core AI Model", `{"model":"sentiment","speaker":"Customer"}`)
	queue := create("Billing queue", "Metadata", `{"conditions":[{"field":"extendedMetadataValues.queue","op":"eq","value":"billing"}]}`)
	off := create("Switched off", "Classifier", `{"groups":[{"rules":[{"phrases":["hello"]}]}]}`)
	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, off.ID, catalog.ClassifierInput{IsActive: new(bool)}); err != nil {
		t.Fatal(err)
	}
	textID := e.stage(t, "cancel.txt", []byte(textChat))
	ccaiID := e.stage(t, "hello.json", []byte(ccaiChat))

	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["classifier_results"] != 6 || run.Counts["classifier_failures"] != 0 {
		t.Fatalf("counts %v", run.Counts)
	}
	day := time.Now().UTC()
	read := func(table, columns string) []string {
		files, err := e.cat.Manifest.LakeFiles(ctx, e.org.ID, table, day.AddDate(0, 0, -1), day.AddDate(0, 0, 1))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s files: %v %v", table, files, err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		rows, err := e.lake.QueryContext(ctx, `SELECT `+columns+` FROM read_parquet(`+lakedb.FileList(e.lake.Root(), paths)+`) ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var a, b, c, d string
			if err := rows.Scan(&a, &b, &c, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join([]string{a, b, c, d}, " "))
		}
		return out
	}
	name := map[string]string{cancel.ID: "cancel", sentiment.ID: "sentiment", queue.ID: "queue", textID: "text", ccaiID: "ccai"}
	label := func(rows []string) string {
		for k, v := range name {
			for i := range rows {
				rows[i] = strings.ReplaceAll(rows[i], k, v)
			}
		}
		return strings.Join(rows, "\n")
	}
	got := label(read("classifier_results", `conversation_id, classifier_id, classifier_version::VARCHAR, result || ' ' || len(evidence)`))
	for _, want := range []string{"text cancel 2 true 1", "ccai cancel 2 false 0", "text sentiment 1 Negative 0", "ccai sentiment 1 Positive 0",
		"text queue 1 true 0", "ccai queue 1 true 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("classifier_results lack %q:\n%s", want, got)
		}
	}
	got = label(read("model_results", `conversation_id, model_id, event_type, coalesce(result::VARCHAR, text_result)`))
	for _, want := range []string{"text cancel ModelResults true", "ccai sentiment ModelResults Positive"} {
		if !strings.Contains(got, want) {
			t.Errorf("model_results lack %q:\n%s", want, got)
		}
	}
}

// A reclassification replaces a classifier's results: after it (and after
// compaction), each conversation has one result for the classifier, from
// the new version; its progress is recorded while it runs.
func TestReclassifyReplacesResults(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Topic", "Classifier", `{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e.stage(t, "a.txt", []byte(textChat))  // "I want to cancel"
	e.stage(t, "b.json", []byte(ccaiChat)) // "Hi, I need help"
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, cl.ID, catalog.ClassifierInput{
		Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["help"]}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC()
	run, err := e.runner.Start(ctx, "reclassify", e.org.ID, catalog.ReclassifyParams{ClassifierID: cl.ID, From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	e.runner.Wait()
	done, err := e.cat.Jobs.OrgJobRun(ctx, e.org.ID, run.ID)
	if err != nil || done.Status != "succeeded" || done.Counts["conversations"] != 2 || done.Counts["lake_files"] != 4 {
		t.Fatalf("%+v %v", done, err) // one page per conversation: two files a page
	}
	if _, err := e.runner.Run(ctx, "compact"); err != nil {
		t.Fatal(err)
	}
	files, _ := e.cat.Manifest.LakeFiles(ctx, e.org.ID, "classifier_results", day.AddDate(0, 0, -1), day.AddDate(0, 0, 1))
	if len(files) != 1 {
		t.Fatalf("%d files after compaction", len(files))
	}
	var got string
	e.lake.QueryRowContext(context.Background(), `SELECT string_agg(classifier_version || ':' || result, ' ' ORDER BY result) FROM read_parquet(`+
		lakedb.FileList(e.lake.Root(), []string{files[0].Path})+`)`).Scan(&got)
	if got != "2:false 2:true" {
		t.Fatalf("compacted results %q, want version 2 only", got)
	}
	// A reclassification without its parameters fails with a clear error.
	if _, err := e.runner.Run(ctx, "reclassify"); err == nil || !strings.Contains(err.Error(), "needs an organization") {
		t.Fatalf("bare run: %v", err)
	}
}

// With redaction on, the lake holds "[card]" where the card number was
// (one sent as two messages too), and the PII classifier still saw it.
func TestIngestRedactsPII(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if err := e.cat.Settings.SetPrivacySettings(ctx, catalog.PrivacySettings{OrgID: e.org.ID, RedactPII: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("PII", "Core AI Model", `{"model":"pii"}`)); err != nil {
		t.Fatal(err)
	}
	e.stage(t, "pay.txt", []byte("[00:00:01] Agent: How would you like to pay?\n[00:00:05] Customer: My card is 4111 1111 1111 1111, mail me at ann@example.com"+
		"\n[00:00:09] Customer: and the other card is 5500 0000\n[00:00:10] Customer: 0000 0004 thanks"))
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil || run.Counts["classifier_results"] != 1 {
		t.Fatalf("%+v %v", run, err)
	}
	day := time.Now().UTC()
	read := func(table, column string) string {
		files, _ := e.cat.Manifest.LakeFiles(ctx, e.org.ID, table, day.AddDate(0, 0, -1), day.AddDate(0, 0, 1))
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		var out string
		e.lake.QueryRowContext(context.Background(), `SELECT string_agg(`+column+`, ' | ') FROM read_parquet(`+lakedb.FileList(e.lake.Root(), paths)+`)`).Scan(&out)
		return out
	}
	if got := read("transcript_segments", "text"); strings.Contains(got, "4111") || strings.Contains(got, "ann@") ||
		strings.Contains(got, "5500") || strings.Contains(got, "0004") ||
		!strings.Contains(got, "My card is [card], mail me at [email]") || !strings.Contains(got, "the other card is [card] | [card] thanks") {
		t.Fatalf("stored text %q", got)
	}
	if got := read("classifier_results", "result"); got != "true" {
		t.Fatalf("PII classifier %q", got)
	}
}

// With redaction on, a processed upload's staged original (which holds the
// personal data) is deleted after the commit, a failed one's is kept; with
// keepOriginals, or without redaction, every original is kept.
func TestRedactionDeletesProcessedOriginals(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	staged := func(id string) bool {
		t.Helper()
		it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.bucket.Stat(ctx, *it.StagedKey)
		return err == nil
	}
	chat := []byte("[00:00:01] Agent: Your card?\n[00:00:05] Customer: It is 4111 1111 1111 1111")
	kept := e.stage(t, "before.txt", chat)
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if !staged(kept) {
		t.Fatal("without redaction an original was deleted")
	}

	if err := e.cat.Settings.SetPrivacySettings(ctx, catalog.PrivacySettings{OrgID: e.org.ID, RedactPII: true}); err != nil {
		t.Fatal(err)
	}
	processed := e.stage(t, "pay.txt", chat)
	failed := e.stage(t, "broken.json", []byte(`{"messages":`))
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil || run.Counts["originals_deleted"] != 1 {
		t.Fatalf("%+v %v", run.Counts, err)
	}
	if staged(processed) || !staged(failed) || !staged(kept) {
		t.Fatalf("after the run: processed kept %v, failed kept %v, earlier kept %v", staged(processed), staged(failed), staged(kept))
	}
	// The API still names where the original was.
	if it, _ := e.cat.Interactions.Interaction(ctx, e.org.ID, processed); it.StagedKey == nil || it.Status != catalog.StatusReadyToSample {
		t.Fatalf("record %+v", it)
	}

	if err := e.cat.Settings.SetPrivacySettings(ctx, catalog.PrivacySettings{OrgID: e.org.ID, RedactPII: true, KeepOriginals: true}); err != nil {
		t.Fatal(err)
	}
	again := e.stage(t, "again.txt", chat)
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if !staged(again) {
		t.Fatal("with keepOriginals an original was deleted")
	}

	// A deletion a crash left recorded is done by the next run.
	it, _ := e.cat.Interactions.Interaction(ctx, e.org.ID, again)
	if _, err := e.sql.ExecContext(ctx, `INSERT INTO staged_deletions (interaction_id, staged_key) VALUES (?, ?)`, again, *it.StagedKey); err != nil {
		t.Fatal(err)
	}
	if run, err := e.runner.Run(ctx, "ingest"); err != nil || run.Counts["originals_deleted"] != 1 || staged(again) {
		t.Fatalf("the recorded deletion: %+v %v, still staged %v", run.Counts, err, staged(again))
	}
}

// A reclassification whose process dies after its last page committed is
// reported succeeded, not interrupted: the last page commits with the
// run's end. One that dies before is reported interrupted.
func TestReclassifyEndsWithItsLastPage(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Topic", "Classifier", `{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e.stage(t, "a.txt", []byte(textChat))
	e.stage(t, "b.json", []byte(ccaiChat))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC()
	params, _ := json.Marshal(catalog.ReclassifyParams{ClassifierID: cl.ID, From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)})
	// The job's own work, without the runner's recording of its end: the
	// process is killed right after the job returns.
	finished, _ := e.cat.Jobs.StartJobRunFor(ctx, "reclassify", "killed-host:1", e.org.ID, params)
	job := &Reclassify{Classifiers: e.cat.Classifiers, Hierarchy: e.cat.People, Interactions: e.cat.Interactions, Manifest: e.cat.Manifest,
		Transcripts: e.reader, Lake: &lake.Writer{Bucket: e.bucket}, Compiler: registry.Compiler{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Page: 1}
	if _, err := job.Run(ctx, finished); err != nil {
		t.Fatal(err)
	}
	cut, _ := e.cat.Jobs.StartJobRunFor(ctx, "reclassify", "killed-host:2", e.org.ID, params)
	if _, err := e.cat.Jobs.FailInterruptedRuns(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{finished.ID: "succeeded", cut.ID: "failed"} {
		run, err := e.cat.Jobs.OrgJobRun(ctx, e.org.ID, id)
		if err != nil || run.Status != want {
			t.Errorf("%s: %s (%v), want %s", id, run.Status, err, want)
		}
	}
	if run, _ := e.cat.Jobs.OrgJobRun(ctx, e.org.ID, finished.ID); run.Counts["conversations"] != 2 || run.EndedOn == nil {
		t.Errorf("the finished run's record: %+v", run)
	}
}
