package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// OpenAdmin reaches the catalog through a running server in this data
// directory when there is one (on SQLite, so that its in-memory copies see
// the change), else opens it here (on PostgreSQL every process follows the
// changes: any machine that reaches the catalog and the bucket will do).
func OpenAdmin(ctx context.Context, cfg *Config) (admin.Operations, func(), error) {
	if remote, err := admin.Dial(cfg.adminSocket()); err == nil {
		return remote, func() {}, nil
	}
	stg, err := openStorage(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	log := newLogger(os.Stderr, slog.LevelWarn, cfg.LogFormat)
	runner := newJobRunner(cfg, stg.cat, stg.lake, stg.bucket, newEvaluationSlots(), log, nil)
	svc := admin.NewService(admin.CatalogStores(stg.cat), runner)
	svc.SetClassifiers(classifiers.Service{Store: stg.cat.Classifiers, Compiler: cfg.classifierCompiler()})
	return svc, stg.close, nil
}

// printJSON prints a command's result as indented JSON.
func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// withAdmin runs fn against the catalog and prints its result as JSON.
func withAdmin(cfg *Config, fn func(ctx context.Context, a admin.Operations, args []string) (any, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		a, done, err := OpenAdmin(ctx, cfg)
		if err != nil {
			return err
		}
		defer done()
		out, err := fn(ctx, a, args)
		if err != nil {
			return err
		}
		return printJSON(cmd, out)
	}
}

func adminCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "admin", Short: "Manage organizations (with their audio and privacy settings), API clients, users, what their groups grant and classifiers (works while the server runs)"}

	org := &cobra.Command{Use: "org", Short: "Organizations"}
	org.AddCommand(&cobra.Command{
		Use: "create NAME", Short: "Create an organization", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			return a.CreateOrg(ctx, args[0])
		}),
	}, &cobra.Command{
		Use: "list", Short: "List organizations", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) { return a.ListOrgs(ctx) }),
	}, audioCommand(cfg), privacyCommand(cfg))

	client := &cobra.Command{Use: "client", Short: "API clients (OAuth 2.0 client credentials)"}
	var orgRef, name string
	create := &cobra.Command{
		Use: "create --org ID|NAME", Short: "Create a client; prints its client_id and client_secret (shown only once)", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, orgRef)
			if err != nil {
				return nil, err
			}
			return a.CreateClient(ctx, orgID, name)
		}),
	}
	create.Flags().StringVar(&orgRef, "org", "", "organization id or name (required)")
	create.Flags().StringVar(&name, "name", "api client", "a label for the client")
	create.MarkFlagRequired("org")
	var listOrg string
	list := &cobra.Command{
		Use: "list", Short: "List clients (secrets are never shown)", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID := ""
			if listOrg != "" {
				var err error
				if orgID, err = resolveOrg(ctx, a, listOrg); err != nil {
					return nil, err
				}
			}
			return a.ListClients(ctx, orgID)
		}),
	}
	list.Flags().StringVar(&listOrg, "org", "", "only this organization (id or name)")
	rotate := &cobra.Command{
		Use: "rotate CLIENT_ID", Short: "Give a client a new secret (shown only once); its tokens end within a minute", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			return a.RotateClientSecret(ctx, args[0])
		}),
	}
	deleteClient := &cobra.Command{
		Use: "delete CLIENT_ID", Short: "Delete a client; its tokens end within a minute", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			if err := a.DeleteClient(ctx, args[0]); err != nil {
				return nil, err
			}
			return map[string]any{"clientId": args[0], "deleted": true}, nil
		}),
	}
	scopes := &cobra.Command{
		Use: "scopes CLIENT_ID SCOPE...", Short: "Set the scopes a client may request: acxapi (the API), scim (user provisioning); its tokens end",
		Args: cobra.MinimumNArgs(2),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			if err := a.SetClientScopes(ctx, args[0], args[1:]); err != nil {
				return nil, err
			}
			return map[string]any{"clientId": args[0], "scopes": args[1:]}, nil
		}),
	}
	var days int
	scimToken := &cobra.Command{
		Use:   "scim-token CLIENT_ID [--days N]",
		Short: "Issue a long-lived provisioning token (scope scim) for an identity provider's SCIM setup; rotating the client ends it",
		Args:  cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			return a.ProvisioningToken(ctx, args[0], days)
		}),
	}
	scimToken.Flags().IntVar(&days, "days", 365, "how many days the token lives (at most 730)")
	client.AddCommand(create, list, setDisabledCommand(cfg, "disable", true), setDisabledCommand(cfg, "enable", false), rotate, scopes, scimToken, deleteClient)

	cmd.AddCommand(org, client, userCommand(cfg), groupCommand(cfg), classifiersCommand(cfg), keysCommand(cfg), catalogCommand())
	cmd.AddCommand(backupCommands(cfg)...)
	return cmd
}

