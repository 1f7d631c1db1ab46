package jobs

import (
	"context"
	"errors"
	"fmt"

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

// Delete deletes every recorded original and returns how many.
func (s *StagedOriginals) Delete(ctx context.Context) (int, error) {
	deleted := 0
	for {
		batch, err := s.Catalog.StagedDeletions(ctx, 500)
		if err != nil || len(batch) == 0 {
			return deleted, err
		}
		ids := make([]string, 0, len(batch))
		for _, d := range batch {
			if err := s.Bucket.Delete(ctx, d.StagedKey); err != nil && !errors.Is(err, blob.ErrNotFound) {
				return deleted, fmt.Errorf("delete the staged original %s: %w", d.StagedKey, err)
			}
			ids = append(ids, d.InteractionID)
		}
		if err := s.Catalog.StagedDeleted(ctx, ids); err != nil {
			return deleted, err
		}
		deleted += len(ids)
	}
}
