package topics

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/cputime"
	"github.com/earshot/earshot/pipeline/analysis/mining"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

func dialogue(service, text string) corpus.Dialogue {
	return corpus.Dialogue{Services: []string{service}, Turns: []corpus.Turn{{Speaker: "customer", Text: text}}}
}

// Measure scores a set with the real engines, every labelled service
// counted.
func TestMeasure(t *testing.T) {
	topics := []mining.Topic{{Label: "Flights", Phrases: []string{"flight"}}, {Label: "Hotels", Phrases: []string{"room"}}}
	test := []corpus.Dialogue{dialogue("Hotels", "a room for two"), dialogue("Hotels", "a suite"), dialogue("Flights", "my flight"),
		{Services: []string{"Flights", "Hotels"}, Turns: []corpus.Turn{{Text: "a flight and a room"}}},
		dialogue("Trains", "a train ticket")}
	set, err := PhraseSet(topics)
	if err != nil {
		t.Fatal(err)
	}
	report, err := Measure(set, test)
	if err != nil {
		t.Fatal(err)
	}
	if s := report.Scores[1]; s.Service != "Hotels" || s.TruePos != 2 || s.FalseNeg != 1 || s.FalsePos != 0 || s.Recall() != 2.0/3 || s.Precision() != 1 {
		t.Fatalf("Hotels %+v", s)
	}
	if s := report.Scores[0]; s.Service != "Flights" || s.TruePos != 2 || s.F1() != 1 {
		t.Fatalf("Flights %+v", s)
	}
	// A labelled service without a classifier counts, with recall 0.
	if s := report.Scores[2]; s.Service != "Trains" || s.Classified || s.FalseNeg != 1 || s.F1() != 0 {
		t.Fatalf("Trains %+v", s)
	}
	if _, _, f := report.Macro(); math.Abs(f-(1+0.8+0)/3) > 1e-9 {
		t.Errorf("macro F1 %v", f)
	}
	// Exactly right: "a room for two", "my flight" and "a flight and a
	// room"; "a suite" and the train are missed.
	if report.Exact != 3 || report.Dialogues != 5 {
		t.Errorf("exact %d of %d", report.Exact, report.Dialogues)
	}
	var out strings.Builder
	WriteTable(&out, "test", []string{"mined"}, []Report{report})
	for _, want := range []string{"split test: 5 dialogues, 6 labels of 3 services", "Hotels           | 1.000 / 0.667 / 0.800", "Trains           | no classifier: recall 0", "exact label set  | 0.600 (3 of 5)"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in\n%s", want, out.String())
		}
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
		set, err := PhraseSet(topics)
		if err != nil {
			b.Fatal(err)
		}
		dv, err := Measure(set, dev)
		if err != nil {
			b.Fatal(err)
		}
		WriteTable(os.Stderr, "sgd-dev", []string{"mined"}, []Report{dv})
		_, _, f1 := dv.Macro()
		b.ReportMetric(f1, "dev-macro-F1")
	}
}

// BenchmarkTrainTopics trains one classifier per service of sgd-train
// (what `earshot train` and `earshot bench classifiers` do) and reports
// the CPU seconds it takes and the models' macro F1 on sgd-dev.
func BenchmarkTrainTopics(b *testing.B) {
	train, err := corpus.Read(corpus.Train, 0)
	if err != nil {
		b.Skip(err)
	}
	dev, _ := corpus.Read(corpus.Dev, 0)
	for b.Loop() {
		began := cputime.Self()
		t, err := trained.Train(Examples(train), trained.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric((cputime.Self() - began).Seconds(), "cpu-s")
		set, err := Set(TrainedClassifiers(t.Models, false))
		if err != nil {
			b.Fatal(err)
		}
		dv, err := Measure(set, dev)
		if err != nil {
			b.Fatal(err)
		}
		_, _, f1 := dv.Macro()
		b.ReportMetric(f1, "dev-macro-F1")
	}
}

// Holding services out drops every dialogue that has one of them, and
// refuses a service with no handwritten topic to stand for it.
func TestHoldOut(t *testing.T) {
	t.Parallel()
	train := []corpus.Dialogue{dialogue("Buses", "a bus"), dialogue("Hotels", "a room"),
		{ID: "both", Services: []string{"Hotels", "RentalCars"}}, dialogue("RentalCars", "a car")}
	got, err := HoldOut(train, []string{"Buses", "RentalCars"})
	if err != nil || len(got) != 1 || got[0].Services[0] != "Hotels" {
		t.Fatalf("%+v, %v: want the Hotels dialogue alone", got, err)
	}
	if same, err := HoldOut(train, nil); err != nil || len(same) != len(train) {
		t.Fatalf("no services held out: %d dialogues, %v", len(same), err)
	}
	if _, err := HoldOut(train, []string{"Hotels"}); err == nil || !strings.Contains(err.Error(), `"Hotels"`) {
		t.Fatalf("Hotels has no handwritten topic: %v", err)
	}
	for _, h := range Handwritten {
		if len(h.Phrases) > 5 {
			t.Errorf("%s has %d phrases: a user's topic is a name and at most five", h.Label, len(h.Phrases))
		}
	}
}
