package topics

import (
	"os"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
)

func dialogue(service, text string) corpus.Dialogue {
	return corpus.Dialogue{Services: []string{service}, Turns: []corpus.Turn{{Speaker: "customer", Text: text}}}
}

// Mining picks the words that tell a service apart, and Measure scores
// them with the phrase engine.
func TestMineAndMeasure(t *testing.T) {
	var train []corpus.Dialogue
	for range 6 {
		train = append(train, dialogue("Hotels", "I need a hotel room please"), dialogue("Hotels", "book me a room at an inn"),
			dialogue("Flights", "I need a flight to Paris please"), dialogue("Flights", "a one way flight"))
	}
	topics := Mine(train, MineOptions{MaxWords: 2, MinDialogues: 3, MaxPhrases: 5, MinPrecision: 0.9, FalsePositive: 2})
	if len(topics) != 2 || topics[0].Service != "Flights" || topics[1].Service != "Hotels" {
		t.Fatalf("%+v", topics)
	}
	if got := strings.Join(topics[0].Phrases, ","); got != "flight" {
		t.Errorf("Flights phrases %s", got)
	}
	if got := strings.Join(topics[1].Phrases, ","); got != "room" {
		t.Errorf("Hotels phrases %s", got)
	}
	test := []corpus.Dialogue{dialogue("Hotels", "a room for two"), dialogue("Hotels", "a suite"), dialogue("Flights", "my flight"),
		{Services: []string{"Flights", "Hotels"}, Turns: []corpus.Turn{{Text: "a flight and a room"}}}}
	scores, err := Measure(topics, test)
	if err != nil {
		t.Fatal(err)
	}
	if s := scores[1]; s.TruePos != 2 || s.FalseNeg != 1 || s.FalsePos != 0 || s.Recall() != 2.0/3 || s.Precision() != 1 {
		t.Fatalf("Hotels %+v", s)
	}
	if s := scores[0]; s.TruePos != 2 || s.F1() != 1 {
		t.Fatalf("Flights %+v", s)
	}
	var out strings.Builder
	WriteTable(&out, []string{"test"}, [][]Score{scores})
	if !strings.Contains(out.String(), "Hotels       | 1.000 / 0.667 / 0.800") {
		t.Fatal(out.String())
	}
}

// BenchmarkTopicAccuracy tunes and mines the topic classifiers on sgd-train
// and prints precision, recall and F1 per service on sgd-train and sgd-dev
// (`earshot bench classifiers` prints the same).
func BenchmarkTopicAccuracy(b *testing.B) {
	train, err := corpus.Read(corpus.Train, 0)
	if err != nil {
		b.Skip(err)
	}
	dev, _ := corpus.Read(corpus.Dev, 0)
	for b.Loop() {
		topics, _, err := Build(train, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		tr, _ := Measure(topics, train)
		dv, _ := Measure(topics, dev)
		WriteTable(os.Stderr, []string{"sgd-train", "sgd-dev"}, [][]Score{tr, dv})
		_, _, f1 := Macro(dv)
		b.ReportMetric(f1, "dev-macro-F1")
	}
}
