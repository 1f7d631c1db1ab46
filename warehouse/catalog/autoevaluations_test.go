package catalog

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
	"github.com/earshot/earshot/sql/migrations"
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
	if again, err := c.Evaluations.Evaluations(ctx, org.ID, EvaluationFilter{Source: SourceAuto, Limit: 10}); err != nil || len(again) != 3 ||
		again[1].AutoAnswers != "1" || *again[1].Score != 100 || !again[1].ModifiedOn.After(again[1].AssignedOn) || again[2].AutoAnswers != "0" {
		t.Fatalf("rescored %+v %v", again, err)
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

// An Auto evaluation's id is made from its organization and number, and
// read back only for the same organization; people's ids (version 7) and
// other organizations' are none of its.
func TestAutoEvaluationIDs(t *testing.T) {
	t.Parallel()
	org, other := "0190f2a4-5b6c-7d8e-9f01-23456789abcd", "0190f2a4-5b6c-7d8e-9f01-000000000001"
	id := AutoEvaluationID(org, 300)
	if id != "23456789-abcd-8000-8000-00000000012c" {
		t.Fatalf("id %s", id)
	}
	for _, tc := range []struct {
		org, id string
		number  int
		ok      bool
	}{
		{org, id, 300, true},
		{org, strings.ToUpper(id), 300, true},
		{org, AutoEvaluationID(org, 1<<40), 1 << 40, true},
		{other, id, 0, false},
		{org, "0190f2a4-5b6c-7d8e-9f01-23456789abcd", 0, false},
		{org, "23456789-abcd-8000-8000-00000000000g", 0, false},
		{org, "23456789-abcd-8000-8000-000000000000", 0, false},
		{org, id[:35], 0, false},
		{"short", AutoEvaluationID("short", 7), 7, true},
	} {
		if n, ok := autoEvaluationNumber(tc.org, tc.id); n != tc.number || ok != tc.ok {
			t.Errorf("autoEvaluationNumber(%s, %s) = %d, %v; want %d, %v", tc.org, tc.id, n, ok, tc.number, tc.ok)
		}
	}
}

// Migration 0031 moves the Auto evaluations that evaluations held into
// their own table, under ids made from their numbers, with their
// reviews; people's stay as they were.
func TestAutoEvaluationsMoveToTheirTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	address := filepath.Join(t.TempDir(), "catalog.db")
	driver, base := driverName, fs.FS(migrations.SQLite)
	if testEngine == "postgres" {
		address, driver, base = pgtest.Database(t), postgresDriverName, overlay{migrations.SQLite, migrations.Postgres}
	} else {
		address = sqliteDSN(address)
	}
	db, err := sql.Open(driver, address)
	if err != nil {
		t.Fatal(err)
	}
	c := newCatalog(db, testEngine == "postgres")
	t.Cleanup(func() { c.Close() })
	before := fstest.MapFS{}
	names, _ := fs.Glob(base, "*.sql")
	for _, name := range names {
		if name < "0031" {
			body, _ := fs.ReadFile(base, name)
			before[name] = &fstest.MapFile{Data: body}
		}
	}
	if err := c.applyMigrations(ctx, before); err != nil {
		t.Fatal(err)
	}
	org := NewID()
	conv := NewID()
	at, later := stamp(time.Now()), stamp(time.Now().Add(time.Minute))
	must := func(query string, args ...any) {
		t.Helper()
		if _, err := c.db.ExecContext(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
	}
	must(`INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)`, org, "acme", at)
	insert := `INSERT INTO evaluations (id, org_id, number, form_id, conversation_id, agent_id, analyst_id, status, score, assigned_on, modified_on, source, auto_answers)
		VALUES (?, ?, ?, 'f', ?, NULL, ?, ?, ?, ?, ?, ?, ?)`
	human, reviewed, plain := NewID(), NewID(), NewID()
	must(insert, human, org, 1, conv, "u", EvaluationNotStarted, nil, at, at, SourceHuman, nil)
	must(insert, reviewed, org, 2, conv, "", EvaluationAutoScored, 0.0, at, later, SourceAuto, "10")
	must(insert, plain, org, 3, NewID(), "", EvaluationAutoScored, 100.0, at, at, SourceAuto, "11")
	must(`INSERT INTO evaluation_answers (evaluation_id, org_id, question_id, answer_id, module_id, module_name, question_text, category, weight,
		tag_ids, tag_values, auto_tag_ids, reviewed_by, reviewed_on) VALUES (?, ?, 'q', 'a', 'm', 'M', 'Q?', '', 1, '["no"]', '["No"]', '["yes"]', 'u', ?)`,
		reviewed, org, later)
	if err := c.applyMigrations(ctx, base); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rows := [][]any{}
	for _, id := range []string{conv} {
		rows = append(rows, interactionRow(Interaction{ID: id, OrgID: org, MediaType: MediaChat, Status: StatusReadyToSample,
			FileName: id + ".json", ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, &id))
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	list, err := c.Evaluations.Evaluations(ctx, org, EvaluationFilter{Limit: 10})
	if err != nil || len(list) != 2 || list[0].ID != human || list[1].ID != AutoEvaluationID(org, 2) || list[1].Source != SourceAuto ||
		list[1].AutoAnswers != "10" || !list[1].AssignedOn.Equal(at) || !list[1].ModifiedOn.Equal(later) ||
		len(list[1].Answers) != 1 || list[1].Answers[0].AutoTagIDs[0] != "yes" {
		t.Fatalf("after the migration %+v %v", list, err)
	}
	var left int
	if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM evaluations WHERE source = 'Auto'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d Auto evaluations left in evaluations: %v", left, err)
	}
	var next int
	if err := c.inTx(ctx, func(tx *sql.Tx) (err error) { next, err = c.nextEvaluationNumber(ctx, tx, org); return err }); err != nil || next != 4 {
		t.Fatalf("next number %d %v", next, err)
	}
}

// A dashboard's Auto scores, asked right after a first large load (before
// PostgreSQL's autovacuum has gathered statistics of the new rows), find
// each conversation's Auto evaluation by one lookup of both its
// organization and conversation: never by ANDing a conversation index with
// the primary key's organization, which reads all the organization's
// evaluations for every conversation.
func TestAutoScoresPlanBeforeStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := loadAutoScored(t, c, org.ID, 2000, 7)
	q := ScoreQuery{ArrivedFrom: now.Add(-time.Hour), ArrivedTo: now.Add(time.Hour), ByAgent: true, Source: SourceAuto}
	statement, args := scoresStatement(org.ID, q)
	// The condition on both columns, as each engine prints it.
	lookup := "INDEX auto_evaluations_conversation (conversation_id=? AND org_id=?"
	if testEngine == "postgres" {
		lookup = "Index Cond: ((conversation_id = (i.id)::text) AND (org_id = "
	}
	if plan := planOf(t, c, statement, args...); !strings.Contains(plan, lookup) || strings.Contains(plan, "BitmapAnd") {
		t.Fatalf("the plan of a dashboard's Auto scores before statistics (want a lookup of %q):\n%s", lookup, plan)
	}
	if groups, err := c.Evaluations.ScoresBy(ctx, org.ID, q); err != nil || len(groups) != 7 {
		t.Fatalf("groups %+v %v", groups, err)
	}
}
