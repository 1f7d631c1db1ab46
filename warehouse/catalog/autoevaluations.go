package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// replaceAutoEvaluations, inside an ingest commit, drops the Auto
// evaluations (and their reviews) of the conversations the commit
// replaces (by organization), and inserts the batch's, numbered after each
// organization's last evaluation: one row each.
func (c *InteractionStore) replaceAutoEvaluations(ctx context.Context, tx *sql.Tx, replaced map[string][]string, outcomes []UploadOutcome, t time.Time) error {
	// Numbered before the replaced ones go: a number is never given twice
	// in a row, so a client paging by number past a replaced evaluation
	// still finds its replacement after it.
	next := map[string]int{} // organization → its next evaluation number
	for _, o := range outcomes {
		for _, e := range o.Evaluations {
			if _, ok := next[e.OrgID]; !ok {
				n, err := c.nextEvaluationNumber(ctx, tx, e.OrgID)
				if err != nil {
					return err
				}
				next[e.OrgID] = n
			}
		}
	}
	for org, ids := range replaced {
		of := `org_id = ? AND ` + anyOf("conversation_id") + ` AND source = 'Auto'`
		if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE org_id = ? AND evaluation_id IN (SELECT id FROM evaluations WHERE `+of+`)`,
			org, org, list(ids)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM evaluations WHERE `+of, org, list(ids)); err != nil {
			return err
		}
	}
	// A form's evaluations in an organization share all but six columns:
	// those go once a statement.
	type group struct{ org, form string }
	var order []group
	rows := map[group][][]any{}
	for _, o := range outcomes {
		for _, e := range o.Evaluations {
			n := next[e.OrgID]
			next[e.OrgID] = n + 1
			var agent, score any // plain values: the driver converts a pointer by reflection
			if e.AgentID != nil {
				agent = *e.AgentID
			}
			if e.Score != nil {
				score = *e.Score
			}
			g := group{e.OrgID, e.FormID}
			if _, ok := rows[g]; !ok {
				order = append(order, g)
			}
			rows[g] = append(rows[g], []any{e.ID, n, e.ConversationID, agent, score, e.AutoAnswers})
		}
	}
	at := stamp(t)
	for _, g := range order {
		shared := sharedColumns{Columns: autoEvaluationShared, Values: []any{g.org, g.form, "", SourceAuto, EvaluationAutoScored, at, at}}
		if err := c.bulkInsertShared(ctx, tx, "evaluations", shared, autoEvaluationColumns, rows[g]); err != nil {
			return err
		}
	}
	return nil
}

