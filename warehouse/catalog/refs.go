package catalog

import (
	"context"
	"errors"
)

// UploadRefs are the hierarchy node and the agent that upload metadata
// names (an upload's, or a chat's own inside an archive).
type UploadRefs struct {
	NodeID *string // nil: no hierarchy key given
	Agent  *Agent  // nil: no agent code, or one no agent has (yet)
}

// ErrUnknownHierarchy: a hierarchy id or code names no node of the
// organization, or the two name different nodes.
var ErrUnknownHierarchy = errors.New("the hierarchy id/code names no node of the organization")

// ResolveUploadRefs finds what upload metadata names: the node of its
// hierarchy id and/or code (from the in-memory tree), and the agent of its
// agent code. An unknown agent code is not an error: the record keeps the
// code without a link.
func (c *PeopleStore) ResolveUploadRefs(ctx context.Context, orgID string, hierarchyID, hierarchyCode, agentCode *string) (UploadRefs, error) {
	var refs UploadRefs
	if hierarchyID != nil || hierarchyCode != nil {
		tree, err := c.Hierarchy(ctx, orgID)
		if err != nil {
			return refs, err
		}
		node, ok := tree.Resolve(hierarchyID, hierarchyCode)
		if !ok {
			return refs, ErrUnknownHierarchy
		}
		refs.NodeID = &node.ID
	}
	if agentCode != nil && *agentCode != "" {
		a, err := c.AgentByCode(ctx, orgID, *agentCode)
		switch {
		case err == nil:
			refs.Agent = &a
		case !errors.Is(err, ErrNotFound):
			return refs, err
		}
	}
	return refs, nil
}
