package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// EvaluationStore keeps quality evaluation forms, evaluations and their
// answers. What a form means and how answers score is package quality's;
// the store keeps a form's definition as its JSON.
type EvaluationStore struct {
	handle
	// forms are each organization's forms, kept between changes: ingest
	// reads them for every upload (the auto-scored ones).
	forms orgCache[[]EvaluationForm]
}

// Statuses of an evaluation (the vendor's values).
const (
	EvaluationNotStarted     = "NotStarted"
	EvaluationInProgress     = "InProgress"
	EvaluationCompleted      = "Completed"
	EvaluationNoValue        = "NoValue"
	EvaluationPendingReview  = "PendingReview"
	EvaluationReviewComplete = "ReviewComplete"
	// EvaluationAutoScored is an Auto evaluation, answered by classifiers.
	EvaluationAutoScored = "AutoScored"
)

// EvaluationStatuses is every status, in lifecycle order.
var EvaluationStatuses = []string{EvaluationNotStarted, EvaluationInProgress, EvaluationCompleted, EvaluationNoValue,
	EvaluationPendingReview, EvaluationReviewComplete, EvaluationAutoScored}

// Sources of an evaluation: a person's, or answered by classifiers on
// every processed conversation of an auto-scored form.
const (
	SourceHuman = "Human"
	SourceAuto  = "Auto"
)

// EvaluationForm is a form as stored.
type EvaluationForm struct {
	ID          string
	OrgID       string
	Name        string
	Description string
	Definition  json.RawMessage
	IsActive    bool
	CreatedOn   time.Time
	ModifiedOn  time.Time
}

// Evaluation is an analyst's evaluation of a conversation for an agent,
// or one answered by classifiers (Source Auto, no analyst).
type Evaluation struct {
	ID             string
	OrgID          string
	Number         int
	FormID         string
	ConversationID string
	AgentID        *string
	AnalystID      string // "" for an Auto evaluation
	Source         string
	// AutoAnswers are the classifier results an Auto evaluation's answers
	// come from, as its form's scorecard writes them
	// (quality.Scorecard.Results); Answers holds only those a reviewer
	// confirmed or overrode.
	AutoAnswers    string
	Status         string
	CallSummary    *string
	CustomerTypeID *string
	Score          *float64
	AssignedOn     time.Time
	SubmittedOn    *time.Time
	ModifiedOn     time.Time
	Answers        []EvaluationAnswer
}

// EvaluationAnswer is the answer to one question of an evaluation.
type EvaluationAnswer struct {
	QuestionID    string
	AnswerID      string
	ModuleID      string
	ModuleName    string
	QuestionText  string
	Category      string
	Weight        float64
	TagIDs        []string
	TagValues     []string
	FillIn        *string
	Note          *string
	WeightedScore *float64
	// AutoTagIDs are what the classifiers answered (nil: a person's
	// answer); TagIDs differ from them once a reviewer overrode the answer.
	// AutoTagValues are their values, where read with the form.
	AutoTagIDs    []string
	AutoTagValues []string
	ReviewedBy    *string // who confirmed or overrode the auto answer
	ReviewedOn    *time.Time
}

// CreateForm stores a new form; a name the organization uses is
// ErrExists.
func (c *EvaluationStore) CreateForm(ctx context.Context, f EvaluationForm) (EvaluationForm, error) {
	f.ID, f.IsActive = NewID(), true
	f.CreatedOn, f.ModifiedOn = now(), now()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var taken int
		tx.QueryRowContext(ctx, `SELECT count(*) FROM evaluation_forms WHERE org_id = ? AND lower(name) = lower(?)`, f.OrgID, f.Name).Scan(&taken)
		if taken > 0 {
			return fieldErr("name", ErrExists, "is the name of another form of your organization.")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO evaluation_forms (id, org_id, name, description, definition, is_active, created_on, modified_on)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.ID, f.OrgID, f.Name, f.Description, string(f.Definition), f.IsActive, f.CreatedOn, f.ModifiedOn); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainForms, f.OrgID)
	})
	c.forms.invalidate(f.OrgID)
	return f, err
}

