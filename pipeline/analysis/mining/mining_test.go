package mining

import (
	"io"
	"strings"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

func example(label, text string) trained.Example {
	var labels []string
	if label != "" {
		labels = []string{label}
	}
	return trained.Example{Conversation: &analysis.Conversation{Turns: []analysis.Turn{{Speaker: analysis.Customer, Text: text}}}, Labels: labels}
}

// Mining picks the words that tell a label apart; a label with nothing to
// mine gets no topic.
func TestMine(t *testing.T) {
	var examples []trained.Example
	for range 6 {
		examples = append(examples, example("Hotels", "I need a hotel room please"), example("Hotels", "book me a room at an inn"),
			example("Flights", "I need a flight to Paris please"), example("Flights", "a one way flight"), example("", "what time is it"))
	}
	examples = append(examples, example("Rare", "something only once"))
	topics := Mine(examples, Options{MaxWords: 2, MinDialogues: 3, MaxPhrases: 5, MinPrecision: 0.9, FalsePositive: 2})
	if len(topics) != 2 || topics[0].Label != "Flights" || topics[1].Label != "Hotels" {
		t.Fatalf("%+v", topics)
	}
	if got := strings.Join(topics[0].Phrases, ","); got != "flight" {
		t.Errorf("Flights phrases %s", got)
	}
	if got := strings.Join(topics[1].Phrases, ","); got != "room" {
		t.Errorf("Hotels phrases %s", got)
	}
	// Tuned on a held-out fifth, then mined on all: the same topics here.
	built, opt, err := Build(examples, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 2 || opt.MaxWords != 3 || strings.Join(built[1].Phrases, ",") != "room" {
		t.Fatalf("built %+v with %+v", built, opt)
	}
}
