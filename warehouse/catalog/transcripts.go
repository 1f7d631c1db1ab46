package catalog

import (
	"errors"
)

// TranscriptSegment is one turn read back from the lake.
type TranscriptSegment struct {
	Speaker    string
	StartMs    int64
	EndMs      int64
	Text       string
	Confidence *float32
	Words      []TranscriptWord
}

// TranscriptWord is one word of a segment.
type TranscriptWord struct {
	Word       string
	StartMs    int64
	EndMs      int64
	Confidence float32
}

// ErrNotInLake: the conversation has no committed lake rows.
var ErrNotInLake = errors.New("conversation has no committed transcript")
