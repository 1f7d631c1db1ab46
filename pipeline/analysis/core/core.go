// Package core is the built-in analyses (classifier type "Core AI Model"):
// sentiment (VADER), talk statistics and personal data (PII). A
// definition names its model:
//
//	{"model": "sentiment", "speaker": "Customer", "label": "Negative"}
//	{"model": "talk", "measure": "silenceShare", "above": 0.3}
//	{"model": "pii", "kinds": ["card", "ssn"]}
//	{"model": "trained", "label": "Hotels", …} (see package trained)
package core

import (
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// Compile validates and compiles a Core AI Model definition.
func Compile(raw []byte) (analysis.Engine, error) {
	def, err := analysis.Decode(raw, "definition")
	if err != nil {
		return nil, err
	}
	model, err := def.String("model", "", "sentiment", "talk", "pii", "trained")
	if err != nil {
		return nil, err
	}
	switch model {
	case "sentiment":
		return compileSentiment(def)
	case "talk":
		return compileTalk(def)
	case "pii":
		return compilePII(def)
	case "trained":
		return trained.Compile(def)
	}
	return nil, analysis.Invalid("is required: sentiment, talk, pii or trained", "definition", "model")
}

// speakerOf reads a definition's speaker (Any when absent).
func speakerOf(def *analysis.Object) (string, error) {
	return def.String("speaker", analysis.Any, analysis.Agent, analysis.Customer, analysis.Any)
}

func speaks(want, speaker string) bool { return want == analysis.Any || want == speaker }
