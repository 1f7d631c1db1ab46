package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/warehouse/catalog"
)

// catalogCommand moves a catalog from one engine to another: the day a
// second machine arrives, SQLite into PostgreSQL (and back).
func catalogCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "catalog", Short: "The catalog itself (copy it between SQLite and PostgreSQL)"}
	var from, to string
	cp := &cobra.Command{
		Use:   "copy --from ADDRESS --to ADDRESS",
		Short: "Copy every table of one catalog into another, empty one, in one transaction; prints the rows copied by table",
		Long: `Copies every table of the catalog at --from into the catalog at --to (sqlite://PATH
or postgres://…, either way), in one transaction on the target, and checks each
table's row count before it commits: a failed copy leaves the target as it was.
The target's tables must be empty (a new catalog; a server that started on it
has already written its signing key: copy before the first start). Stop the
processes that write to --from first: what they write during the copy is not
copied. Then start every process with --catalog set to the target.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if from == to {
				return errors.New("--from and --to name the same catalog")
			}
			copied, err := catalog.Copy(ctx, from, to)
			if err != nil {
				return err
			}
			var total int64
			for _, n := range copied {
				total += n
			}
			return printJSON(cmd, map[string]any{"tables": copied, "rows": total})
		},
	}
	cp.Flags().StringVar(&from, "from", "", "the catalog to copy (sqlite://PATH or postgres://…)")
	cp.Flags().StringVar(&to, "to", "", "the empty catalog to copy into (sqlite://PATH or postgres://…)")
	cp.MarkFlagRequired("from")
	cp.MarkFlagRequired("to")
	cmd.AddCommand(cp)
	return cmd
}
