package jobs

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// StagedOriginals deletes the staged originals the catalog holds as to be
// deleted: those of processed uploads of organizations that redact personal
// data and do not keep originals (the ingest commit records them).
type StagedOriginals struct {
	Catalog interface {
		StagedDeletions(ctx context.Context, limit int) ([]catalog.StagedDeletion, error)
		StagedDeleted(ctx context.Context, ids []string) error
	}
	Bucket interface {
		Delete(ctx context.Context, key string) error
	}
}

// deletesAtOnce is how many originals are deleted side by side. Ingest
// deletes a batch's after its commit, before the next commit: on an
// object store each delete is a round trip, and one after another they
// would hold the next commit for as many round trips as the batch has
// archives.
const deletesAtOnce = 16

// Delete deletes every recorded original and returns how many. A failed
// delete leaves its batch's records, which the next run deletes again
// (an original already gone counts as deleted).
func (s *StagedOriginals) Delete(ctx context.Context) (int, error) {
	deleted := 0
	for {
		batch, err := s.Catalog.StagedDeletions(ctx, 500)
		if err != nil || len(batch) == 0 {
			return deleted, err
		}
		deletes, dctx := errgroup.WithContext(ctx)
		deletes.SetLimit(deletesAtOnce)
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.InteractionID
			deletes.Go(func() error {
				if err := s.Bucket.Delete(dctx, d.StagedKey); err != nil && !errors.Is(err, blob.ErrNotFound) {
					return fmt.Errorf("delete the staged original %s: %w", d.StagedKey, err)
				}
				return nil
			})
		}
		if err := deletes.Wait(); err != nil {
			return deleted, err
		}
		if err := s.Catalog.StagedDeleted(ctx, ids); err != nil {
			return deleted, err
		}
		deleted += len(ids)
	}
}