func userCommand(cfg *Config) *cobra.Command {
	user := &cobra.Command{Use: "user", Short: "Users of an organization (dashboard accounts)"}
	var orgRef string
	var u admin.NewUser
	create := &cobra.Command{
		Use: "create --org ID|NAME --user-name NAME --first-name F --last-name L --email E [--role ROLE]", Short: "Create a user", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, orgRef)
			if err != nil {
				return nil, err
			}
			return a.CreateUser(ctx, orgID, u)
		}),
	}
	f := create.Flags()
	f.StringVar(&orgRef, "org", "", "organization id or name (required)")
	f.StringVar(&u.UserName, "user-name", "", "sign-in name, unique in the organization (required)")
	f.StringVar(&u.FirstName, "first-name", "", "first name (required)")
	f.StringVar(&u.LastName, "last-name", "", "last name (required)")
	f.StringVar(&u.Email, "email", "", "e-mail address, unique in the organization (required)")
	f.StringVar(&u.RoleName, "role", "", "Administrator, Analyst, Supervisor or Agent (default Agent)")
	for _, name := range []string{"org", "user-name", "first-name", "last-name", "email"} {
		create.MarkFlagRequired(name)
	}
	var listOrg string
	list := &cobra.Command{
		Use: "list --org ID|NAME", Short: "List an organization's users", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, listOrg)
			if err != nil {
				return nil, err
			}
			return a.ListUsers(ctx, orgID)
		}),
	}
	list.Flags().StringVar(&listOrg, "org", "", "organization id or name (required)")
	list.MarkFlagRequired("org")
	var passwordOrg, passwordUser, password string
	setPassword := &cobra.Command{
		Use: "password --org ID|NAME --user-name NAME [--password P]", Short: "Give a user a password for the web console (a new random one unless given; shown once); its sessions end",
		Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			orgID, err := resolveOrg(ctx, a, passwordOrg)
			if err != nil {
				return nil, err
			}
			return a.SetUserPassword(ctx, orgID, passwordUser, password)
		}),
	}
	setPassword.Flags().StringVar(&passwordOrg, "org", "", "organization id or name (required)")
	setPassword.Flags().StringVar(&passwordUser, "user-name", "", "the user's name (required)")
	setPassword.Flags().StringVar(&password, "password", "", "the password (8 to 72 bytes); default: a new random one")
	setPassword.MarkFlagRequired("org")
	setPassword.MarkFlagRequired("user-name")
	user.AddCommand(create, list, setPassword)
	return user
}

func setDisabledCommand(cfg *Config, verb string, disabled bool) *cobra.Command {
	return &cobra.Command{
		Use: verb + " CLIENT_ID", Short: verb + " a client (disabling ends its tokens within a minute)", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			if err := a.SetClientDisabled(ctx, args[0], disabled); err != nil {
				return nil, err
			}
			return map[string]any{"clientId": args[0], "disabled": disabled}, nil
		}),
	}
}

// resolveOrg accepts an organization's id or its name.
func resolveOrg(ctx context.Context, a admin.Operations, ref string) (string, error) {
	orgs, err := a.ListOrgs(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		if o.ID == ref || o.Name == ref {
			return o.ID, nil
		}
	}
	return "", fmt.Errorf("no organization has the id or name %q (see: earshot admin org list)", ref)
}

// audioCommand shows or changes an organization's speech settings.
func audioCommand(cfg *Config) *cobra.Command {
	var agentChannel int
	var lm, dict string
	cmd := &cobra.Command{
		Use:   "audio ID|NAME [--agent-channel 0|1] [--language-model PATH --dictionary PATH]",
		Short: "Show or set an organization's speech settings (stereo agent channel, own language model)",
		Args:  cobra.ExactArgs(1),
	}
	cmd.RunE = withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
		orgID, err := resolveOrg(ctx, a, args[0])
		if err != nil {
			return nil, err
		}
		current, err := a.AudioSettings(ctx, orgID)
		if err != nil {
			return nil, err
		}
		f := cmd.Flags()
		if !f.Changed("agent-channel") && !f.Changed("language-model") && !f.Changed("dictionary") {
			return current, nil
		}
		if f.Changed("agent-channel") {
			current.AgentChannel = agentChannel
		}
		if f.Changed("language-model") || f.Changed("dictionary") {
			current.LanguageModel, current.Dictionary = lm, dict
		}
		return a.SetAudioSettings(ctx, current)
	})
	cmd.Flags().IntVar(&agentChannel, "agent-channel", 0, "stereo channel the agent is on: 0 (left) or 1 (right); the customer is on the other")
	cmd.Flags().StringVar(&lm, "language-model", "", `the organization's own language model (absolute path; "" with --dictionary "" for the default)`)
	cmd.Flags().StringVar(&dict, "dictionary", "", "the pronunciation dictionary that goes with it (absolute path)")
	return cmd
}

func classifiersCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "classifiers", Short: "An organization's classifiers"}
	var useStarter bool
	imp := &cobra.Command{
		Use:   "import ID|NAME [FILE | --starter]",
		Short: "Create or update classifiers from a JSON file (an array of POST /Conversations/Classifiers bodies), by name",
		Long: `Create an organization's classifiers from a JSON file: an array of objects with the
fields of POST /Conversations/Classifiers (name, description, classifierType,
categoryName, reportable, groupable, definition). A classifier whose name the
organization already has is updated (a new version). Every definition is checked
before anything is written. --starter imports the example set shipped with
Earshot (pipeline/analysis/starter/classifiers.json).`,
		Args: cobra.RangeArgs(1, 2),
	}
	imp.RunE = withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
		var data []byte
		switch {
		case useStarter && len(args) == 1:
			data = starter.JSON
		case !useStarter && len(args) == 2:
			var err error
			if data, err = os.ReadFile(args[1]); err != nil {
				return nil, err
			}
		default:
			return nil, errors.New("give a FILE or --starter")
		}
		specs, err := starter.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("the file is not a JSON array of classifiers: %w", err)
		}
		orgID, err := resolveOrg(ctx, a, args[0])
		if err != nil {
			return nil, err
		}
		return importClassifiers(ctx, a, orgID, specs)
	})
	imp.Flags().BoolVar(&useStarter, "starter", false, "import the starter set: greeting, identity verification, escalation request, cancellation intent, empathy, dead air, PII spoken, negative customer sentiment")
	cmd.AddCommand(imp, trainCommand(cfg), mineCommand(cfg))
	return cmd
}

// importedClassifier is a line of what import and train print.
type importedClassifier struct {
	ID         string              `json:"id"`
	Name       string              `json:"name"`
	Type       string              `json:"classifierType"`
	Version    int                 `json:"version"`
	Evaluation *trained.Evaluation `json:"evaluation,omitempty"`
}

// importClassifiers creates or updates the organization's classifiers by
// name and lists them.
func importClassifiers(ctx context.Context, a admin.Operations, orgID string, specs []starter.Spec) ([]importedClassifier, error) {
	imported, err := a.ImportClassifiers(ctx, orgID, specs)
	if err != nil {
		return nil, err
	}
	out := make([]importedClassifier, len(imported))
	for i, c := range imported {
		out[i] = importedClassifier{ID: c.ID, Name: c.Name, Type: c.Type, Version: c.Version}
	}
	return out, nil
}

func privacyCommand(cfg *Config) *cobra.Command {
	var redact, keep bool
	cmd := &cobra.Command{
		Use:   "privacy ID|NAME [--redact-pii=true|false] [--keep-originals=true|false]",
		Short: "Show or set an organization's privacy settings (redact personal data from stored transcripts; keep or delete the uploads' originals)",
		Args:  cobra.ExactArgs(1),
	}
	cmd.RunE = withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
		orgID, err := resolveOrg(ctx, a, args[0])
		if err != nil {
			return nil, err
		}
		current, err := a.PrivacySettings(ctx, orgID)
		if err != nil || !cmd.Flags().Changed("redact-pii") && !cmd.Flags().Changed("keep-originals") {
			return current, err
		}
		if cmd.Flags().Changed("redact-pii") {
			current.RedactPII = redact
		}
		if cmd.Flags().Changed("keep-originals") {
			current.KeepOriginals = keep
		}
		return a.SetPrivacySettings(ctx, current)
	})
	cmd.Flags().BoolVar(&redact, "redact-pii", false, "replace card numbers, SSNs, phone numbers and e-mail addresses in transcripts with [card], [ssn], … before they are stored")
	cmd.Flags().BoolVar(&keep, "keep-originals", false, "with --redact-pii, keep the uploads' staged originals (which hold the personal data) once processed; by default they are deleted then")
	return cmd
}