const formColumns = `id, org_id, name, description, definition, is_active, created_on, modified_on`

func scanForm(s scanner) (EvaluationForm, error) {
	var f EvaluationForm
	var def string
	err := s.Scan(&f.ID, &f.OrgID, &f.Name, &f.Description, &def, &f.IsActive, &f.CreatedOn, &f.ModifiedOn)
	f.Definition = json.RawMessage(def)
	f.CreatedOn, f.ModifiedOn = f.CreatedOn.UTC(), f.ModifiedOn.UTC()
	return f, err
}

// SetFormActive offers a form for new evaluations, or stops offering it
// (its evaluations keep it).
func (c *EvaluationStore) SetFormActive(ctx context.Context, orgID, id string, active bool) error {
	defer c.forms.invalidate(orgID)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE evaluation_forms SET is_active = ?, modified_on = ? WHERE org_id = ? AND id = ?`, active, now(), orgID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return c.changed(ctx, tx, domainForms, orgID)
	})
}

// Forms lists an organization's forms by name (kept in memory between
// changes; the list is shared: read it, do not change it).
func (c *EvaluationStore) Forms(ctx context.Context, orgID string) ([]EvaluationForm, error) {
	return c.forms.load(orgID, func() ([]EvaluationForm, error) {
		return queryAll(ctx, c.db, scanForm, `SELECT `+formColumns+` FROM evaluation_forms WHERE org_id = ? ORDER BY name, id`, orgID)
	})
}

// Form is one form of the organization.
func (c *EvaluationStore) Form(ctx context.Context, orgID, id string) (EvaluationForm, error) {
	return one(queryAll(ctx, c.db, scanForm, `SELECT `+formColumns+` FROM evaluation_forms WHERE org_id = ? AND id = ?`, orgID, id))
}

// one is the single row of a lookup, or ErrNotFound.
func one[T any](rows []T, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if len(rows) == 0 {
		return zero, ErrNotFound
	}
	return rows[0], nil
}

// CreateEvaluation assigns a new evaluation, numbered after the
// organization's last one, status NotStarted.
func (c *EvaluationStore) CreateEvaluation(ctx context.Context, e Evaluation) (Evaluation, error) {
	e.ID, e.Status, e.Source = NewID(), EvaluationNotStarted, SourceHuman
	e.AssignedOn, e.ModifiedOn = now(), now()
	e.Answers = []EvaluationAnswer{}
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if e.Number, err = c.nextEvaluationNumber(ctx, tx, e.OrgID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO evaluations (id, org_id, number, form_id, conversation_id, agent_id, analyst_id, status,
			call_summary, customer_type_id, score, assigned_on, submitted_on, modified_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, NULL, ?)`,
			e.ID, e.OrgID, e.Number, e.FormID, e.ConversationID, e.AgentID, e.AnalystID, e.Status, e.AssignedOn, e.ModifiedOn)
		return err
	})
	return e, err
}

// EvaluationFilter selects evaluations; nil and zero fields do not filter.
type EvaluationFilter struct {
	ModifiedFrom, ModifiedTo *time.Time
	Status                   string
	Source                   string // SourceHuman or SourceAuto; "" for both
	IDs                      []string
	ConversationIDs          []string
	AnalystID                string
	Statuses                 []string // any of them
	NodeIDs                  []string // the conversations' hierarchy nodes (the caller expands descendants)
	Scope                    Scope    // what the caller may read
	AfterNumber              int
	Limit                    int
}

// evaluationColumns are a person's evaluation's columns as scanEvaluation
// reads them (Auto evaluations are rows of auto_evaluations:
// scanAutoEvaluation).
const evaluationColumns = `e.id, e.org_id, e.number, e.form_id, e.conversation_id, e.agent_id, e.analyst_id, e.status, e.call_summary,
	e.customer_type_id, e.score, e.assigned_on, e.submitted_on, e.modified_on`

