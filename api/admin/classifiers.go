package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// ClassifierCompiler checks classifier definitions (registry.Compiler).
type ClassifierCompiler interface {
	Compile(orgID string, c registry.Classifier) (*registry.Compiled, error)
}

// SetClassifierCompiler lets the service check the definitions it imports.
func (s *Service) SetClassifierCompiler(c ClassifierCompiler) { s.compiler = c }

// ImportClassifiers creates an organization's classifiers from specs, or
// updates (a new version) the one of the same name. Every spec is checked
// before anything is written; an error names the spec and the place in its
// definition.
func (s *Service) ImportClassifiers(ctx context.Context, orgID string, specs []starter.Spec) ([]catalog.Classifier, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return nil, err
	}
	if s.compiler == nil {
		return nil, fmt.Errorf("%w: this process cannot check classifier definitions", ErrInvalid)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%w: the file lists no classifiers", ErrInvalid)
	}
	inputs := make([]catalog.ClassifierInput, len(specs))
	for i, sp := range specs {
		where := fmt.Sprintf("classifier %d (%q)", i+1, sp.Name)
		typ, category := canonical(sp.ClassifierType, analysis.Types), canonical(sp.CategoryName, analysis.Categories)
		switch {
		case strings.TrimSpace(sp.Name) == "":
			return nil, fmt.Errorf("%w: %s: name is required", ErrInvalid, where)
		case typ == "":
			return nil, fmt.Errorf("%w: %s: classifierType must be one of %s", ErrInvalid, where, strings.Join(analysis.Types, ", "))
		case category == "":
			return nil, fmt.Errorf("%w: %s: categoryName must be one of %s", ErrInvalid, where, strings.Join(analysis.Categories, ", "))
		}
		if _, err := s.compiler.Compile(orgID, registry.Classifier{Type: typ, Definition: sp.Definition}); err != nil {
			var de *analysis.DefinitionError
			if errors.As(err, &de) {
				return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, where, de)
			}
			return nil, err
		}
		name, description := strings.TrimSpace(sp.Name), sp.Description
		reportable, groupable, active := sp.Reportable, sp.Groupable, true
		inputs[i] = catalog.ClassifierInput{Name: &name, Description: &description, Type: &typ, CategoryName: &category,
			Reportable: &reportable, Groupable: &groupable, IsActive: &active, Definition: sp.Definition}
	}
	return s.stores.Classifiers.PutByName(ctx, orgID, inputs)
}

func canonical(v string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(v), a) {
			return a
		}
	}
	return ""
}
