package pipeline

import (
	"context"
	"io"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Opener opens an upload's staged object.
type Opener func(ctx context.Context, key string) (io.ReadCloser, error)

// Processor turns one claimed upload into its outcome and its lake rows
// (Chats, Calls); the Analyzer then classifies the Result's batch before it
// is written.
type Processor interface {
	// Accepts tells whether this processor handles the upload.
	Accepts(up catalog.Interaction) bool
	// Process reads the upload. An error fails the upload alone, with the
	// error's text as its processFailures message.
	Process(ctx context.Context, up catalog.Interaction, runID string, open Opener) (Result, error)
}

// Result is one processed upload.
type Result struct {
	Outcome catalog.UploadOutcome
	Batch   lake.Batch
	// ClassifierFailures counts classifier results that could not be had
	// (they are left out; the rest stand).
	ClassifierFailures int
}
