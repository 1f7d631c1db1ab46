package qa

import (
	"context"
	"encoding/json"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// CreateForm creates an evaluation form, if the actor manages
// evaluations: the definition is checked and given its ids by the form's
// rules (quality.Form.Prepare, an *invalid.Field naming its mistake).
func (s Service) CreateForm(ctx context.Context, actor access.Actor, name, description string, def quality.Form) (catalog.EvaluationForm, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return catalog.EvaluationForm{}, err
	}
	if err := def.Prepare(catalog.NewID); err != nil {
		return catalog.EvaluationForm{}, err
	}
	definition, err := json.Marshal(def)
	if err != nil {
		return catalog.EvaluationForm{}, err
	}
	return s.Evaluations.CreateForm(ctx, catalog.EvaluationForm{OrgID: actor.OrgID, Name: name, Description: description, Definition: definition})
}

// Forms are the organization's evaluation forms, to whom manages
// evaluations.
func (s Service) Forms(ctx context.Context, actor access.Actor) ([]catalog.EvaluationForm, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return nil, err
	}
	return s.Evaluations.Forms(ctx, actor.OrgID)
}
