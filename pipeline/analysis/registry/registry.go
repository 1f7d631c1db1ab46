// Package registry compiles classifier definitions into their engines by
// classifier type, and evaluates an organization's set of classifiers over
// a conversation, the phrase classifiers sharing one pass over the text and
// the trained models another; a topic a user wrote may take its
// conversations from trained models (yield.go).
package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/core"
	"github.com/earshot/earshot/pipeline/analysis/metadata"
	"github.com/earshot/earshot/pipeline/analysis/phrase"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// Classifier is one version of a classifier, as the catalog keeps it.
type Classifier struct {
	ID         string
	Name       string
	Type       string // analysis.Type*
	Category   string
	Version    int
	Definition json.RawMessage
}

// LLMEngines make LLM Model engines for an organization; nil when the
// operator configured no endpoint.
type LLMEngines interface {
	Compile(orgID string, definition []byte) (analysis.Engine, error)
}

// Compiler compiles definitions.
type Compiler struct {
	LLM LLMEngines
}

// ErrNoLLM: LLM Model classifiers need an endpoint the operator has not
// configured.
var ErrNoLLM = &analysis.DefinitionError{Path: "classifierType", Message: "LLM Model classifiers need an LLM endpoint, and none is configured for this organization"}

// Compiled is a classifier ready to evaluate.
type Compiled struct {
	Classifier
	engine  analysis.Engine
	phrase  *phrase.Classifier // for phrase classifiers: evaluated through a Set's index
	trained *trained.Model     // for trained models: evaluated through a Set's index too
}

// engineKind is a classifier type and how its definitions compile.
type engineKind struct {
	Type    string
	Compile func(cp Compiler, orgID string, definition json.RawMessage) (analysis.Engine, error)
}

// engines are the classifier types and how each compiles a definition
// into its engine, in the contract's order: adding a classifier engine is
// adding its line here (docs/classifiers.md, "Adding a classifier
// engine"). A phrase rule or a trained model is evaluated through a Set's
// shared index (Compiled.phrase, Compiled.trained); every other engine by
// itself.
var engines = []engineKind{
	{analysis.TypeClassifier, func(_ Compiler, _ string, d json.RawMessage) (analysis.Engine, error) { return phrase.Compile(d) }},
	{analysis.TypeCoreModel, func(_ Compiler, _ string, d json.RawMessage) (analysis.Engine, error) { return core.Compile(d) }},
	{analysis.TypeLLM, func(cp Compiler, orgID string, d json.RawMessage) (analysis.Engine, error) {
		if cp.LLM == nil {
			return nil, ErrNoLLM
		}
		return cp.LLM.Compile(orgID, d)
	}},
	{analysis.TypeMetadata, func(_ Compiler, _ string, d json.RawMessage) (analysis.Engine, error) { return metadata.Compile(d) }},
}

// Compile validates a definition and compiles it for its type.
func (cp Compiler) Compile(orgID string, c Classifier) (*Compiled, error) {
	i := slices.IndexFunc(engines, func(e engineKind) bool { return e.Type == c.Type })
	if i < 0 {
		return nil, &analysis.DefinitionError{Path: "classifierType", Message: fmt.Sprintf("must be one of %v", analysis.Types)}
	}
	engine, err := engines[i].Compile(cp, orgID, c.Definition)
	if err != nil {
		return nil, err
	}
	out := &Compiled{Classifier: c, engine: engine}
	out.phrase, _ = engine.(*phrase.Classifier)
	out.trained, _ = engine.(*trained.Model)
	return out, nil
}

// Evaluate runs this classifier alone.
func (c *Compiled) Evaluate(ctx context.Context, conv *analysis.Conversation) (analysis.Result, error) {
	return c.engine.Evaluate(ctx, conv)
}

// Set is an organization's active classifiers, compiled; safe for
// concurrent use.
type Set struct {
	Classifiers []*Compiled
	index       *phrase.Index
	indexOf     []int // classifier → its place in the phrase index, or -1
	models      *trained.Index
	modelOf     []int // classifier → its place in the models' index, or -1
	waits       bool  // a classifier waits on the network (an LLM)
	claims      []int // phrase rules that take from trained models (yield.go)
	yields      []int // trained models that can yield to them
}

// NewSet builds the shared phrase index and trained models' index of the
// set.
func NewSet(cs []*Compiled) *Set {
	s := &Set{Classifiers: cs, indexOf: make([]int, len(cs)), modelOf: make([]int, len(cs))}
	var phrases []*phrase.Classifier
	var models []*trained.Model
	for i, c := range cs {
		s.indexOf[i], s.modelOf[i] = -1, -1
		s.waits = s.waits || c.Type == analysis.TypeLLM
		switch {
		case c.phrase != nil:
			s.indexOf[i] = len(phrases)
			phrases = append(phrases, c.phrase)
		case c.trained != nil:
			s.modelOf[i] = len(models)
			models = append(models, c.trained)
		}
	}
	s.index = phrase.NewIndex(phrases)
	s.models = trained.NewIndex(models)
	s.claimsAndYields()
	return s
}

// WaitsOnNetwork reports whether evaluating the set waits on the network
// (an LLM classifier), not only on the CPU.
func (s *Set) WaitsOnNetwork() bool { return s.waits }

// Outcome is one classifier's result for a conversation, or why it has
// none.
type Outcome struct {
	Classifier *Compiled
	Result     analysis.Result
	Err        error
}

// Evaluate runs every classifier of the set over a conversation; one
// classifier's failure (an LLM timeout) is its outcome alone.
func (s *Set) Evaluate(ctx context.Context, conv *analysis.Conversation) []Outcome {
	return s.EvaluateInto(ctx, conv, nil)
}

// EvaluateInto is Evaluate writing into out's memory (returned at the
// set's length): a loop over many conversations that is done with one's
// outcomes before the next reuses one slice.
func (s *Set) EvaluateInto(ctx context.Context, conv *analysis.Conversation, out []Outcome) []Outcome {
	out = slices.Grow(out[:0], len(s.Classifiers))[:len(s.Classifiers)]
	var hits *phrase.Hits
	var scan *trained.Scan
	for i, c := range s.Classifiers {
		var res analysis.Result
		var err error
		switch {
		case s.indexOf[i] >= 0:
			if hits == nil {
				hits = s.index.Scan(conv)
			}
			res = s.index.Evaluate(s.indexOf[i], conv, hits)
		case s.modelOf[i] >= 0:
			if scan == nil {
				scan = s.models.Scan(conv)
			}
			res = s.models.Evaluate(s.modelOf[i], conv, scan)
		default:
			res, err = c.engine.Evaluate(ctx, conv)
		}
		out[i] = Outcome{Classifier: c, Result: res, Err: err} // one write: each costs a write barrier while the GC runs
	}
	s.yield(out)
	if hits != nil {
		s.index.Release(hits)
	}
	if scan != nil {
		s.models.Release(scan)
	}
	return out
}
