package admin

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// ClassifierImporter imports classifiers by the use case the other doors'
// classifier writes go through (classifiers.Service).
type ClassifierImporter interface {
	Import(ctx context.Context, actor access.Actor, specs []starter.Spec) ([]catalog.Classifier, error)
}

// SetClassifiers lets the service import classifiers.
func (s *Service) SetClassifiers(c ClassifierImporter) { s.classifiers = c }

// ImportClassifiers creates an organization's classifiers from specs, or
// updates (a new version) the one of the same name, as the organization
// itself. Every spec is checked before anything is written; an error names
// the spec and the place in its definition.
func (s *Service) ImportClassifiers(ctx context.Context, orgID string, specs []starter.Spec) ([]catalog.Classifier, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return nil, err
	}
	if s.classifiers == nil {
		return nil, fmt.Errorf("%w: this process cannot check classifier definitions", ErrInvalid)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%w: the file lists no classifiers", ErrInvalid)
	}
	out, err := s.classifiers.Import(ctx, access.Organization(orgID), specs)
	if bad, ok := invalid.As(err); ok {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, bad.Sentence())
	}
	return out, err
}
