package admin

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/warehouse/catalog"
)

// What membership of an identity provider's group means in an
// organization (catalog.GroupMapping): the operator maps a group's name to
// a role and/or hierarchy access; SCIM group pushes then grant them.

// GroupMappings lists an organization's group mappings.
func (s *Service) GroupMappings(ctx context.Context, orgID string) ([]catalog.GroupMapping, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return nil, err
	}
	return s.stores.People.GroupMappings(ctx, orgID)
}

// SetGroupMapping sets what membership of a group means; the group's
// members get it at once.
func (s *Service) SetGroupMapping(ctx context.Context, orgID string, m catalog.GroupMapping) (catalog.GroupMapping, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return catalog.GroupMapping{}, err
	}
	out, err := s.stores.People.SetGroupMapping(ctx, orgID, m)
	if bad, ok := invalid.As(err); ok {
		return out, fmt.Errorf("%w: %s: %s", ErrInvalid, bad.Path, bad.Message)
	}
	return out, err
}

// DeleteGroupMapping ends a group's mapping; its members lose what it
// gave.
func (s *Service) DeleteGroupMapping(ctx context.Context, orgID, group string) error {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return err
	}
	return s.stores.People.DeleteGroupMapping(ctx, orgID, group)
}

func (r *Remote) GroupMappings(ctx context.Context, orgID string) ([]catalog.GroupMapping, error) {
	return remote[[]catalog.GroupMapping](ctx, r, "GroupMappings", orgID)
}

func (r *Remote) SetGroupMapping(ctx context.Context, orgID string, m catalog.GroupMapping) (catalog.GroupMapping, error) {
	return remote[catalog.GroupMapping](ctx, r, "SetGroupMapping", orgID, m)
}

func (r *Remote) DeleteGroupMapping(ctx context.Context, orgID, group string) error {
	_, err := remote[struct{}](ctx, r, "DeleteGroupMapping", orgID, group)
	return err
}