func scanEvaluation(s scanner) (Evaluation, error) {
	e := Evaluation{Source: SourceHuman}
	err := s.Scan(&e.ID, &e.OrgID, &e.Number, &e.FormID, &e.ConversationID, &e.AgentID, &e.AnalystID, &e.Status, &e.CallSummary,
		&e.CustomerTypeID, &e.Score, &e.AssignedOn, &e.SubmittedOn, &e.ModifiedOn)
	e.AssignedOn, e.ModifiedOn, e.SubmittedOn = e.AssignedOn.UTC(), e.ModifiedOn.UTC(), stampPtr(e.SubmittedOn)
	return e, err
}

// Evaluations lists an organization's evaluations by number, with their
// answers. The conversation's hierarchy node and media decide the node
// and scope filters.
func (c *EvaluationStore) Evaluations(ctx context.Context, orgID string, f EvaluationFilter) ([]Evaluation, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var list []Evaluation
	if f.Source != SourceAuto {
		people, err := c.peoplesEvaluations(ctx, orgID, f, limit)
		if err != nil {
			return nil, err
		}
		list = people
	}
	if f.Source != SourceHuman {
		auto, err := c.autoEvaluations(ctx, orgID, f, limit)
		if err != nil {
			return nil, err
		}
		list = mergeByNumber(list, auto, limit)
	}
	if len(list) == 0 {
		return list, nil
	}
	return list, c.attachAnswers(ctx, orgID, list)
}

// conditions are a query's WHERE conditions and their arguments.
type conditions struct {
	where []string
	args  []any
}

func (c *conditions) add(cond string, a ...any) {
	c.where = append(c.where, cond)
	c.args = append(c.args, a...)
}

// evaluationConditions are the conditions of f on evaluations e of either
// source and their conversations i.
func evaluationConditions(orgID string, f EvaluationFilter) *conditions {
	c := &conditions{}
	c.add("e.org_id = ?", orgID)
	if f.ConversationIDs != nil {
		c.add(anyOf("e.conversation_id"), list(f.ConversationIDs))
	}
	if f.NodeIDs != nil {
		c.add(anyOf("i.hierarchy_node_id"), list(f.NodeIDs))
	}
	if f.Scope != nil {
		cond, scopeArgs := f.Scope.where("i.media_type", "i.hierarchy_node_id")
		c.add(cond, scopeArgs...)
	}
	if f.AfterNumber > 0 {
		c.add("e.number > ?", f.AfterNumber)
	}
	return c
}

// peoplesEvaluations are the evaluations of people that f selects.
func (c *EvaluationStore) peoplesEvaluations(ctx context.Context, orgID string, f EvaluationFilter, limit int) ([]Evaluation, error) {
	w := evaluationConditions(orgID, f)
	if f.ModifiedFrom != nil {
		w.add("e.modified_on >= ?", stamp(*f.ModifiedFrom))
	}
	if f.ModifiedTo != nil {
		w.add("e.modified_on <= ?", stamp(*f.ModifiedTo))
	}
	if f.Status != "" {
		w.add("e.status = ?", f.Status)
	}
	if f.IDs != nil {
		w.add(anyOf("e.id"), list(f.IDs))
	}
	if f.AnalystID != "" {
		w.add("e.analyst_id = ?", f.AnalystID)
	}
	if f.Statuses != nil {
		w.add(anyOf("e.status"), list(f.Statuses))
	}
	return queryAll(ctx, c.db, scanEvaluation, `SELECT `+evaluationColumns+` FROM evaluations e
		JOIN interactions i ON i.org_id = e.org_id AND i.id = e.conversation_id
		WHERE `+strings.Join(w.where, " AND ")+` ORDER BY e.number LIMIT ?`, append(w.args, limit)...)
}

