package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// replaceAutoEvaluations, inside an ingest commit, drops the Auto
// evaluations (and their reviews) of the conversations the commit
// replaces (by organization), and inserts the batch's, numbered after each
// organization's last evaluation: a row of auto_evaluations each.
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
		gone, err := queryAll(ctx, tx, func(s scanner) (string, error) {
			var n int
			err := s.Scan(&n)
			return AutoEvaluationID(org, n), err
		}, `DELETE FROM auto_evaluations WHERE org_id = ? AND `+anyOf("conversation_id")+` RETURNING number`, org, list(ids))
		if err != nil {
			return err
		}
		if len(gone) > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE org_id = ? AND `+anyOf("evaluation_id"), org, list(gone)); err != nil {
				return err
			}
		}
	}
	// An organization's evaluations of a form in one commit share their
	// organization, form and time: bulkInsert binds those once.
	at := stamp(t)
	var rows [][]any
	for _, o := range outcomes {
		for _, e := range o.Evaluations {
			n := next[e.OrgID]
			next[e.OrgID] = n + 1
			var score any // a plain value: the driver converts a pointer by reflection
			if e.Score != nil {
				score = *e.Score
			}
			rows = append(rows, []any{e.OrgID, e.FormID, at, n, e.ConversationID, score, e.AutoAnswers})
		}
	}
	return c.bulkInsert(ctx, tx, "auto_evaluations", autoEvaluationColumns, rows)
}

// nextEvaluationNumber is the organization's next evaluation number, after
// both people's and Auto evaluations. On PostgreSQL the organization's row
// is locked until the transaction ends: two processes numbering at once
// (peers ingesting, a person assigning) would otherwise take the same
// number and one would fail.
func (h handle) nextEvaluationNumber(ctx context.Context, tx *sql.Tx, orgID string) (int, error) {
	if h.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM organizations WHERE id = ?`+h.lockRows(), orgID); err != nil {
			return 0, err
		}
	}
	var n int
	err := tx.QueryRowContext(ctx, `SELECT coalesce(max(last), 0) + 1 FROM (SELECT max(number) AS last FROM evaluations WHERE org_id = ?
		UNION ALL SELECT max(number) FROM auto_evaluations WHERE org_id = ?) AS lasts`, orgID, orgID).Scan(&n)
	return n, err
}

// autoEvaluationColumns are the columns of an Auto evaluation's row.
var autoEvaluationColumns = []string{"org_id", "form_id", "scored_on", "number", "conversation_id", "score", "auto_answers"}

// AutoEvaluationID is the id of an organization's Auto evaluation of a
// number: the last twelve hex digits of the organization's id, then
// "8000-8000" (a UUID of version 8; people's evaluations have ids of
// version 7, so the two never meet), then the number. An id made from
// the row's key needs no column or index of its own in a row ingest
// writes for every conversation; the organization's digits keep two
// organizations' Auto evaluations of one number apart.
func AutoEvaluationID(orgID string, number int) string {
	tail := orgDigits(orgID)
	return fmt.Sprintf("%s-%s-8000-8000-%012x", tail[:8], tail[8:], number)
}

// autoEvaluationPrefix is what every id of the organization's Auto
// evaluations starts with: their answers are a range of
// evaluation_answers' key.
func autoEvaluationPrefix(orgID string) string {
	return AutoEvaluationID(orgID, 0)[:24]
}

// autoEvaluationNumber is the number of the organization's Auto
// evaluation an id names; false when the id names none of its.
func autoEvaluationNumber(orgID, id string) (int, bool) {
	id = strings.ToLower(id)
	tail := orgDigits(orgID)
	if len(id) != 36 || id[:8] != tail[:8] || id[8] != '-' || id[9:13] != tail[8:] || id[13:24] != "-8000-8000-" {
		return 0, false
	}
	n, err := strconv.ParseUint(id[24:], 16, 48)
	if err != nil || n == 0 {
		return 0, false
	}
	return int(n), true
}

// orgDigits are the last twelve hex digits of an organization's id (a
// UUID; the migration that made Auto evaluations' ids takes the same).
func orgDigits(orgID string) string {
	digits := strings.ToLower(strings.ReplaceAll(orgID, "-", ""))
	digits = digits[max(len(digits)-12, 0):]
	return strings.Repeat("0", 12-len(digits)) + digits
}

// ErrNotAuto: the evaluation is a person's; only Auto evaluations' answers
// are reviewed.
var ErrNotAuto = errors.New("catalog: the evaluation is not an Auto evaluation")

