package qa

import (
	"context"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
)

// NewWorkflow is a review workflow to start: of a template, over a
// processed conversation (its own id) or over a Completed evaluation.
type NewWorkflow struct {
	TemplateID                   string
	ConversationID, EvaluationID *string // one of them
}

// StartWorkflow starts a workflow, if the actor manages evaluations; an
// evaluation reviewed is PendingReview until the workflow closes. A
// reference that names nothing the actor may reach is an *invalid.Field
// naming it; a second workflow of the template over the conversation is
// catalog.ErrWorkflowExists, an evaluation not Completed
// catalog.ErrEvaluationClosed.
func (s Service) StartWorkflow(ctx context.Context, actor access.Actor, in NewWorkflow) (catalog.Workflow, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return catalog.Workflow{}, err
	}
	org := actor.OrgID
	err := validID(in.TemplateID)
	if err == nil {
		_, err = s.Workflows.Template(ctx, org, in.TemplateID)
	}
	if err != nil {
		return catalog.Workflow{}, named(err, "templateId", "is not a workflow template of your organization.")
	}
	w := catalog.Workflow{OrgID: org, TemplateID: in.TemplateID}
	if in.EvaluationID != nil {
		list, err := s.Evaluations.Evaluations(ctx, org, catalog.EvaluationFilter{IDs: []string{*in.EvaluationID}, Scope: actor.Scope(), Limit: 1})
		if err != nil {
			return w, err
		}
		if len(list) == 0 {
			return w, named(catalog.ErrNotFound, "evaluationId", "is not an evaluation of your organization.")
		}
		w.ConversationID, w.EvaluationID = list[0].ConversationID, in.EvaluationID
	} else {
		it, err := s.Conversations.Interaction(ctx, org, *in.ConversationID)
		if err == nil && (it.LakeRunID == nil || !actor.Scope().Allows(it.MediaType, it.HierarchyNodeID)) {
			err = catalog.ErrNotFound
		}
		if err != nil {
			return w, named(err, "conversationId", "is not a processed conversation of your organization.")
		}
		w.ConversationID = it.ID
	}
	return s.Workflows.StartWorkflow(ctx, w)
}

// Templates are the organization's workflow templates, to whom manages
// evaluations.
func (s Service) Templates(ctx context.Context, actor access.Actor) ([]catalog.WorkflowTemplate, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return nil, err
	}
	return s.Workflows.Templates(ctx, actor.OrgID)
}