// autoEvaluations are the Auto evaluations that f selects: none where it
// asks for an analyst, another status or only people's ids.
func (c *EvaluationStore) autoEvaluations(ctx context.Context, orgID string, f EvaluationFilter, limit int) ([]Evaluation, error) {
	if f.AnalystID != "" || f.Status != "" && f.Status != EvaluationAutoScored ||
		f.Statuses != nil && !slices.Contains(f.Statuses, EvaluationAutoScored) {
		return nil, nil
	}
	w := evaluationConditions(orgID, f)
	if f.ModifiedFrom != nil {
		w.add("coalesce(e.modified_on, e.scored_on) >= ?", stamp(*f.ModifiedFrom))
	}
	if f.ModifiedTo != nil {
		w.add("coalesce(e.modified_on, e.scored_on) <= ?", stamp(*f.ModifiedTo))
	}
	if f.IDs != nil {
		var numbers []int
		for _, id := range f.IDs {
			if n, ok := autoEvaluationNumber(orgID, id); ok {
				numbers = append(numbers, n)
			}
		}
		if len(numbers) == 0 {
			return nil, nil
		}
		w.add(anyIntOf("e.number"), intList(numbers))
	}
	return queryAll(ctx, c.db, scanAutoEvaluation, `SELECT e.org_id, e.number, e.form_id, e.conversation_id, i.agent_id, e.score,
		e.auto_answers, e.scored_on, e.modified_on
		FROM auto_evaluations e JOIN interactions i ON i.org_id = e.org_id AND i.id = e.conversation_id
		WHERE `+strings.Join(w.where, " AND ")+` ORDER BY e.number LIMIT ?`, append(w.args, limit)...)
}

// scanAutoEvaluation reads an Auto evaluation's row as an Evaluation.
func scanAutoEvaluation(s scanner) (Evaluation, error) {
	e := Evaluation{Source: SourceAuto, Status: EvaluationAutoScored}
	var modified *time.Time
	err := s.Scan(&e.OrgID, &e.Number, &e.FormID, &e.ConversationID, &e.AgentID, &e.Score, &e.AutoAnswers, &e.AssignedOn, &modified)
	e.ID, e.AssignedOn, e.ModifiedOn = AutoEvaluationID(e.OrgID, e.Number), e.AssignedOn.UTC(), e.AssignedOn.UTC()
	if modified != nil {
		e.ModifiedOn = modified.UTC()
	}
	return e, err
}

