// Package lake writes Earshot's analysis output as Parquet: zstd, timestamps
// in microseconds (what DuckDB reads), hive layout
// lake/TABLE/org=ORG/date=YYYY-MM-DD/part-RUN-N.parquet by arrival date, rows
// sorted by conversation id. A written file is invisible until the catalog's
// manifest lists it (catalog.CommitIngest), so a crash leaves nothing
// half-visible; every row carries the run that wrote it, and readers keep
// the rows of each conversation's current run.
package lake

import "time"

// Conversation is one row of the conversations table.
type Conversation struct {
	ID                 string
	RunID              string
	OrgID              string
	UploadID           *string
	MediaType          string
	FileName           string
	ArrivedOn          time.Time
	InteractionDate    *time.Time
	HierarchyNodeID    *string
	AgentID            *string
	AgentCode          *string
	ClientCallID       *string
	CallDirection      *string
	LocaleID           int32
	CallDurationMillis *int64
	ChatMessageCount   *int32
	ExtendedMetadata   string // JSON object of strings
	TranscriptMode     string // chat | stereo | mono
	TranscriptEngine   *string
	TranscriptModel    *string
}

// Segment is one row of transcript_segments: a turn of a speaker.
type Segment struct {
	ConversationID string
	RunID          string
	OrgID          string
	ArrivedOn      time.Time // partition date; not a column
	Index          int32
	Speaker        string // Agent, Customer, Bot, System or Speaker
	StartMs        int64
	EndMs          int64
	Text           string
	Confidence     *float32
	Words          []Word
}

// Word is one recognized word with its timing.
type Word struct {
	Word       string
	StartMs    int64
	EndMs      int64
	Confidence float32
}

// ListWords are the words of a segment as a query of the lake scans its
// words column: a list of structs, each a map by field name.
func ListWords(list []any) []Word {
	var out []Word
	for _, v := range list {
		m, _ := v.(map[string]any)
		var w Word
		w.Word, _ = m["word"].(string)
		w.StartMs, _ = m["start_ms"].(int64)
		w.EndMs, _ = m["end_ms"].(int64)
		w.Confidence, _ = m["confidence"].(float32)
		out = append(out, w)
	}
	return out
}

// ClassifierResult is one row of classifier_results: a classifier
// version's answer for a conversation.
type ClassifierResult struct {
	ConversationID string
	RunID          string
	OrgID          string
	ArrivedOn      time.Time // partition date; not a column
	ClassifierID   string
	Version        int32
	Type           string // classifierType
	Category       string // categoryName
	Result         string // "true", "false" or a label
	Reasoning      *string
	Score          *float64
	Evidence       []Evidence
}

// Evidence is where a classifier found what it looked for.
type Evidence struct {
	Turn    int32
	StartMs int64
	EndMs   int64
	Text    string
}

// ModelResult is one row of model_results: the ML event of a classifier's
// result, as /ModelResults reports it (Result for boolean classifiers,
// TextResult otherwise).
type ModelResult struct {
	ConversationID string
	RunID          string
	OrgID          string
	ArrivedOn      time.Time // partition date; not a column
	EventType      string    // ModelResults
	EventTime      time.Time
	ModelID        string
	Version        int32
	Result         *bool
	TextResult     *string
}

// Batch is what one run writes.
type Batch struct {
	Conversations     []Conversation
	Segments          []Segment
	ClassifierResults []ClassifierResult
	ModelResults      []ModelResult
}

// Rows is how many rows the batch has, all tables together.
func (b *Batch) Rows() int {
	return len(b.Conversations) + len(b.Segments) + len(b.ClassifierResults) + len(b.ModelResults)
}

// Table names.
const (
	TableConversations     = "conversations"
	TableSegments          = "transcript_segments"
	TableClassifierResults = "classifier_results"
	TableModelResults      = "model_results"
)