// nextEvaluationNumber is the organization's next evaluation number. On
// PostgreSQL the organization's row is locked until the transaction ends:
// two processes numbering at once (peers ingesting, a person assigning)
// would otherwise take the same number and one would fail.
func (h handle) nextEvaluationNumber(ctx context.Context, tx *sql.Tx, orgID string) (int, error) {
	if h.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM organizations WHERE id = ?`+h.lockRows(), orgID); err != nil {
			return 0, err
		}
	}
	var n int
	err := tx.QueryRowContext(ctx, `SELECT coalesce(max(number), 0) + 1 FROM evaluations WHERE org_id = ?`, orgID).Scan(&n)
	return n, err
}

// The columns of an Auto evaluation's row: those an organization's
// evaluations of a form in one commit share, and each one's own.
var (
	autoEvaluationShared  = []string{"org_id", "form_id", "analyst_id", "source", "status", "assigned_on", "modified_on"}
	autoEvaluationColumns = []string{"id", "number", "conversation_id", "agent_id", "score", "auto_answers"}
)

// ErrNotAuto: the evaluation is a person's; only Auto evaluations' answers
// are reviewed.
var ErrNotAuto = errors.New("catalog: the evaluation is not an Auto evaluation")

// ReviewAutoAnswers records a reviewer's confirmations and overrides of an
// Auto evaluation's answers — each answer with the classifiers' choice in
// AutoTagIDs and who reviewed it, when — and the evaluation's score they
// give, in one transaction; a question reviewed again keeps the latest. A
// person's evaluation is ErrNotAuto.
func (c *EvaluationStore) ReviewAutoAnswers(ctx context.Context, orgID, id string, reviewed []EvaluationAnswer, score *float64) (Evaluation, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var source string
		err := tx.QueryRowContext(ctx, `SELECT source FROM evaluations WHERE org_id = ? AND id = ?`, orgID, id).Scan(&source)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if source != SourceAuto {
			return ErrNotAuto
		}
		rows := make([][]any, len(reviewed))
		for i, a := range reviewed {
			if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE org_id = ? AND evaluation_id = ? AND question_id = ?`,
				orgID, id, a.QuestionID); err != nil {
				return err
			}
			rows[i] = answerRow(id, orgID, a)
		}
		if err := c.bulkInsert(ctx, tx, "evaluation_answers", answerInsertColumns, rows); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE evaluations SET score = ?, modified_on = ? WHERE org_id = ? AND id = ?`, score, now(), orgID, id)
		return err
	})
	if err != nil {
		return Evaluation{}, err
	}
	return c.Evaluation(ctx, orgID, id)
}

// AnswerPair is what the classifiers answered to a question of a form and
// what a person answered to it for the same conversation: a reviewer of
// the Auto evaluation (Reviewed: Auto holds the classifiers' tags), or a
// submitted Human evaluation on the same form (AutoAnswers holds the Auto
// evaluation's answers, as Evaluation.AutoAnswers).
type AnswerPair struct {
	QuestionID  string
	Human       []string // tag ids
	Auto        []string
	AutoAnswers string
	Reviewed    bool
}

// AnswerPairs are every pair of a form's auto answers and people's
// answers to the same question of the same conversation.
func (c *EvaluationStore) AnswerPairs(ctx context.Context, orgID, formID string) ([]AnswerPair, error) {
	reviewed, err := queryAll(ctx, c.db, func(s scanner) (AnswerPair, error) {
		p := AnswerPair{Reviewed: true}
		err := s.Scan(&p.QuestionID, (*strList)(&p.Auto), (*strList)(&p.Human))
		return p, err
	}, `SELECT a.question_id, a.auto_tag_ids, a.tag_ids
		FROM evaluations e JOIN evaluation_answers a ON a.org_id = e.org_id AND a.evaluation_id = e.id
		WHERE e.org_id = ? AND e.form_id = ? AND e.source = 'Auto' AND a.reviewed_by IS NOT NULL`, orgID, formID)
	if err != nil {
		return nil, err
	}
	// From the few Human evaluations to the Auto one of their conversation.
	evaluated, err := queryAll(ctx, c.db, func(s scanner) (AnswerPair, error) {
		var p AnswerPair
		err := s.Scan(&p.QuestionID, (*strList)(&p.Human), &p.AutoAnswers)
		return p, err
	}, `SELECT h.question_id, h.tag_ids, ae.auto_answers
		FROM evaluations he
		JOIN evaluation_answers h ON h.org_id = he.org_id AND h.evaluation_id = he.id
		JOIN evaluations ae ON ae.org_id = he.org_id AND ae.conversation_id = he.conversation_id AND ae.form_id = he.form_id AND ae.source = 'Auto'
		WHERE he.org_id = ? AND he.form_id = ? AND he.source = 'Human' AND he.status IN (?, ?, ?)`,
		orgID, formID, EvaluationCompleted, EvaluationPendingReview, EvaluationReviewComplete)
	return append(reviewed, evaluated...), err
}

// UpdateAutoEvaluations writes Auto evaluations' new results and scores
// (a reclassification's), in one transaction.
func (c *EvaluationStore) UpdateAutoEvaluations(ctx context.Context, orgID string, changed []Evaluation) error {
	if len(changed) == 0 {
		return nil
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE evaluations SET auto_answers = ?, score = ?, modified_on = ? WHERE org_id = ? AND id = ? AND source = 'Auto'`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		t := now()
		for _, e := range changed {
			if _, err := stmt.ExecContext(ctx, e.AutoAnswers, e.Score, t, orgID, e.ID); err != nil {
				return err
			}
		}
		return nil
	})
}
