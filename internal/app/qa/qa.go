// Package qa is the quality work every door offers: reading, answering and
// submitting evaluations, and completing review workflows' levels. Each
// use case takes the actor, and decides tenancy (the actor's
// organization), reach (its scope), permission and assignment itself; the
// API and the console only translate.
package qa

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Conversations reads conversations' records and the ids they show
// (catalog.InteractionStore).
type Conversations interface {
	Interaction(ctx context.Context, orgID, id string) (catalog.Interaction, error)
	PublicIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error)
}

// Evaluations are the evaluations and their forms
// (catalog.EvaluationStore).
type Evaluations interface {
	Evaluations(ctx context.Context, orgID string, f catalog.EvaluationFilter) ([]catalog.Evaluation, error)
	Form(ctx context.Context, orgID, id string) (catalog.EvaluationForm, error)
	SaveEvaluation(ctx context.Context, orgID, id string, change catalog.EvaluationChange) (catalog.Evaluation, error)
	CreateEvaluation(ctx context.Context, e catalog.Evaluation) (catalog.Evaluation, error)
	Forms(ctx context.Context, orgID string) ([]catalog.EvaluationForm, error)
	CreateForm(ctx context.Context, f catalog.EvaluationForm) (catalog.EvaluationForm, error)
	SetFormActive(ctx context.Context, orgID, id string, active bool) error
	ScoresBy(ctx context.Context, orgID string, q catalog.ScoreQuery) ([]catalog.ScoreGroup, error)
	ReviewAutoAnswers(ctx context.Context, orgID, id string, reviewed []catalog.EvaluationAnswer, score *float64) (catalog.Evaluation, error)
	AnswerPairs(ctx context.Context, orgID, formID string) ([]catalog.AnswerPair, error)
}

// Workflows are the review workflows and their templates
// (catalog.WorkflowStore).
type Workflows interface {
	Workflows(ctx context.Context, orgID string, f catalog.WorkflowFilter) ([]catalog.Workflow, error)
	Workflow(ctx context.Context, orgID, id string) (catalog.Workflow, error)
	Template(ctx context.Context, orgID, id string) (catalog.WorkflowTemplate, error)
	Templates(ctx context.Context, orgID string) ([]catalog.WorkflowTemplate, error)
	CreateTemplate(ctx context.Context, t catalog.WorkflowTemplate) (catalog.WorkflowTemplate, error)
	StartWorkflow(ctx context.Context, w catalog.Workflow) (catalog.Workflow, error)
	SaveProgress(ctx context.Context, w catalog.Workflow, fromLevel int, progress json.RawMessage, closed bool) error
}

// Classifiers finds the classifiers a form's questions are bound to
// (catalog.ClassifierStore).
type Classifiers interface {
	Classifier(ctx context.Context, orgID, id string) (catalog.Classifier, error)
}

// Service is the quality work's use cases.
type Service struct {
	Conversations Conversations
	Evaluations   Evaluations
	Classifiers   Classifiers
	Workflows     Workflows
	Users         Users
	People        People
	Sampler       Sampler
	Sampling      Sampling
}

// ErrClosed: the evaluation was submitted, or the workflow closed; its
// answers no longer change.
var ErrClosed = errors.New("qa: closed")

// mayPerform is nil when the actor, whose role its caller has already
// asked, may do QA work assigned to the users assignees (none: anyone) on
// a conversation: catalog.ErrNotFound when the conversation is out of its
// reach, an *access.Refused when its access on the conversation's node or
// the assignment does not allow it.
func (s Service) mayPerform(ctx context.Context, actor access.Actor, conversationID string, assignees ...string) error {
	if !actor.IsUser() {
		return nil
	}
	it, err := s.Conversations.Interaction(ctx, actor.OrgID, conversationID)
	if err != nil {
		return err
	}
	if err := actor.RequireOn(access.PerformEvaluations, it.MediaType, it.HierarchyNodeID); err != nil {
		return err
	}
	return actor.RequireAssigned(assignees...)
}

// Form reads a form of the organization and its definition.
func (s Service) Form(ctx context.Context, orgID, id string) (*quality.Form, error) {
	stored, err := s.Evaluations.Form(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	var def quality.Form
	err = json.Unmarshal(stored.Definition, &def)
	return &def, err
}

// validID is ErrNotFound for a string that is no id.
func validID(id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return catalog.ErrNotFound
	}
	return nil
}
