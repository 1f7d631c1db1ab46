package qa

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Workflow is a workflow of the actor's organization whose conversation
// the actor may read; catalog.ErrNotFound when there is none.
func (s Service) Workflow(ctx context.Context, actor access.Actor, id string) (catalog.Workflow, error) {
	if err := validID(id); err != nil {
		return catalog.Workflow{}, err
	}
	list, err := s.Workflows.Workflows(ctx, actor.OrgID, catalog.WorkflowFilter{IDs: []string{id}, Scope: actor.Scope(), Limit: 1})
	if err != nil {
		return catalog.Workflow{}, err
	}
	if len(list) == 0 {
		return catalog.Workflow{}, catalog.ErrNotFound
	}
	return list[0], nil
}

// State is a workflow's template definition and progress.
func (s Service) State(ctx context.Context, orgID string, w catalog.Workflow) (*quality.Workflow, quality.Progress, error) {
	var def quality.Workflow
	var progress quality.Progress
	t, err := s.Workflows.Template(ctx, orgID, w.TemplateID)
	if err == nil {
		err = errors.Join(json.Unmarshal(t.Definition, &def), json.Unmarshal(w.Progress, &progress))
	}
	return &def, progress, err
}

// Advance completes a workflow's current level by a user (completer: a
// user acting completes as itself), with an outcome, notes and at the last
// level the boss module's answers, and answers the workflow as it then is.
// ErrClosed when it was closed, catalog.ErrWorkflowMoved when another
// completed the level meanwhile, an *invalid.Field for a mistake.
func (s Service) Advance(ctx context.Context, actor access.Actor, id, completer, outcome, notes string, boss []quality.BossQuestion) (catalog.Workflow, error) {
	if err := actor.Require(access.PerformEvaluations); err != nil {
		return catalog.Workflow{}, err
	}
	w, err := s.Workflow(ctx, actor, id)
	if err != nil {
		return w, err
	}
	if actor.IsUser() && completer != actor.UserID {
		return w, invalid.At("completer", "must name the acting user: a user completes a workflow level as itself.")
	}
	def, progress, err := s.State(ctx, actor.OrgID, w)
	if err != nil {
		return w, err
	}
	var assignees []string
	if w.CurrentLevel < len(def.Levels) {
		assignees = def.Levels[w.CurrentLevel].Assignees
	}
	if err := s.mayPerform(ctx, actor, w.ConversationID, assignees...); err != nil {
		return w, err
	}
	if err := def.Advance(&progress, completer, outcome, notes, boss, time.Now().UTC()); errors.Is(err, quality.ErrClosed) {
		return w, ErrClosed
	} else if err != nil {
		return w, err
	}
	saved, _ := json.Marshal(progress)
	if err := s.Workflows.SaveProgress(ctx, w, w.CurrentLevel, saved, progress.Closed); err != nil {
		return w, err
	}
	return s.Workflows.Workflow(ctx, actor.OrgID, w.ID)
}

// Waiting is an open workflow whose current level the actor may
// complete, with its template's name.
type Waiting struct {
	Workflow     catalog.Workflow
	TemplateName string
}

// Waiting lists the open workflows of conversations the acting user may
// read whose current level it may complete (one assigned to it, or to
// nobody in particular), among the first limit.
func (s Service) Waiting(ctx context.Context, actor access.Actor, limit int) ([]Waiting, error) {
	list, err := s.Workflows.Workflows(ctx, actor.OrgID, catalog.WorkflowFilter{Scope: actor.Scope(), Limit: limit})
	if err != nil {
		return nil, err
	}
	var out []Waiting
	for _, w := range list {
		if w.Status != catalog.WorkflowOpen {
			continue
		}
		def, _, err := s.State(ctx, actor.OrgID, w)
		if err != nil {
			return nil, err
		}
		if w.CurrentLevel >= len(def.Levels) {
			continue
		}
		if assignees := def.Levels[w.CurrentLevel].Assignees; len(assignees) == 0 || slices.Contains(assignees, actor.UserID) {
			t, err := s.Workflows.Template(ctx, actor.OrgID, w.TemplateID)
			if err != nil {
				return nil, err
			}
			out = append(out, Waiting{Workflow: w, TemplateName: t.Name})
		}
	}
	return out, nil
}
