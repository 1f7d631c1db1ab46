package qa

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// CreateForm creates an evaluation form, if the actor manages
// evaluations: the definition is checked and given its ids by the form's
// rules (quality.Form.Prepare), and every classifier a question is bound
// to must be one of the organization's (an *invalid.Field naming the
// mistake).
func (s Service) CreateForm(ctx context.Context, actor access.Actor, name, description string, def quality.Form) (catalog.EvaluationForm, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return catalog.EvaluationForm{}, err
	}
	if err := def.Prepare(catalog.NewID); err != nil {
		return catalog.EvaluationForm{}, err
	}
	for _, bound := range def.BoundClassifiers() {
		err := validID(bound.ID)
		if err == nil {
			_, err = s.Classifiers.Classifier(ctx, actor.OrgID, bound.ID)
		}
		if err != nil {
			return catalog.EvaluationForm{}, named(err, bound.Path, "is not a classifier of your organization.")
		}
	}
	definition, err := json.Marshal(def)
	if err != nil {
		return catalog.EvaluationForm{}, err
	}
	return s.Evaluations.CreateForm(ctx, catalog.EvaluationForm{OrgID: actor.OrgID, Name: name, Description: description, Definition: definition})
}

// SetFormActive offers a form for new evaluations or stops offering it, if
// the actor manages evaluations; a form is never changed once made (its
// evaluations were answered on it): a changed form is a new one.
func (s Service) SetFormActive(ctx context.Context, actor access.Actor, id string, active bool) error {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return err
	}
	if err := validID(id); err != nil {
		return err
	}
	return s.Evaluations.SetFormActive(ctx, actor.OrgID, id, active)
}

// Forms are the organization's evaluation forms, to whom manages
// evaluations.
func (s Service) Forms(ctx context.Context, actor access.Actor) ([]catalog.EvaluationForm, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return nil, err
	}
	return s.Evaluations.Forms(ctx, actor.OrgID)
}

// AutoScoring reports whether the organization has an active auto-scored
// form, to whom reads results: its conversations' QA scores then come
// from every conversation too, not only from people's evaluations.
func (s Service) AutoScoring(ctx context.Context, actor access.Actor) (bool, error) {
	if err := actor.Require(access.ReadResults); err != nil {
		return false, err
	}
	forms, err := s.Evaluations.Forms(ctx, actor.OrgID)
	if err != nil {
		return false, err
	}
	for _, f := range forms {
		var def quality.Form
		if f.IsActive && json.Unmarshal(f.Definition, &def) == nil && def.AutoScore {
			return true, nil
		}
	}
	return false, nil
}

// NewTemplate is a review workflow template to create: its levels name
// their assignees by user name or id (none: anyone).
type NewTemplate struct {
	Name, Type     string // Type "" is Review
	Definition     quality.Workflow
	StartOnSampled bool
}

// CreateTemplate creates a workflow template, if the actor manages
// evaluations: the definition is checked by the workflow's rules
// (quality.Workflow.Check), and each assignee must be an active user (an
// *invalid.Field naming the level).
func (s Service) CreateTemplate(ctx context.Context, actor access.Actor, in NewTemplate) (catalog.WorkflowTemplate, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return catalog.WorkflowTemplate{}, err
	}
	def := in.Definition
	if err := def.Check(catalog.NewID); err != nil {
		return catalog.WorkflowTemplate{}, err
	}
	for i, level := range def.Levels {
		for j, key := range level.Assignees {
			u, err := s.ActiveUser(ctx, actor.OrgID, key)
			if err != nil {
				return catalog.WorkflowTemplate{}, named(err, "levels["+strconv.Itoa(i)+"].assignees", strconv.Quote(key)+" is not an active user of your organization.")
			}
			def.Levels[i].Assignees[j] = u.ID
		}
	}
	definition, err := json.Marshal(def)
	if err != nil {
		return catalog.WorkflowTemplate{}, err
	}
	return s.Workflows.CreateTemplate(ctx, catalog.WorkflowTemplate{OrgID: actor.OrgID, Name: in.Name, WorkflowType: cmp.Or(in.Type, "Review"),
		Definition: definition, StartOnSampled: in.StartOnSampled})
}
