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
// left out. last says the page is the last one: the next page is read
// before fn sees this one, so that a reclassification can commit its last
// page and its end at once. fn returns false to stop early. A classifier's
// dry run and a reclassification read their conversations this way.
func EachProcessed(ctx context.Context, records Records, transcripts Transcripts, org string, from, to time.Time, page int,
	fn func(convs []Stored, last bool) (bool, error)) error {
	pages := processedPages{records: records, org: org, from: from, to: to, page: page}
	cur, err := pages.next(ctx)
	for err == nil && cur != nil {
		var next []catalog.Interaction
		if next, err = pages.next(ctx); err != nil {
			break
		}
		var convs []Stored
		if convs, err = withTranscripts(ctx, transcripts, org, cur); err != nil {
			break
		}
		more, fnErr := fn(convs, next == nil)
		if fnErr != nil || !more {
			return fnErr
		}
		cur = next
	}
	return err
}

// processedPages reads the pages of processed records, one status after
// the other, in id order.
type processedPages struct {
	records  Records
	org      string
	from, to time.Time
	page     int
	status   int // into processedStatuses
	after    string
}

var processedStatuses = []string{catalog.StatusReadyToSample, catalog.StatusSampled}

// next is the next page of records, nil after the last.
func (p *processedPages) next(ctx context.Context) ([]catalog.Interaction, error) {
	for p.status < len(processedStatuses) {
		its, err := p.records.Interactions(ctx, p.org, catalog.InteractionFilter{ArrivedFrom: &p.from, ArrivedTo: &p.to,
			Status: processedStatuses[p.status], AfterID: p.after, Limit: p.page})
		if err != nil {
			return nil, err
		}
		if len(its) > 0 {
			p.after = its[len(its)-1].ID
			return its, nil
		}
		p.status, p.after = p.status+1, ""
	}
	return nil, nil
}

// withTranscripts pairs the records that have a transcript with it.
func withTranscripts(ctx context.Context, transcripts Transcripts, org string, its []catalog.Interaction) ([]Stored, error) {
	segs, err := transcripts.Transcripts(ctx, org, its)
	if err != nil {
		return nil, err
	}
	convs := make([]Stored, 0, len(its))
	for _, it := range its {
		if len(segs[it.ID]) > 0 {
			convs = append(convs, Stored{Interaction: it, Segments: segs[it.ID]})
		}
	}
	return convs, nil
}

// RegistryClassifier is a catalog classifier's current version, as the
// registry compiles it.
func RegistryClassifier(c catalog.Classifier) registry.Classifier {
	return registry.Classifier{ID: c.ID, Name: c.Name, Type: c.Type, Category: c.CategoryName, Version: c.Version, Definition: c.Definition}
}
