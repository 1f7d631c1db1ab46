package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
)

// Import is conversations processed elsewhere (generated data for
// benchmarks and tests), committed like an ingest batch: the lake files
// are written first, then one transaction adds the records (their
// LakeRunID naming the run of the files), their review sets and the
// files to the manifest.
type Import struct {
	RunID        string
	Interactions []Interaction
	Reviews      []Review
	Files        []LakeFile
}

// CommitImport makes an import visible in one transaction.
func (c *InteractionStore) CommitImport(ctx context.Context, im Import) error {
	t := now()
	its := make([][]any, len(im.Interactions))
	for i, it := range im.Interactions {
		its[i] = interactionRow(it, t, it.LakeRunID)
	}
	reviews := make([][]any, len(im.Reviews))
	for i, r := range im.Reviews {
		results, err := json.Marshal(r.Results)
		if err != nil {
			return err
		}
		reviews[i] = []any{r.ID, r.OrgID, r.ConversationID, r.EventType, r.Reviewer, stamp(r.EventTime), string(results)}
	}
	files := make([][]any, len(im.Files))
	for i, f := range im.Files {
		files[i] = lakeFileRow(f, im.RunID, t)
	}
	defer c.manifest.invalidate(orgsOf(im.Files)...)
	defer c.reviews.invalidateAll() // an import is rare: whose reviews it holds need not be sorted out
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if err := c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, its); err != nil {
			return err
		}
		if err := c.bulkInsert(ctx, tx, "result_reviews", reviewColumns, reviews); err != nil {
			return err
		}
		if err := c.bulkInsert(ctx, tx, "lake_files", lakeFileColumns, files); err != nil {
			return err
		}
		if err := c.changed(ctx, tx, domainReviews); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainManifest, orgsOf(im.Files)...)
	})
}
