// Package analysis is what classifiers read and write: a conversation's
// turns and metadata, a classifier's result with its evidence, and the
// errors of a classifier definition. The engines are in the packages
// below it (phrase, metadata, core, llm); registry compiles definitions
// into them and evaluates an organization's set over a conversation.
package analysis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Classifier types, as the contract names them.
const (
	TypeClassifier = "Classifier"
	TypeCoreModel  = "Core AI Model"
	TypeLLM        = "LLM Model"
	TypeMetadata   = "Metadata"
)

// Types are the classifier types in the contract's order.
var Types = []string{TypeClassifier, TypeCoreModel, TypeLLM, TypeMetadata}

// Categories are the classifier categories of the contract.
var Categories = []string{"Skills", "Topics", "Process", "SE Suite"}

// Speakers of turns.
const (
	Agent    = "Agent"
	Customer = "Customer"
	Any      = "Any"
)

// Turn is one speaker's turn. Words carry timings for calls; chats have
// none (and, without timestamps, every turn starts at 0).
type Turn struct {
	Speaker        string
	Text           string
	StartMs, EndMs int64
	Words          []Word
}

// Word is a timed word of a call.
type Word struct {
	Text           string
	StartMs, EndMs int64
}

// Conversation is one conversation as classifiers see it. Its normalized
// text is computed on first use and kept, so one conversation is evaluated
// by one goroutine at a time (a set runs its classifiers in turn), and its
// turns' texts do not change once it is.
type Conversation struct {
	ID, OrgID  string
	Turns      []Turn
	Metadata   Metadata
	normalized *Normalized
}

// Metadata are the fields Metadata classifiers test.
type Metadata struct {
	CallDirection      string
	ExtendedMetadata   map[string]string
	CallDurationMillis *int64
	ChatMessageCount   *int64
	AgentCode          string
	// HierarchyCodes are the codes of the conversation's node and of every
	// node above it: "hierarchy eq X" holds for a conversation anywhere
	// under X.
	HierarchyCodes []string
	LocaleID       int
}

// Timed reports whether the turns carry real times (a call, or a chat with
// timestamps): time windows mean something only then.
func (c *Conversation) Timed() bool { return c.DurationMs() > 0 }

// DurationMs is where the last turn ends. Times count from the start of
// the recording (a call) or the first message (a chat).
func (c *Conversation) DurationMs() int64 {
	var end int64
	for _, t := range c.Turns {
		end = max(end, t.EndMs)
	}
	return end
}

// Normalized is the conversation's text as phrase rules read it, computed
// once.
func (c *Conversation) Normalized() *Normalized {
	if c.normalized == nil {
		c.normalized = normalize(c.Turns)
	}
	return c.normalized
}

// Evidence is where a classifier found what it looked for.
type Evidence struct {
	Turn    int    `json:"turn"`
	StartMs int64  `json:"startMs"`
	EndMs   int64  `json:"endMs"`
	Text    string `json:"text"`
}

// Result is a classifier's answer for one conversation. Boolean
// classifiers set Bool (never write through it: see BoolResult); others
// give a label in Value only.
type Result struct {
	Value     string // "true", "false" or a label
	Bool      *bool
	Score     *float64
	Reasoning string
	Evidence  []Evidence
}

// BoolResult is a true/false result.
func BoolResult(v bool, evidence []Evidence) Result {
	b := &boolValues[0]
	if v {
		b = &boolValues[1]
	}
	return Result{Value: strconv.FormatBool(v), Bool: b, Evidence: evidence}
}

// boolValues are what boolean results point to: shared, as results are
// read and never written through (a pointer of its own would be an
// allocation per classifier and conversation).
var boolValues = [2]bool{false, true}

// Engine evaluates one compiled classifier version. Engines are safe for
// concurrent use.
type Engine interface {
	Evaluate(ctx context.Context, c *Conversation) (Result, error)
}

// DefinitionError is an invalid definition: Path names the place inside it
// ("definition.groups[0].rules[1].window").
type DefinitionError struct {
	Path    string
	Message string
}

func (e *DefinitionError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Invalid makes a DefinitionError at a path built from parts:
// Invalid("bad", "definition", "groups", 0) is "definition.groups[0]".
func Invalid(message string, parts ...any) *DefinitionError {
	return &DefinitionError{Path: PathOf(parts...), Message: message}
}

// PathOf joins names and indexes into a definition path.
func PathOf(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// SpanTimes are the start and end of turn's tokens [from, to): their
// words' times when the turn's words line up with its tokens (calls), else
// the turn's.
func (c *Conversation) SpanTimes(turn, from, to int) (int64, int64) {
	t := c.Turns[turn]
	if len(t.Words) == c.Normalized().Count(turn) && len(t.Words) > 0 {
		return t.Words[from].StartMs, t.Words[to-1].EndMs
	}
	return t.StartMs, t.EndMs
}

// SpanEvidence is turn's tokens [from, to) as evidence.
func (c *Conversation) SpanEvidence(turn, from, to int) Evidence {
	start, end := c.SpanTimes(turn, from, to)
	return Evidence{Turn: turn, StartMs: start, EndMs: end, Text: c.Normalized().Span(turn, from, to)}
}
