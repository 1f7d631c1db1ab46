package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/warehouse/catalog"
)

// groupCommand maps identity providers' groups (pushed over SCIM) to
// roles and hierarchy access.
func groupCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "group", Short: "What membership of an identity provider's group (SCIM) grants: a role and/or hierarchy access"}
	var orgRef, roleName string
	var access []string
	var m catalog.GroupMapping
	mapCmd := &cobra.Command{
		Use:   "map --org ID|NAME --group NAME [--role ROLE] [--access NODE_ID=LEVEL:MEDIA,MEDIA]...",
		Short: "Set what membership of a group grants; its members get it at once",
		Example: `  earshot admin group map --org default --group "Earshot Supervisors" --role Supervisor \
    --access 0190c3e2-…=Manage:Audio,Chat`,
		Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, orgRef)
			if err != nil {
				return nil, err
			}
			m.RoleName, m.Access = roleName, nil
			for _, spec := range access {
				grant, err := parseGroupAccess(spec)
				if err != nil {
					return nil, err
				}
				m.Access = append(m.Access, grant)
			}
			return a.SetGroupMapping(ctx, orgID, m)
		}),
	}
	f := mapCmd.Flags()
	f.StringVar(&orgRef, "org", "", "organization id or name (required)")
	f.StringVar(&m.Group, "group", "", "the group's display name, as the identity provider pushes it (required)")
	f.StringVar(&roleName, "role", "", "the role its members get (Administrator, Supervisor, Analyst, Agent or the organization's own)")
	f.StringArrayVar(&access, "access", nil, "hierarchy access its members get: NODE_ID=View|Edit|Manage:Audio,Chat (repeatable)")
	mapCmd.MarkFlagRequired("org")
	mapCmd.MarkFlagRequired("group")

	var unmapOrg, unmapGroup string
	unmap := &cobra.Command{
		Use: "unmap --org ID|NAME --group NAME", Short: "End a group's mapping; its members lose what it granted", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, unmapOrg)
			if err != nil {
				return nil, err
			}
			return map[string]string{"unmapped": unmapGroup}, a.DeleteGroupMapping(ctx, orgID, unmapGroup)
		}),
	}
	unmap.Flags().StringVar(&unmapOrg, "org", "", "organization id or name (required)")
	unmap.Flags().StringVar(&unmapGroup, "group", "", "the group's display name (required)")
	unmap.MarkFlagRequired("org")
	unmap.MarkFlagRequired("group")

	var listOrg string
	list := &cobra.Command{
		Use: "list --org ID|NAME", Short: "List an organization's group mappings", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, listOrg)
			if err != nil {
				return nil, err
			}
			return a.GroupMappings(ctx, orgID)
		}),
	}
	list.Flags().StringVar(&listOrg, "org", "", "organization id or name (required)")
	list.MarkFlagRequired("org")
	cmd.AddCommand(mapCmd, unmap, list)
	return cmd
}

// parseGroupAccess reads NODE_ID=LEVEL:MEDIA,MEDIA; the catalog checks
// the node, the level and the media.
func parseGroupAccess(spec string) (catalog.GroupAccess, error) {
	node, rest, ok := strings.Cut(spec, "=")
	level, media, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || strings.TrimSpace(node) == "" {
		return catalog.GroupAccess{}, fmt.Errorf("--access %q: write NODE_ID=LEVEL:MEDIA,MEDIA, such as 0190…=Manage:Audio,Chat", spec)
	}
	var permissions []string
	for _, p := range strings.Split(media, ",") {
		if p = strings.TrimSpace(p); p != "" {
			permissions = append(permissions, p)
		}
	}
	return catalog.GroupAccess{NodeID: strings.TrimSpace(node), AccessLevel: strings.TrimSpace(level), Permissions: permissions}, nil
}
