// Package classifiers is the classifier authoring every door offers:
// reading, writing and retiring classifiers, dry runs over past
// conversations, re-classification and training. Each use case takes the
// actor and decides permission, reach and validity itself; the API and the
// console only translate.
package classifiers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Store keeps the classifiers' versions (catalog.ClassifierStore).
type Store interface {
	Classifiers(ctx context.Context, orgID string, f catalog.ClassifierFilter) ([]catalog.Classifier, error)
	Classifier(ctx context.Context, orgID, id string) (catalog.Classifier, error)
	CreateClassifier(ctx context.Context, orgID string, in catalog.ClassifierInput) (catalog.Classifier, error)
	UpdateClassifier(ctx context.Context, orgID, id string, in catalog.ClassifierInput) (catalog.Classifier, error)
	DeleteClassifier(ctx context.Context, orgID, id string) error
	PutByName(ctx context.Context, orgID string, in []catalog.ClassifierInput) ([]catalog.Classifier, error)
}

// Compiler compiles definitions for their type (registry.Compiler).
type Compiler interface {
	Compile(orgID string, c registry.Classifier) (*registry.Compiled, error)
}

// Slots bound an organization's concurrent evaluations (pipeline.Slots).
type Slots interface {
	Take(orgID string) (release func(), err error)
}

// Jobs start jobs in the background (jobs.Runner).
type Jobs interface {
	Start(ctx context.Context, name, orgID string, params any) (catalog.JobRun, error)
}

// Conversations are the stored conversations' records, and their ids
// (catalog.InteractionStore).
type Conversations interface {
	pipeline.Records
	InternalIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error)
}

// Hierarchy is the organization's tree (catalog.PeopleStore).
type Hierarchy interface {
	Hierarchy(ctx context.Context, orgID string) (*catalog.Tree, error)
}

// Service is classifier authoring's use cases.
type Service struct {
	Store         Store
	Compiler      Compiler
	Slots         Slots
	Jobs          Jobs
	Conversations Conversations
	Transcripts   pipeline.Transcripts
	Reviews       pipeline.ReviewSource
	Hierarchy     Hierarchy
}

// Classifier is a classifier of the actor's organization
// (catalog.ErrNotFound for another id).
func (s Service) Classifier(ctx context.Context, actor access.Actor, id string) (catalog.Classifier, error) {
	if err := actor.Require(access.ReadClassifiers); err != nil {
		return catalog.Classifier{}, err
	}
	if _, err := uuid.Parse(id); err != nil {
		return catalog.Classifier{}, catalog.ErrNotFound
	}
	return s.Store.Classifier(ctx, actor.OrgID, id)
}

// Create stores version 1 of a new classifier, its definition checked for
// its type (an *invalid.Field when it does not fit).
func (s Service) Create(ctx context.Context, actor access.Actor, in catalog.ClassifierInput) (catalog.Classifier, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return catalog.Classifier{}, err
	}
	if err := s.check(actor.OrgID, in, nil); err != nil {
		return catalog.Classifier{}, err
	}
	return s.Store.CreateClassifier(ctx, actor.OrgID, in)
}

// Update changes the fields given, as a new version of the classifier.
func (s Service) Update(ctx context.Context, actor access.Actor, id string, in catalog.ClassifierInput) (catalog.Classifier, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return catalog.Classifier{}, err
	}
	current, err := s.Classifier(ctx, actor, id)
	if err != nil {
		return current, err
	}
	if err := s.check(actor.OrgID, in, &current); err != nil {
		return catalog.Classifier{}, err
	}
	return s.Store.UpdateClassifier(ctx, actor.OrgID, id, in)
}

// Delete retires a classifier: it stops running and leaves the lists; its
// past results stay explainable.
func (s Service) Delete(ctx context.Context, actor access.Actor, id string) error {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return err
	}
	return s.Store.DeleteClassifier(ctx, actor.OrgID, id)
}

// check compiles what a classifier would be after a change (its type and
// definition, given or current).
func (s Service) check(orgID string, in catalog.ClassifierInput, current *catalog.Classifier) error {
	check := registry.Classifier{Definition: in.Definition}
	if current != nil {
		check.Type = current.Type
		if check.Definition == nil {
			check.Definition = current.Definition
		}
	}
	if in.Type != nil {
		check.Type = *in.Type
	}
	_, err := s.Compiler.Compile(orgID, check)
	var de *analysis.DefinitionError
	if errors.As(err, &de) {
		return invalidDefinition(de)
	}
	return err
}

// invalidDefinition is a definition the compiler refused: an
// *invalid.Field at the path it names, with the sentence that tells a user
// what to change.
func invalidDefinition(at *analysis.DefinitionError) error {
	f := &invalid.Field{Path: at.Path, Message: at.Message + ".", Detail: "The classifier definition is invalid at " + at.Path + ": " + at.Message + "."}
	if at == registry.ErrNoLLM {
		f.Detail = "Your organization cannot create LLM Model classifiers: no LLM endpoint is configured."
	}
	return f
}

// Import creates an organization's classifiers from specs, or updates (a
// new version) the one of the same name. Every spec is checked as Create
// checks one before anything is written; an *invalid.Field names the
// first that fails (its path: classifiers[i], from 0), and nothing is.
func (s Service) Import(ctx context.Context, actor access.Actor, specs []starter.Spec) ([]catalog.Classifier, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return nil, err
	}
	inputs := make([]catalog.ClassifierInput, len(specs))
	for i, sp := range specs {
		fail := func(reason string) error {
			return &invalid.Field{Path: fmt.Sprintf("classifiers[%d]", i), Message: reason, Detail: fmt.Sprintf("classifier %d (%q): %s", i+1, sp.Name, reason)}
		}
		typ, category := canonical(sp.ClassifierType, analysis.Types), canonical(sp.CategoryName, analysis.Categories)
		switch {
		case strings.TrimSpace(sp.Name) == "":
			return nil, fail("name is required")
		case typ == "":
			return nil, fail("classifierType must be one of " + strings.Join(analysis.Types, ", "))
		case category == "":
			return nil, fail("categoryName must be one of " + strings.Join(analysis.Categories, ", "))
		}
		name, description := strings.TrimSpace(sp.Name), sp.Description
		reportable, groupable, active := sp.Reportable, sp.Groupable, true
		inputs[i] = catalog.ClassifierInput{Name: &name, Description: &description, Type: &typ, CategoryName: &category,
			Reportable: &reportable, Groupable: &groupable, IsActive: &active, Definition: sp.Definition}
		if err := s.check(actor.OrgID, inputs[i], nil); err != nil {
			if bad, ok := invalid.As(err); ok {
				reason := strings.TrimSuffix(bad.Message, ".")
				if bad.Path != "" {
					reason = bad.Path + ": " + reason
				}
				return nil, fail(reason)
			}
			return nil, err
		}
	}
	return s.Store.PutByName(ctx, actor.OrgID, inputs)
}

// canonical is v as the allowed value it names in any casing; "" when it
// names none.
func canonical(v string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(v), a) {
			return a
		}
	}
	return ""
}
