package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// WorkflowStore keeps review workflow templates and the workflows started
// from them. What a template's levels mean and how a workflow advances is
// package quality's; the store keeps both as JSON.
type WorkflowStore struct {
	handle
}

// Workflow statuses (the vendor's values).
const (
	WorkflowOpen   = "Open"
	WorkflowClosed = "Closed"
)

// WorkflowTemplate is a template as stored.
type WorkflowTemplate struct {
	ID             string
	OrgID          string
	Name           string
	WorkflowType   string
	Definition     json.RawMessage
	StartOnSampled bool
	CreatedOn      time.Time
}

// Workflow is a workflow over a conversation (and one of its evaluations).
type Workflow struct {
	ID             string
	OrgID          string
	TemplateID     string
	ConversationID string
	EvaluationID   *string
	Status         string
	CurrentLevel   int
	Progress       json.RawMessage
	CreatedOn      time.Time
	ModifiedOn     time.Time
}

// CreateTemplate stores a new template; a name the organization uses is
// ErrExists.
func (c *WorkflowStore) CreateTemplate(ctx context.Context, t WorkflowTemplate) (WorkflowTemplate, error) {
	t.ID, t.CreatedOn = NewID(), now()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var taken int
		tx.QueryRowContext(ctx, `SELECT count(*) FROM workflow_templates WHERE org_id = ? AND lower(name) = lower(?)`, t.OrgID, t.Name).Scan(&taken)
		if taken > 0 {
			return fieldErr("name", ErrExists, "is the name of another workflow template of your organization.")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO workflow_templates (id, org_id, name, workflow_type, definition, start_on_sampled, created_on)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.ID, t.OrgID, t.Name, t.WorkflowType, string(t.Definition), t.StartOnSampled, t.CreatedOn)
		return err
	})
	return t, err
}

const templateColumns = `id, org_id, name, workflow_type, definition, start_on_sampled, created_on`

func scanTemplate(s scanner) (WorkflowTemplate, error) {
	var t WorkflowTemplate
	var def string
	err := s.Scan(&t.ID, &t.OrgID, &t.Name, &t.WorkflowType, &def, &t.StartOnSampled, &t.CreatedOn)
	t.Definition, t.CreatedOn = json.RawMessage(def), t.CreatedOn.UTC()
	return t, err
}

// Templates lists an organization's templates by name.
func (c *WorkflowStore) Templates(ctx context.Context, orgID string) ([]WorkflowTemplate, error) {
	return queryAll(ctx, c.db, scanTemplate, `SELECT `+templateColumns+` FROM workflow_templates WHERE org_id = ? ORDER BY name, id`, orgID)
}

// Template is one template of the organization.
func (c *WorkflowStore) Template(ctx context.Context, orgID, id string) (WorkflowTemplate, error) {
	return one(queryAll(ctx, c.db, scanTemplate, `SELECT `+templateColumns+` FROM workflow_templates WHERE org_id = ? AND id = ?`, orgID, id))
}

// ErrWorkflowExists: the conversation already has a workflow of the
// template.
var ErrWorkflowExists = errors.New("catalog: the conversation already has a workflow of this template")

// emptyProgress is a workflow's progress before any level is done.
const emptyProgress = `{"levels":[],"bossAnswers":[],"closed":false}`

// StartWorkflow starts a workflow of a template over a conversation; with
// an evaluation, that evaluation (Completed) becomes PendingReview in the
// same transaction.
func (c *WorkflowStore) StartWorkflow(ctx context.Context, w Workflow) (Workflow, error) {
	w.ID, w.Status, w.CurrentLevel, w.Progress = NewID(), WorkflowOpen, 0, json.RawMessage(emptyProgress)
	w.CreatedOn, w.ModifiedOn = now(), now()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var taken int
		tx.QueryRowContext(ctx, `SELECT count(*) FROM workflows WHERE org_id = ? AND template_id = ? AND conversation_id = ?`,
			w.OrgID, w.TemplateID, w.ConversationID).Scan(&taken)
		if taken > 0 {
			return ErrWorkflowExists
		}
		if w.EvaluationID != nil {
			res, err := tx.ExecContext(ctx, `UPDATE evaluations SET status = ?, modified_on = ? WHERE org_id = ? AND id = ? AND status = ?`,
				EvaluationPendingReview, now(), w.OrgID, *w.EvaluationID, EvaluationCompleted)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return ErrEvaluationClosed
			}
		}
		return insertWorkflow(ctx, tx, w)
	})
	return w, err
}

func insertWorkflow(ctx context.Context, tx *sql.Tx, w Workflow) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO workflows (id, org_id, template_id, conversation_id, evaluation_id, status, current_level,
		progress, created_on, modified_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.OrgID, w.TemplateID, w.ConversationID, w.EvaluationID, w.Status, w.CurrentLevel, string(w.Progress), w.CreatedOn, w.ModifiedOn)
	return err
}

