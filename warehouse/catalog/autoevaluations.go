package catalog

import (
	"context"
	"database/sql"
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