// ReviewAutoAnswers records a reviewer's confirmations and overrides of an
// Auto evaluation's answers — each answer with the classifiers' choice in
// AutoTagIDs and who reviewed it, when — and the evaluation's score they
// give, in one transaction; a question reviewed again keeps the latest. A
// person's evaluation is ErrNotAuto.
func (c *EvaluationStore) ReviewAutoAnswers(ctx context.Context, orgID, id string, reviewed []EvaluationAnswer, score *float64) (Evaluation, error) {
	number, auto := autoEvaluationNumber(orgID, id)
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if !auto {
			var person int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM evaluations WHERE org_id = ? AND id = ?`, orgID, id).Scan(&person); err != nil {
				return err
			}
			if person > 0 {
				return ErrNotAuto
			}
			return ErrNotFound
		}
		res, err := tx.ExecContext(ctx, `UPDATE auto_evaluations SET score = ?, modified_on = ? WHERE org_id = ? AND number = ?`, score, now(), orgID, number)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		rows := make([][]any, len(reviewed))
		for i, a := range reviewed {
			if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE org_id = ? AND evaluation_id = ? AND question_id = ?`,
				orgID, id, a.QuestionID); err != nil {
				return err
			}
			rows[i] = answerRow(id, orgID, a)
		}
		return c.bulkInsert(ctx, tx, "evaluation_answers", answerInsertColumns, rows)
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
	// Reviews are a person's work, few: the organization's, read by the
	// range of its Auto evaluations' ids, then kept where their evaluation
	// is one of the form's.
	type review struct {
		number int
		pair   AnswerPair
	}
	prefix := autoEvaluationPrefix(orgID)
	reviews, err := queryAll(ctx, c.db, func(s scanner) (review, error) {
		r := review{pair: AnswerPair{Reviewed: true}}
		var id string
		err := s.Scan(&id, &r.pair.QuestionID, (*strList)(&r.pair.Auto), (*strList)(&r.pair.Human))
		r.number, _ = autoEvaluationNumber(orgID, id)
		return r, err
	}, `SELECT evaluation_id, question_id, auto_tag_ids, tag_ids FROM evaluation_answers
		WHERE evaluation_id >= ? AND evaluation_id < ? AND org_id = ? AND reviewed_by IS NOT NULL`, prefix, prefix+"g", orgID)
	if err != nil {
		return nil, err
	}
	numbers := make([]int, len(reviews))
	for i, r := range reviews {
		numbers[i] = r.number
	}
	ofForm := map[int]bool{}
	_, err = queryAll(ctx, c.db, func(s scanner) (int, error) {
		var n int
		err := s.Scan(&n)
		ofForm[n] = true
		return n, err
	}, `SELECT number FROM auto_evaluations WHERE org_id = ? AND form_id = ? AND `+anyIntOf("number"), orgID, formID, intList(numbers))
	if err != nil {
		return nil, err
	}
	var pairs []AnswerPair
	for _, r := range reviews {
		if ofForm[r.number] {
			pairs = append(pairs, r.pair)
		}
	}
	// From the few Human evaluations to the Auto one of their conversation.
	evaluated, err := queryAll(ctx, c.db, func(s scanner) (AnswerPair, error) {
		var p AnswerPair
		err := s.Scan(&p.QuestionID, (*strList)(&p.Human), &p.AutoAnswers)
		return p, err
	}, `SELECT h.question_id, h.tag_ids, ae.auto_answers
		FROM evaluations he
		JOIN evaluation_answers h ON h.org_id = he.org_id AND h.evaluation_id = he.id
		JOIN auto_evaluations ae ON ae.conversation_id = he.conversation_id AND ae.org_id = he.org_id AND ae.form_id = he.form_id
		WHERE he.org_id = ? AND he.form_id = ? AND he.status IN (?, ?, ?)`,
		orgID, formID, EvaluationCompleted, EvaluationPendingReview, EvaluationReviewComplete)
	return append(pairs, evaluated...), err
}

// UpdateAutoEvaluations writes Auto evaluations' new results and scores
// (a reclassification's), in one transaction: on PostgreSQL in one
// statement, their values one JSON value (json_to_recordset), as a
// statement each would be a round trip each.
func (c *EvaluationStore) UpdateAutoEvaluations(ctx context.Context, orgID string, changed []Evaluation) error {
	if len(changed) == 0 {
		return nil
	}
	if c.postgres {
		type rescored struct {
			Number  int      `json:"number"`
			Answers string   `json:"answers"`
			Score   *float64 `json:"score"`
		}
		rows := make([]rescored, len(changed))
		for i, e := range changed {
			rows[i] = rescored{Number: e.Number, Answers: e.AutoAnswers, Score: e.Score}
		}
		values, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = c.db.ExecContext(ctx, `UPDATE auto_evaluations SET auto_answers = v.answers, score = v.score, modified_on = ?
			FROM json_to_recordset(CAST(? AS json)) AS v(number integer, answers text, score double precision)
			WHERE auto_evaluations.org_id = ? AND auto_evaluations.number = v.number`, now(), string(values), orgID)
		return err
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE auto_evaluations SET auto_answers = ?, score = ?, modified_on = ? WHERE org_id = ? AND number = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		t := now()
		return eachRow(ctx, len(changed), func(rowCtx context.Context, i int) error {
			e := changed[i]
			_, err := stmt.ExecContext(rowCtx, e.AutoAnswers, e.Score, t, orgID, e.Number)
			return err
		})
	})
}
