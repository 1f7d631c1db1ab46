package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// replaceAutoEvaluations, inside an ingest commit, drops the Auto
// evaluations of the conversations the commit replaces (the chats of the
// replaced archives, and the uploads that are conversations themselves)
// and inserts the batch's, numbered after each organization's last
// evaluation.
func (c *InteractionStore) replaceAutoEvaluations(ctx context.Context, tx *sql.Tx, replaced, uploads []string, outcomes []UploadOutcome, t time.Time) error {
	// Of these conversations: (org_id, conversation_id) pairs, so that
	// the lookups use the evaluations' index.
	ofConversations := `source = 'Auto' AND (org_id, conversation_id) IN
		(SELECT org_id, id FROM interactions WHERE ` + anyOf("upload_id") + ` OR ` + anyOf("id") + `)`
	if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_answers WHERE evaluation_id IN (SELECT id FROM evaluations WHERE `+ofConversations+`)`,
		list(replaced), list(uploads)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM evaluations WHERE `+ofConversations, list(replaced), list(uploads)); err != nil {
		return err
	}
	var evaluations, answers [][]any
	next := map[string]int{} // organization → its next evaluation number
	for _, o := range outcomes {
		for _, e := range o.Evaluations {
			n, ok := next[e.OrgID]
			if !ok {
				if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(number), 0) + 1 FROM evaluations WHERE org_id = ?`, e.OrgID).Scan(&n); err != nil {
					return err
				}
			}
			next[e.OrgID] = n + 1
			evaluations = append(evaluations, []any{e.ID, e.OrgID, n, e.FormID, e.ConversationID, e.AgentID, "", SourceAuto,
				EvaluationAutoScored, e.Score, t, t})
			for _, a := range e.Answers {
				answers = append(answers, answerRow(e.ID, e.OrgID, a))
			}
		}
	}
	if err := c.bulkInsert(ctx, tx, "evaluations", autoEvaluationColumns, evaluations); err != nil {
		return err
	}
	return c.bulkInsert(ctx, tx, "evaluation_answers", answerInsertColumns, answers)
}

var autoEvaluationColumns = []string{"id", "org_id", "number", "form_id", "conversation_id", "agent_id", "analyst_id", "source",
	"status", "score", "assigned_on", "modified_on"}

// ErrNotAuto: the evaluation is a person's; only Auto evaluations' answers
// are reviewed.
var ErrNotAuto = errors.New("catalog: the evaluation is not an Auto evaluation")

// AnswerReview is a reviewer's answer to one auto-answered question: the
// tags chosen (the auto answer's to confirm it) and the weighted score
// they give.
type AnswerReview struct {
	QuestionID    string
	TagIDs        []string
	TagValues     []string
	WeightedScore *float64
}

// ReviewAutoAnswers records a reviewer's confirmations and overrides of an
// Auto evaluation's answers (what the classifiers answered is kept), with
// who and when, and the evaluation's score they give, in one transaction.
// A person's evaluation is ErrNotAuto.
func (c *EvaluationStore) ReviewAutoAnswers(ctx context.Context, orgID, id, by string, reviews []AnswerReview, score *float64) (Evaluation, error) {
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
		t := now()
		for _, r := range reviews {
			if _, err := tx.ExecContext(ctx, `UPDATE evaluation_answers SET tag_ids = ?, tag_values = ?, weighted_score = ?, reviewed_by = ?, reviewed_on = ?
				WHERE org_id = ? AND evaluation_id = ? AND question_id = ?`,
				strList(r.TagIDs), strList(r.TagValues), r.WeightedScore, by, t, orgID, id, r.QuestionID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE evaluations SET score = ?, modified_on = ? WHERE org_id = ? AND id = ?`, score, t, orgID, id)
		return err
	})
	if err != nil {
		return Evaluation{}, err
	}
	return c.Evaluation(ctx, orgID, id)
}

// AnswerPair is what the classifiers answered to a question of a form and
// what a person answered to it for the same conversation: a reviewer of
// the Auto evaluation (Reviewed), or a submitted Human evaluation on the
// same form.
type AnswerPair struct {
	QuestionID string
	Auto       []string // tag ids
	Human      []string
	Reviewed   bool
}

// AnswerPairs are every pair of a form's auto answers and people's
// answers to the same question of the same conversation.
func (c *EvaluationStore) AnswerPairs(ctx context.Context, orgID, formID string) ([]AnswerPair, error) {
	scan := func(reviewed bool) func(s scanner) (AnswerPair, error) {
		return func(s scanner) (AnswerPair, error) {
			p := AnswerPair{Reviewed: reviewed}
			err := s.Scan(&p.QuestionID, (*strList)(&p.Auto), (*strList)(&p.Human))
			return p, err
		}
	}
	reviewed, err := queryAll(ctx, c.db, scan(true), `SELECT a.question_id, a.auto_tag_ids, a.tag_ids
		FROM evaluations e JOIN evaluation_answers a ON a.org_id = e.org_id AND a.evaluation_id = e.id
		WHERE e.org_id = ? AND e.form_id = ? AND e.source = 'Auto' AND a.reviewed_by IS NOT NULL`, orgID, formID)
	if err != nil {
		return nil, err
	}
	// From the few Human evaluations to the Auto one of their conversation.
	evaluated, err := queryAll(ctx, c.db, scan(false), `SELECT h.question_id, a.auto_tag_ids, h.tag_ids
		FROM evaluations he
		JOIN evaluation_answers h ON h.org_id = he.org_id AND h.evaluation_id = he.id
		JOIN evaluations ae ON ae.org_id = he.org_id AND ae.conversation_id = he.conversation_id AND ae.form_id = he.form_id AND ae.source = 'Auto'
		JOIN evaluation_answers a ON a.org_id = ae.org_id AND a.evaluation_id = ae.id AND a.question_id = h.question_id
		WHERE he.org_id = ? AND he.form_id = ? AND he.source = 'Human' AND he.status IN (?, ?, ?)`,
		orgID, formID, EvaluationCompleted, EvaluationPendingReview, EvaluationReviewComplete)
	return append(reviewed, evaluated...), err
}
