// Package trained is the classifier type learned from labelled
// conversations (a Core AI Model whose model is "trained"): one label's
// logistic regression over a conversation's words and word pairs, with the
// decision threshold chosen by cross-validation. Train learns models from
// examples; Compile reads one back from its definition.
//
//	{"model": "trained", "label": "Hotels", "bias": -2.1, "threshold": 0.43,
//	 "weights": {"hotel": 3.2, "check in": 1.7, …},
//	 "evaluation": {"folds": 5, "precision": 0.97, …}, "training": {…}}
package trained

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Model is one label's classifier.
type Model struct {
	Label string `json:"label"`
	// Bias and Weights give a conversation's log-odds: Bias plus the
	// weight of each term present.
	Bias    float64            `json:"bias"`
	Weights map[string]float64 `json:"weights"`
	// Threshold is the probability from which the result is true.
	Threshold float64 `json:"threshold"`
	// Sure is the probability from which the label stands even where a
	// topic a user wrote claims the conversation (a phrase rule with
	// takesFromTrained); below it the model yields. Zero (definitions
	// trained before it existed): the model never yields.
	Sure       float64    `json:"sure,omitempty"`
	Evaluation Evaluation `json:"evaluation"`
	Training   Training   `json:"training"`

	alone     *Index     // the model indexed by itself
	sureBasis *sureBasis // of a model trained in this process; nil when read from a definition
}

// WithSureShare is a copy of a model trained in this process with its sure
// level where share of its positives, scored out of fold, reach it: what
// training with that share would have given, without training again.
func (m *Model) WithSureShare(share float64) (*Model, error) {
	if m.sureBasis == nil {
		return nil, fmt.Errorf("model %q: its out-of-fold scores are only known where it was trained", m.Label)
	}
	if err := checkSureShare(share); err != nil {
		return nil, err
	}
	c := *m
	c.Sure = m.sureBasis.level(share)
	c.alone = NewIndex([]*Model{&c})
	return &c, nil
}

