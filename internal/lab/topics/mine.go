// Package topics measures topic classifiers on the dialogue corpus: one
// classifier per service, trained (package trained) or mined as phrase
// rules (package mining) from the training split, scored on another split
// with the real engines (Measure), and their classification throughput.
package topics

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/mining"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// Handwritten are topics for services the training split has no dialogue
// of (sgd-train has no Alarm dialogues), or that a measurement holds out of
// training (HoldOut), so nothing could be mined or trained: a name and at
// most five obvious phrases, written by hand as a user would add a topic,
// without reading the dialogues they are measured on.
var Handwritten = []mining.Topic{
	{Label: "Alarm", Phrases: []string{"alarm", "alarms", "wake me up"}},
	{Label: "Buses", Phrases: []string{"bus", "buses", "by bus", "bus ticket", "bus station"}},
	{Label: "RentalCars", Phrases: []string{"rental car", "rent a car", "car rental", "rental cars", "hire a car"}},
}

// HandwrittenLabels are the labels of the handwritten topics.
func HandwrittenLabels() []string {
	var out []string
	for _, h := range Handwritten {
		out = append(out, h.Label)
	}
	return out
}

// HoldOut leaves out of a training split every dialogue of the services,
// each of which must have a handwritten topic to stand for it.
func HoldOut(train []corpus.Dialogue, services []string) ([]corpus.Dialogue, error) {
	if len(services) == 0 {
		return train, nil
	}
	for _, s := range services {
		if !slices.Contains(HandwrittenLabels(), s) {
			return nil, fmt.Errorf("no handwritten topic for %q to hold out: one of %s", s, strings.Join(HandwrittenLabels(), ", "))
		}
	}
	var out []corpus.Dialogue
	for _, d := range train {
		if !ofAny(d, services) {
			out = append(out, d)
		}
	}
	return out, nil
}

// ofAny reports whether the dialogue is labelled with any of services.
func ofAny(d corpus.Dialogue, services []string) bool {
	return slices.ContainsFunc(d.Services, func(s string) bool { return slices.Contains(services, s) })
}

// Build mines phrase topics from train (settings tuned on a held-out fifth
// of it) and adds the handwritten topics of services it lacks.
func Build(train []corpus.Dialogue, log io.Writer) ([]mining.Topic, mining.Options, error) {
	topics, opt, err := mining.Build(Examples(train), log)
	if err != nil {
		return nil, opt, err
	}
	mined := func(label string) bool {
		return slices.ContainsFunc(topics, func(t mining.Topic) bool { return t.Label == label })
	}
	return append(topics, handwrittenBesides(mined)...), opt, nil
}

// handwrittenBesides are the handwritten topics of the labels have says
// the set lacks.
func handwrittenBesides(have func(label string) bool) []mining.Topic {
	var out []mining.Topic
	for _, h := range Handwritten {
		if !have(h.Label) {
			out = append(out, h)
		}
	}
	return out
}

// Classifier is a topic as a phrase-rule classifier named after its label.
func Classifier(t mining.Topic) registry.Classifier {
	return registry.Classifier{ID: t.Label, Name: t.Label, Type: analysis.TypeClassifier, Category: "Topics", Definition: t.Definition()}
}

// Set compiles classifiers into a set, as ingest does.
func Set(classifiers []registry.Classifier) (*registry.Set, error) {
	compiled := make([]*registry.Compiled, 0, len(classifiers))
	for _, c := range classifiers {
		cc, err := registry.Compiler{}.Compile("bench", c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		compiled = append(compiled, cc)
	}
	return registry.NewSet(compiled), nil
}

// PhraseClassifiers are the topics as phrase classifiers.
func PhraseClassifiers(topics []mining.Topic) []registry.Classifier {
	cs := make([]registry.Classifier, len(topics))
	for i, t := range topics {
		cs[i] = Classifier(t)
	}
	return cs
}

// PhraseSet is the topics as a set of phrase classifiers.
func PhraseSet(topics []mining.Topic) (*registry.Set, error) { return Set(PhraseClassifiers(topics)) }
