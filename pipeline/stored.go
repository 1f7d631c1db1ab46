package pipeline

import (
	"context"
	"time"

	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Records reads processed conversations' records back (the catalog).
type Records interface {
	Interactions(ctx context.Context, orgID string, f catalog.InteractionFilter) ([]catalog.Interaction, error)
}

// Transcripts reads processed conversations' transcripts back (the lake).
type Transcripts interface {
	Transcripts(ctx context.Context, orgID string, its []catalog.Interaction) (map[string][]catalog.TranscriptSegment, error)
}

// Stored is a processed conversation with its transcript.
type Stored struct {
	catalog.Interaction
	Segments []catalog.TranscriptSegment
}

// EachProcessed calls fn with the organization's processed conversations
// (ReadyToSample, then Sampled) that arrived in [from, to], a page of at
// most page records at a time, with their transcripts; uploads without a
// transcript (archives: their chats are conversations of their own) are
// left out. fn returns false to stop early. A classifier's dry run and a
// reclassification read their conversations this way.
func EachProcessed(ctx context.Context, records Records, transcripts Transcripts, org string, from, to time.Time, page int, fn func([]Stored) (bool, error)) error {
	for _, status := range []string{catalog.StatusReadyToSample, catalog.StatusSampled} {
		after := ""
		for {
			its, err := records.Interactions(ctx, org, catalog.InteractionFilter{ArrivedFrom: &from, ArrivedTo: &to, Status: status,
				AfterID: after, Limit: page})
			if err != nil || len(its) == 0 {
				if err != nil {
					return err
				}
				break
			}
			after = its[len(its)-1].ID
			segs, err := transcripts.Transcripts(ctx, org, its)
			if err != nil {
				return err
			}
			convs := make([]Stored, 0, len(its))
			for _, it := range its {
				if len(segs[it.ID]) > 0 {
					convs = append(convs, Stored{Interaction: it, Segments: segs[it.ID]})
				}
			}
			more, err := fn(convs)
			if err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// RegistryClassifier is a catalog classifier's current version, as the
// registry compiles it.
func RegistryClassifier(c catalog.Classifier) registry.Classifier {
	return registry.Classifier{ID: c.ID, Name: c.Name, Type: c.Type, Category: c.CategoryName, Version: c.Version, Definition: c.Definition}
}