// Evaluation is how the model did on conversations it was not trained on:
// each of Folds parts of the training data scored by a model trained on
// the others, at the threshold chosen.
type Evaluation struct {
	Folds     int     `json:"folds"`
	Examples  int     `json:"examples"`
	Positives int     `json:"positives"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Training is how the model was trained, to retrain it alike.
type Training struct {
	Source         string  `json:"source"` // what the examples were: a file's name, a training run
	Seed           uint64  `json:"seed"`
	Regularization float64 `json:"regularization"`
	MinDocuments   int     `json:"minDocuments"`
	Vocabulary     int     `json:"vocabulary"` // terms seen in MinDocuments examples or more
}

// Definition is the model as a Core AI Model definition.
func (m *Model) Definition() json.RawMessage {
	type fields Model // Model's fields without its methods
	raw, err := json.Marshal(struct {
		Kind string `json:"model"`
		*fields
	}{"trained", (*fields)(m)})
	if err != nil {
		panic(err) // only numbers, strings and maps of them
	}
	return raw
}

// Compile reads a model from its definition (analysis.Decode's object,
// model "trained").
func Compile(def *analysis.Object) (*Model, error) {
	if err := def.Allow("model", "label", "bias", "weights", "threshold", "sure", "evaluation", "training"); err != nil {
		return nil, err
	}
	label, err := def.String("label", "")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(label) == "" {
		return nil, analysis.Invalid("is required: the label the model recognises", def.Path, "label")
	}
	bias, err := def.Number("bias", -1e6, 1e6)
	if err != nil {
		return nil, err
	}
	threshold, err := def.Number("threshold", 0, 1)
	if err != nil {
		return nil, err
	}
	if bias == nil || threshold == nil {
		return nil, analysis.Invalid("bias and threshold are required: a trained model's definition is written by training (earshot admin classifiers train)", def.Path)
	}
	weights, err := def.Object("weights")
	if err != nil {
		return nil, err
	}
	if weights == nil {
		return nil, analysis.Invalid("is required: term → weight", def.Path, "weights")
	}
	sure, err := def.Number("sure", 0, 1)
	if err != nil {
		return nil, err
	}
	m := &Model{Label: label, Bias: *bias, Threshold: *threshold, Weights: map[string]float64{}}
	if sure != nil {
		m.Sure = *sure
	}
	for _, term := range weights.Keys() {
		w, err := weights.Number(term, -1e6, 1e6)
		if err != nil {
			return nil, err
		}
		if tokens := analysis.Tokenize(term); strings.Join(tokens, " ") != term || len(tokens) > 2 {
			return nil, analysis.Invalid("must be one or two words as the tokenizer writes them (lower case, no marks)", weights.Path, term)
		}
		m.Weights[term] = *w
	}
	if m.Evaluation, err = readEvaluation(def); err != nil {
		return nil, err
	}
	if m.Training, err = readTraining(def); err != nil {
		return nil, err
	}
	m.alone = NewIndex([]*Model{m})
	return m, nil
}

// readEvaluation reads the optional evaluation figures.
func readEvaluation(def *analysis.Object) (Evaluation, error) {
	var e Evaluation
	o, err := def.Object("evaluation")
	if err != nil || o == nil {
		return e, err
	}
	if err := o.Allow("folds", "examples", "positives", "precision", "recall", "f1"); err != nil {
		return e, err
	}
	for _, f := range []struct {
		key  string
		into *int
	}{{"folds", &e.Folds}, {"examples", &e.Examples}, {"positives", &e.Positives}} {
		if err := readInt(o, f.key, f.into); err != nil {
			return e, err
		}
	}
	for _, f := range []struct {
		key  string
		into *float64
	}{{"precision", &e.Precision}, {"recall", &e.Recall}, {"f1", &e.F1}} {
		key, into := f.key, f.into
		v, err := o.Number(key, 0, 1)
		if err != nil {
			return e, err
		}
		if v != nil {
			*into = *v
		}
	}
	return e, nil
}

// readTraining reads the optional training settings.
func readTraining(def *analysis.Object) (Training, error) {
	var t Training
	o, err := def.Object("training")
	if err != nil || o == nil {
		return t, err
	}
	if err := o.Allow("source", "seed", "regularization", "minDocuments", "vocabulary"); err != nil {
		return t, err
	}
	if t.Source, err = o.String("source", ""); err != nil {
		return t, err
	}
	seed, err := o.Int("seed", 0, math.MaxInt64)
	if err != nil {
		return t, err
	}
	if seed != nil {
		t.Seed = uint64(*seed)
	}
	reg, err := o.Number("regularization", 0, 1e6)
	if err != nil {
		return t, err
	}
	if reg != nil {
		t.Regularization = *reg
	}
	if err := readInt(o, "minDocuments", &t.MinDocuments); err != nil {
		return t, err
	}
	if err := readInt(o, "vocabulary", &t.Vocabulary); err != nil {
		return t, err
	}
	return t, nil
}

func readInt(o *analysis.Object, key string, into *int) error {
	v, err := o.Int(key, 0, math.MaxInt32)
	if v != nil {
		*into = int(*v)
	}
	return err
}

// Evaluate runs the model alone (a set evaluates its models together
// through an Index).
func (m *Model) Evaluate(_ context.Context, c *analysis.Conversation) (analysis.Result, error) {
	s := m.alone.Scan(c)
	defer m.alone.Release(s)
	return m.alone.Evaluate(0, c, s), nil
}

// Description says where the model came from and how it did, for the
// classifier's description.
func (m *Model) Description() string {
	return fmt.Sprintf("Trained from %s: %d conversations, %d with the label; %d-fold F1 %.3f",
		m.Training.Source, m.Evaluation.Examples, m.Evaluation.Positives, m.Evaluation.Folds, m.Evaluation.F1)
}
