package topics

import (
	"encoding/json"
	"slices"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// Examples are dialogues as training examples, their services the labels.
func Examples(dialogues []corpus.Dialogue) []trained.Example {
	out := make([]trained.Example, len(dialogues))
	for i, d := range dialogues {
		out[i] = trained.Example{Conversation: Conversation(d), Labels: d.Services}
	}
	return out
}

// TrainedClassifiers are the models as classifiers named after their
// labels, with the handwritten topics of services no model was trained
// for; with take, those topics take their conversations from the models
// (takesFromTrained), as a user adding a topic beside trained ones would
// set them.
func TrainedClassifiers(models []*trained.Model, take bool) []registry.Classifier {
	var cs []registry.Classifier
	for _, m := range models {
		cs = append(cs, registry.Classifier{ID: m.Label, Name: m.Label, Type: analysis.TypeCoreModel, Category: "Topics", Definition: m.Definition()})
	}
	trainedFor := func(label string) bool {
		return slices.ContainsFunc(models, func(m *trained.Model) bool { return m.Label == label })
	}
	for _, t := range handwrittenBesides(trainedFor) {
		c := Classifier(t)
		if take {
			c.Definition = takingFromTrained(c.Definition)
		}
		cs = append(cs, c)
	}
	return cs
}

// takingFromTrained is a phrase rule's definition with takesFromTrained.
func takingFromTrained(def json.RawMessage) json.RawMessage {
	var fields map[string]any
	if err := json.Unmarshal(def, &fields); err != nil {
		panic(err) // a definition this package wrote
	}
	fields["takesFromTrained"] = true
	out, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return out
}

// GroupByIntent gives each example (of the dialogue at the same place)
// its dialogue's first intent as its group: cross-validation then keeps an
// intent's dialogues in one fold, as wording the models did not see.
func GroupByIntent(examples []trained.Example, dialogues []corpus.Dialogue) {
	for i, d := range dialogues {
		if len(d.Intents) > 0 {
			examples[i].Group = d.Intents[0]
		}
	}
}
