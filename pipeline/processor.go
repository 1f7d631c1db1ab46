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
	// error's text as its processFailures message. An upload too large to
	// hold at once is handed to commit in parts (see Parts) before its
	// Result, which then holds the rest.
	Process(ctx context.Context, up catalog.Interaction, runID string, open Opener, commit Parts) (Result, error)
}

// Parts analyses, writes and commits one part of an upload while the rest
// is still being read, so that an archive of any number of chats needs the
// memory of a few parts. The part's Outcome is Partial; an error stops the
// upload (catalog.ErrLeaseLost: another worker has taken it over).
type Parts func(ctx context.Context, part Result) error

// PartChats is how many chats of an archive one part holds.
const PartChats = 500

// Result is one processed upload.
type Result struct {
	Outcome catalog.UploadOutcome
	Batch   lake.Batch
	// ClassifierFailures counts classifier results that could not be had
	// (they are left out; the rest stand).
	ClassifierFailures int
}
