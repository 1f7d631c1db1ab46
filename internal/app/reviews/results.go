package reviews

import (
	"context"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/results"
)

// Lake reads the machine's current results and their evidence
// (results.Reader).
type Lake interface {
	ModelResults(ctx context.Context, orgID string, convs []results.Conversation, modelIDs []string) (map[string][]results.ModelResult, error)
	ClassifierEvidence(ctx context.Context, orgID string, conv results.Conversation, classifierIDs []string) ([]results.Evidence, error)
}

// Classifiers lists the organization's classifiers
// (catalog.ClassifierStore).
type Classifiers interface {
	Classifiers(ctx context.Context, orgID string, f catalog.ClassifierFilter) ([]catalog.Classifier, error)
}

// Found are the results of processed conversations, by conversation id:
// the machine's current ones and the reviews.
type Found struct {
	Machine map[string][]results.ModelResult
	Reviews map[string][]catalog.Review
}

// Current is a conversation's current results among the models.
func (f Found) Current(cv results.Conversation, models Models) Current {
	return CurrentOf(cv.ArrivedOn, models, f.Machine[cv.ID], f.Reviews[cv.ID])
}

// Read reads the results of processed conversations of the organization.
func (s Service) Read(ctx context.Context, orgID string, models Models, convs []results.Conversation) (Found, error) {
	machine, err := s.Lake.ModelResults(ctx, orgID, convs, models.IDs)
	if err != nil {
		return Found{}, err
	}
	reviews, err := s.Reviews.Reviews(ctx, orgID, results.IDs(convs))
	return Found{Machine: machine, Reviews: reviews}, err
}

// Active is every active classifier of the organization, in the catalog's
// order, and the models that name them all.
func (s Service) Active(ctx context.Context, orgID string) ([]catalog.Classifier, Models, error) {
	active, err := s.Classifiers.Classifiers(ctx, orgID, catalog.ClassifierFilter{ActiveOnly: true})
	var models Models
	for _, cl := range active {
		models.Add(cl.ID)
	}
	return active, models, err
}

// Outcome is an active classifier's current result for a conversation,
// with where the machine found it.
type Outcome struct {
	Classifier catalog.Classifier
	Value
	Evidence []lake.Evidence
}

// Outcomes are the current results of every active classifier for a
// conversation the actor may read results of (none while it is not
// processed): catalog.ErrNotFound when it is out of the actor's reach.
func (s Service) Outcomes(ctx context.Context, actor access.Actor, it catalog.Interaction) ([]Outcome, error) {
	if err := actor.RequireOn(access.ReadResults, it.MediaType, it.HierarchyNodeID); err != nil || it.LakeRunID == nil {
		return nil, err
	}
	active, models, err := s.Active(ctx, actor.OrgID)
	if err != nil {
		return nil, err
	}
	cv := results.ConversationOf(it)
	found, err := s.Read(ctx, actor.OrgID, models, []results.Conversation{cv})
	if err != nil {
		return nil, err
	}
	evidence, err := s.Lake.ClassifierEvidence(ctx, actor.OrgID, cv, models.IDs)
	if err != nil {
		return nil, err
	}
	spans := map[string][]lake.Evidence{}
	for _, e := range evidence {
		spans[e.ClassifierID] = append(spans[e.ClassifierID], e.Spans...)
	}
	current := found.Current(cv, models)
	var out []Outcome
	for k, cl := range active {
		if v := current.Values[k]; v.Set {
			out = append(out, Outcome{Classifier: cl, Value: v, Evidence: spans[cl.ID]})
		}
	}
	return out, nil
}