// mergeByNumber is two lists in number order merged, the first limit.
func mergeByNumber(a, b []Evaluation, limit int) []Evaluation {
	out := make([]Evaluation, 0, min(len(a)+len(b), limit))
	for len(out) < limit && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || len(a) > 0 && a[0].Number < b[0].Number {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// Evaluation is one evaluation of the organization, with its answers.
func (c *EvaluationStore) Evaluation(ctx context.Context, orgID, id string) (Evaluation, error) {
	return one(c.Evaluations(ctx, orgID, EvaluationFilter{IDs: []string{id}, Limit: 1}))
}

func (c *EvaluationStore) attachAnswers(ctx context.Context, orgID string, evaluations []Evaluation) error {
	byID := map[string]int{}
	ids := make([]string, len(evaluations))
	for i := range evaluations {
		byID[evaluations[i].ID] = i
		ids[i] = evaluations[i].ID
		evaluations[i].Answers = []EvaluationAnswer{}
	}
	rows, err := c.db.QueryContext(ctx, `SELECT evaluation_id, `+answerColumns+` FROM evaluation_answers
		WHERE org_id = ? AND `+anyOf("evaluation_id")+` ORDER BY evaluation_id, answer_id`, orgID, list(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a EvaluationAnswer
		var auto *strList
		if err := rows.Scan(&id, &a.QuestionID, &a.AnswerID, &a.ModuleID, &a.ModuleName, &a.QuestionText, &a.Category, &a.Weight,
			(*strList)(&a.TagIDs), (*strList)(&a.TagValues), &a.FillIn, &a.Note, &a.WeightedScore, &auto, &a.ReviewedBy, &a.ReviewedOn); err != nil {
			return err
		}
		if auto != nil {
			a.AutoTagIDs = *auto
		}
		a.ReviewedOn = stampPtr(a.ReviewedOn)
		e := &evaluations[byID[id]]
		e.Answers = append(e.Answers, a)
	}
	return rows.Err()
}

// ErrEvaluationClosed: the evaluation's status no longer allows the
// change.
var ErrEvaluationClosed = errors.New("catalog: the evaluation's status does not allow this change")

// EvaluationChange is what SaveEvaluation writes: the answers (all of
// them, replacing the earlier ones; nil leaves them), the summary and
// customer type (nil leaves them), the score, and the status, allowed
// only from the statuses listed.
type EvaluationChange struct {
	Answers        []EvaluationAnswer
	CallSummary    *string
	CustomerTypeID *string
	Score          *float64
	Status         string
	From           []string
	Submitted      bool // stamps submitted_on
}

// SaveEvaluation applies a change in one transaction; an evaluation in a
// status the change does not start from is ErrEvaluationClosed.
func (c *EvaluationStore) SaveEvaluation(ctx context.Context, orgID, id string, ch EvaluationChange) (Evaluation, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM evaluations WHERE org_id = ? AND id = ?`, orgID, id).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if !slices.Contains(ch.From, status) {
			return ErrEvaluationClosed
		}
		set := []string{"status = ?", "modified_on = ?"}
		args := []any{ch.Status, now()}
		if ch.CallSummary != nil {
			set, args = append(set, "call_summary = ?"), append(args, *ch.CallSummary)
		}
		if ch.CustomerTypeID != nil {
			set, args = append(set, "customer_type_id = ?"), append(args, *ch.CustomerTypeID)
		}
		if ch.Answers != nil {
			set, args = append(set, "score = ?"), append(args, ch.Score)
		}
		if ch.Submitted {
			set, args = append(set, "submitted_on = ?"), append(args, now())
		}
		if _, err := tx.ExecContext(ctx, `UPDATE evaluations SET `+strings.Join(set, ", ")+` WHERE org_id = ? AND id = ?`,
			append(args, orgID, id)...); err != nil {
			return err
		}
		if ch.Answers == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE org_id = ? AND evaluation_id = ?`, orgID, id); err != nil {
			return err
		}
		rows := make([][]any, len(ch.Answers))
		for i, a := range ch.Answers {
			rows[i] = answerRow(id, orgID, a)
		}
		return c.bulkInsert(ctx, tx, "evaluation_answers", answerInsertColumns, rows)
	})
	if err != nil {
		return Evaluation{}, err
	}
	return c.Evaluation(ctx, orgID, id)
}

// answerColumns are an answer's columns as attachAnswers scans them.
const answerColumns = `question_id, answer_id, module_id, module_name, question_text, category, weight,
	tag_ids, tag_values, fill_in, note, weighted_score, auto_tag_ids, reviewed_by, reviewed_on`

var answerInsertColumns = []string{"evaluation_id", "org_id", "question_id", "answer_id", "module_id", "module_name", "question_text",
	"category", "weight", "tag_ids", "tag_values", "fill_in", "note", "weighted_score", "auto_tag_ids", "reviewed_by", "reviewed_on"}

// answerRow is an answer's values in answerInsertColumns order.
func answerRow(evaluationID, orgID string, a EvaluationAnswer) []any {
	var auto any // NULL for a person's answer
	if a.AutoTagIDs != nil {
		auto = strList(a.AutoTagIDs)
	}
	return []any{evaluationID, orgID, a.QuestionID, a.AnswerID, a.ModuleID, a.ModuleName, a.QuestionText, a.Category, a.Weight,
		strList(a.TagIDs), strList(a.TagValues), a.FillIn, a.Note, a.WeightedScore, auto, a.ReviewedBy, stampPtr(a.ReviewedOn)}
}