// startSampledWorkflows starts, in the sampling transaction, a workflow of
// every template that asks for one over each conversation just sampled.
func startSampledWorkflows(ctx context.Context, tx *sql.Tx, sampled map[string][]string) (int64, error) {
	var started int64
	for org, ids := range sampled {
		templates, err := queryAll(ctx, tx, func(s scanner) (string, error) {
			var id string
			return id, s.Scan(&id)
		}, `SELECT id FROM workflow_templates WHERE org_id = ? AND start_on_sampled`, org)
		if err != nil {
			return started, err
		}
		for _, template := range templates {
			for _, conv := range ids {
				w := Workflow{ID: NewID(), OrgID: org, TemplateID: template, ConversationID: conv, Status: WorkflowOpen,
					Progress: json.RawMessage(emptyProgress), CreatedOn: now(), ModifiedOn: now()}
				if err := insertWorkflow(ctx, tx, w); err != nil {
					return started, err
				}
				started++
			}
		}
	}
	return started, nil
}

// WorkflowFilter selects workflows; zero fields do not filter.
type WorkflowFilter struct {
	From, To      *time.Time
	ByInteraction bool // the window is on the conversation's interaction date, else on the workflow's start
	IDs           []string
	Scope         Scope
	AfterID       string
	Limit         int
}

const workflowColumns = `w.id, w.org_id, w.template_id, w.conversation_id, w.evaluation_id, w.status, w.current_level, w.progress,
	w.created_on, w.modified_on`

func scanWorkflow(s scanner) (Workflow, error) {
	var w Workflow
	var progress string
	err := s.Scan(&w.ID, &w.OrgID, &w.TemplateID, &w.ConversationID, &w.EvaluationID, &w.Status, &w.CurrentLevel, &progress,
		&w.CreatedOn, &w.ModifiedOn)
	w.Progress, w.CreatedOn, w.ModifiedOn = json.RawMessage(progress), w.CreatedOn.UTC(), w.ModifiedOn.UTC()
	return w, err
}

// Workflows lists an organization's workflows by id (start order).
func (c *WorkflowStore) Workflows(ctx context.Context, orgID string, f WorkflowFilter) ([]Workflow, error) {
	where := []string{"w.org_id = ?"}
	args := []any{orgID}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	date := "w.created_on"
	if f.ByInteraction {
		date = "coalesce(i.interaction_date, i.arrived_on)"
	}
	if f.From != nil {
		add(date+" >= ?", stamp(*f.From))
	}
	if f.To != nil {
		add(date+" <= ?", stamp(*f.To))
	}
	if f.IDs != nil {
		add(anyOf("w.id"), list(f.IDs))
	}
	if f.Scope != nil {
		cond, scopeArgs := f.Scope.where("i.media_type", "i.hierarchy_node_id")
		add(cond, scopeArgs...)
	}
	if f.AfterID != "" {
		add("w.id > ?", f.AfterID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	return queryAll(ctx, c.db, scanWorkflow, `SELECT `+workflowColumns+` FROM workflows w
		JOIN interactions i ON i.org_id = w.org_id AND i.id = w.conversation_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY w.id LIMIT ?`, append(args, limit)...)
}

// Workflow is one workflow of the organization.
func (c *WorkflowStore) Workflow(ctx context.Context, orgID, id string) (Workflow, error) {
	return one(c.Workflows(ctx, orgID, WorkflowFilter{IDs: []string{id}, Limit: 1}))
}

// ErrWorkflowMoved: the workflow changed since it was read.
var ErrWorkflowMoved = errors.New("catalog: the workflow changed since it was read")

// SaveProgress writes a workflow's new progress, if its level is still
// the one read (else ErrWorkflowMoved); closing it makes its evaluation,
// if any, ReviewComplete.
func (c *WorkflowStore) SaveProgress(ctx context.Context, w Workflow, fromLevel int, progress json.RawMessage, closed bool) error {
	status := WorkflowOpen
	if closed {
		status = WorkflowClosed
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE workflows SET status = ?, current_level = ?, progress = ?, modified_on = ?
			WHERE org_id = ? AND id = ? AND current_level = ? AND status = ?`,
			status, fromLevel+1, string(progress), now(), w.OrgID, w.ID, fromLevel, WorkflowOpen)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrWorkflowMoved
		}
		if closed && w.EvaluationID != nil {
			_, err = tx.ExecContext(ctx, `UPDATE evaluations SET status = ?, modified_on = ? WHERE org_id = ? AND id = ? AND status = ?`,
				EvaluationReviewComplete, now(), w.OrgID, *w.EvaluationID, EvaluationPendingReview)
		}
		return err
	})
}
