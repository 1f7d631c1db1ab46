package trained

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/internal/lab/memwatch"
	"github.com/earshot/earshot/pipeline/analysis"
)

// topicWords are what the synthetic conversations of each label talk
// about; every conversation also has common words.
var topicWords = map[string][]string{
	"Hotels":  {"hotel", "room", "check in", "nights", "suite", "stay"},
	"Flights": {"flight", "airport", "departure", "seat", "airline", "one way"},
	"Banks":   {"account", "balance", "transfer", "savings", "checking", "money"},
}

var common = []string{"please", "thanks", "i", "would", "like", "to", "the", "a", "yes", "no", "sure", "what", "time", "it", "is"}

func conversation(r *rand.Rand, id string, labels []string) *analysis.Conversation {
	c := &analysis.Conversation{ID: id}
	for turn := range 6 {
		var words []string
		for range 8 {
			words = append(words, common[r.IntN(len(common))])
		}
		for _, l := range labels {
			ws := topicWords[l]
			words = append(words, ws[r.IntN(len(ws))])
		}
		r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		speaker := analysis.Customer
		if turn%2 == 1 {
			speaker = analysis.Agent
		}
		c.Turns = append(c.Turns, analysis.Turn{Speaker: speaker, Text: strings.Join(words, " ")})
	}
	return c
}

// examples are n synthetic labelled conversations: one or two labels, or
// none of these.
func examples(seed uint64, n int) []Example {
	r := rand.New(rand.NewPCG(seed, 1))
	sets := [][]string{{"Hotels"}, {"Flights"}, {"Banks"}, {"Hotels", "Flights"}, {}}
	out := make([]Example, n)
	for i := range out {
		labels := sets[i%len(sets)]
		out[i] = Example{Conversation: conversation(r, fmt.Sprint(i), labels), Labels: labels}
	}
	return out
}

func train(t *testing.T, ex []Example, opt Options) []*Model {
	t.Helper()
	trained, err := Train(ex, opt)
	if err != nil {
		t.Fatal(err)
	}
	return trained.Models
}

// Training learns each label, multi-label and "none of these" alike, and
// its cross-validated figures say so.
func TestTrainLearnsLabels(t *testing.T) {
	models := train(t, examples(1, 300), Options{Seed: 1})
	if len(models) != 3 || models[0].Label != "Banks" || models[1].Label != "Flights" || models[2].Label != "Hotels" {
		t.Fatalf("models %v", models)
	}
	for _, m := range models {
		if m.Evaluation.Folds != 5 || m.Evaluation.Examples != 300 || m.Evaluation.F1 < 0.95 {
			t.Errorf("%s: evaluation %+v", m.Label, m.Evaluation)
		}
		if m.Sure < m.Threshold || m.Sure >= 1 {
			t.Errorf("%s: sure from %v, threshold %v: sure is a level of the positives' scores, from the threshold", m.Label, m.Sure, m.Threshold)
		}
	}
	if got := models[2].Evaluation.Positives; got != 120 {
		t.Errorf("Hotels positives %d, want 120", got)
	}
	// New conversations: both labels; none.
	test := examples(2, 10)
	set := NewIndex(models)
	for _, e := range test {
		s := set.Scan(e.Conversation)
		for k, m := range models {
			got := set.Evaluate(k, e.Conversation, s)
			want := strings.Contains(strings.Join(e.Labels, ","), m.Label)
			if *got.Bool != want {
				t.Errorf("conversation %s (%v): %s gave %v (score %v)", e.Conversation.ID, e.Labels, m.Label, got.Value, *got.Score)
			}
			if *got.Bool && (len(got.Evidence) == 0 || !strings.Contains(strings.Join(topicWords[m.Label], ","), got.Evidence[0].Text)) {
				t.Errorf("%s on %s: evidence %+v is not of its words", m.Label, e.Conversation.ID, got.Evidence)
			}
		}
		set.Release(s)
	}
}

// The same examples and seed train the same models, byte for byte.
func TestTrainingIsDeterministic(t *testing.T) {
	ex := examples(3, 150)
	a := train(t, ex, Options{Seed: 7})
	b := train(t, ex, Options{Seed: 7, Workers: 1})
	for i := range a {
		if !bytes.Equal(a[i].Definition(), b[i].Definition()) {
			t.Fatalf("%s: two trainings with seed 7 differ", a[i].Label)
		}
	}
}

// A trained model's sure level set for another share is what training
// with that share gives; a model read back from its definition has no
// out-of-fold scores to set it from.
func TestWithSureShareIsTrainingWithIt(t *testing.T) {
	ex := examples(3, 150)
	models := train(t, ex, Options{Seed: 7})
	levels := map[float64][]float64{}
	for _, share := range []float64{0.5, DefaultSureShare, 1} {
		want := train(t, ex, Options{Seed: 7, SureShare: share})
		for i, m := range models {
			got, err := m.WithSureShare(share)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Definition(), want[i].Definition()) {
				t.Errorf("%s at share %v: %s, training with it: %s", m.Label, share, got.Definition(), want[i].Definition())
			}
			levels[share] = append(levels[share], got.Sure)
		}
	}
	if slices.Equal(levels[0.5], levels[1]) {
		t.Fatalf("the shares 0.5 and 1 gave the same sure levels %v: nothing was checked", levels[1])
	}
	def, _ := analysis.Decode(models[0].Definition(), "definition")
	loaded, err := Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.WithSureShare(0.5); err == nil {
		t.Error("a model read from its definition took a sure share")
	}
}

// A model read back from its definition scores as the trained one did,
// alone or in a set.
func TestSavedModelScoresAlike(t *testing.T) {
	models := train(t, examples(4, 150), Options{Seed: 1, MaxTerms: 20})
	test := examples(5, 20)
	for k, m := range models {
		if len(m.Weights) > 20 {
			t.Fatalf("%s keeps %d terms, more than MaxTerms", m.Label, len(m.Weights))
		}
		def, err := analysis.Decode(m.Definition(), "definition")
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := Compile(def)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(loaded.Definition(), m.Definition()) {
			t.Fatalf("%s: definition changed by a round trip", m.Label)
		}
		set := NewIndex(models)
		for _, e := range test {
			before, _ := m.Evaluate(context.Background(), e.Conversation)
			after, _ := loaded.Evaluate(context.Background(), e.Conversation)
			s := set.Scan(e.Conversation)
			inSet := set.Evaluate(k, e.Conversation, s)
			set.Release(s)
			if *before.Score != *after.Score || *inSet.Score != *before.Score || before.Value != after.Value {
				t.Errorf("%s on %s: %v %v before, %v %v after, %v in a set", m.Label, e.Conversation.ID, before.Value, *before.Score, after.Value, *after.Score, *inSet.Score)
			}
		}
	}
}

// Examples that cannot train are refused with what is wrong.
func TestTrainRefusesBadInput(t *testing.T) {
	ok := examples(6, 50)
	empty := append(append([]Example{}, ok...), Example{Conversation: &analysis.Conversation{ID: "x", Turns: []analysis.Turn{{Text: "  ?! "}}}, Labels: []string{"Hotels"}})
	allHotels := make([]Example, 20)
	for i := range allHotels {
		allHotels[i] = Example{Conversation: ok[i].Conversation, Labels: []string{"Hotels"}}
	}
	rare := append(append([]Example{}, ok...), Example{Conversation: ok[0].Conversation, Labels: []string{"Trains"}})
	unlabelled := []Example{{Conversation: ok[0].Conversation}, {Conversation: ok[1].Conversation}}
	blank := append(append([]Example{}, ok...), Example{Conversation: ok[0].Conversation, Labels: []string{" "}})
	for _, tc := range []struct {
		name string
		ex   []Example
		opt  Options
		want string
	}{
		{"none", nil, Options{}, "no labelled conversations to train from"},
		{"empty text", empty, Options{}, "conversation 51 (x) has no words to learn from"},
		{"one class", allHotels, Options{}, `every conversation has label "Hotels": training needs conversations without it too (one class only)`},
		{"too few", rare, Options{}, `label "Trains" has 1 conversations: training needs at least 5 (one for each cross-validation fold)`},
		{"no labels", unlabelled, Options{}, "no conversation has a label"},
		{"blank label", blank, Options{}, "conversation 51 (0) has a blank label"},
		{"folds", ok, Options{Folds: 1}, "folds must be from 2 to 20, not 1"},
		{"sure share", ok, Options{SureShare: 1.5}, "the sure share must be above 0 and at most 1, not 1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Train(tc.ex, tc.opt)
			if input, ok := invalid.As(err); !ok || input.Path != "examples" || !strings.Contains(input.Message, tc.want) {
				t.Fatalf("error %v, want an InputError saying %q", err, tc.want)
			}
		})
	}
}

// A hand-edited definition is checked like any other.
func TestCompileRefusesBadDefinitions(t *testing.T) {
	for _, tc := range []struct{ def, want string }{
		{`{"model":"trained","bias":0,"threshold":0.5,"weights":{}}`, "definition.label: is required"},
		{`{"model":"trained","label":"A","weights":{}}`, "bias and threshold are required"},
		{`{"model":"trained","label":"A","bias":0,"threshold":2,"weights":{}}`, "definition.threshold: must be a number from 0 to 1"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5}`, "definition.weights: is required"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5,"weights":{"Check-In":1}}`, "definition.weights.Check-In: must be one or two words"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5,"weights":{"a":"x"}}`, "definition.weights.a: must be a number"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5,"weights":{},"evaluation":{"f1":3}}`, "definition.evaluation.f1: must be a number from 0 to 1"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5,"weights":{},"extra":1}`, "definition.extra: unknown field"},
		{`{"model":"trained","label":"A","bias":0,"threshold":0.5,"sure":-0.1,"weights":{}}`, "definition.sure: must be a number from 0 to 1"},
	} {
		def, err := analysis.Decode([]byte(tc.def), "definition")
		if err == nil {
			_, err = Compile(def)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.def, err, tc.want)
		}
	}
}

func TestReadLabelled(t *testing.T) {
	file := `{"dialogue_id": "1_0", "services": ["Hotels"], "intents": ["X"], "turns": [{"speaker": "customer", "text": "a room"}, {"speaker": "agent", "text": "sure"}]}

{"text": "a flight and a room", "labels": ["Flights", "Hotels"], "group": "spring campaign"}
{"conversationId": "c-1", "labels": []}
`
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(file))
	w.Close()
	for name, input := range map[string][]byte{"plain": []byte(file), "gzipped": gz.Bytes()} {
		got, err := ReadLabelled(bytes.NewReader(input), MaxUploadedLabelled)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 3 || got[0].ID != "1_0" || got[0].Turns[0].Speaker != analysis.Customer || got[0].Turns[1].Speaker != analysis.Agent ||
			got[1].Line != 3 || len(got[1].Labels) != 2 || got[1].Turns[0].Text != "a flight and a room" ||
			got[2].ConversationID != "c-1" || got[2].Labels == nil || len(got[2].Labels) != 0 {
			t.Fatalf("%s: %+v", name, got)
		}
		if e := got[1].Example(); e.Conversation.ID != "line 3" || e.Group != "spring campaign" || got[0].Group != "" {
			t.Errorf("example id %q, group %q", e.Conversation.ID, e.Group)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{``, "the labelled file has no conversations"},
		{`{"labels": ["A"]}`, "line 1: give one of turns, text or conversationId"},
		{`{"text": "x", "conversationId": "c", "labels": []}`, "line 1: give one of turns, text or conversationId"},
		{"{\"text\": \"x\", \"labels\": []}\n{\"text\": \"y\"}", "line 2: give labels (or services)"},
		{`{"text": "x", "labels": ["A"], "services": ["A"]}`, "line 1: give labels (or services)"},
		{`{"text": "x", "labels": [""]}`, "line 1: labels[0]: must be a non-blank string"},
		{`{"text": "x", "labels": "A"}`, "line 1: labels: must be a list of strings"},
		{`{"turns": [{"speaker": "bot", "text": "x"}], "labels": []}`, "line 1: turns[0].speaker: must be one of Agent, Customer, Any"},
		{`{"text": "x", "labels": [], "lables": []}`, "line 1: lables: unknown field"},
		{`[1]`, "line 1: must be an object"},
		{`{"conversationId": " ", "labels": []}`, "line 1: conversationId: must be a non-blank string"},
		{`{"text": "x", "labels": [], "group": 3}`, "line 1: group: must be a string"},
		{"\x1f\x8b\x08", "looks gzipped but is not"},
	} {
		_, err := ReadLabelled(strings.NewReader(tc.file), MaxUploadedLabelled)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.file, err, tc.want)
		}
	}
}

func FuzzReadLabelled(f *testing.F) {
	f.Add([]byte(`{"text": "a room", "labels": ["Hotels"]}`))
	f.Add([]byte(`{"turns": [{"speaker": "agent", "text": "hi"}], "services": []}` + "\n" + `{"conversationId": "c", "labels": ["A"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := ReadLabelled(bytes.NewReader(data), MaxUploadedLabelled)
		if err != nil {
			return
		}
		for _, l := range lines {
			if (l.ConversationID == "") == (l.Turns == nil) || l.Labels == nil {
				t.Fatalf("line %d: %+v", l.Line, l)
			}
			if l.ConversationID == "" {
				l.Example().Conversation.Normalized()
			}
			// What MarshalJSON writes reads back the same.
			raw, err := l.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParseLabelled(raw)
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			again.Line = l.Line
			if !reflect.DeepEqual(again, l) {
				t.Fatalf("round trip: %+v became %+v", l, again)
			}
		}
	})
}

// An example limited to some labels (a review of one classifier) trains
// those labels only.
func TestPartialExamples(t *testing.T) {
	ex := examples(8, 100)
	r := rand.New(rand.NewPCG(9, 1))
	for i := range 30 {
		ex = append(ex, Example{Conversation: conversation(r, fmt.Sprint("r", i), []string{"Banks"}), Labels: nil, Only: []string{"Hotels"}})
	}
	models := train(t, ex, Options{Seed: 1})
	for _, m := range models {
		want := 100
		if m.Label == "Hotels" {
			want = 130
		}
		if m.Evaluation.Examples != want {
			t.Errorf("%s trained on %d examples, want %d", m.Label, m.Evaluation.Examples, want)
		}
	}
	// Reviews that never say "no" to a label leave it one class only.
	only := []Example{}
	for i := range 10 {
		only = append(only, Example{Conversation: ex[i].Conversation, Labels: []string{"Hotels"}, Only: []string{"Hotels"}})
	}
	if err := Check(only, Options{}); err == nil || !strings.Contains(err.Error(), `every conversation has label "Hotels"`) {
		t.Fatalf("one class through reviews: %v", err)
	}
}

// A labelled file that expands past its limit is refused naming the
// limit, whether gzipped (a small file that expands without end) or not,
// and one exactly at the limit is read.
func TestReadLabelledLimit(t *testing.T) {
	t.Parallel()
	line := []byte(`{"text":"I would like to book a table for two.","labels":["Restaurants"]}` + "\n")
	body := bytes.Repeat(line, (2<<20)/len(line)+1) // just over 2 MiB
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	for name, input := range map[string][]byte{"gzipped": gz.Bytes(), "plain": body} {
		if _, err := ReadLabelled(bytes.NewReader(input), 1<<20); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
			t.Errorf("%s, %d bytes expanded: %v, want it refused over 1 MiB", name, len(body), err)
		}
	}
	exact := body[:len(line)*100]
	if got, err := ReadLabelled(bytes.NewReader(exact), int64(len(exact))); err != nil || len(got) != 100 {
		t.Errorf("a file of exactly the limit: %d lines, %v", len(got), err)
	}
	t.Logf("a %d-byte gzip expanding to %d bytes refused at 1 MiB", gz.Len(), len(body))
	many := bytes.Repeat([]byte(`{"text":"hi","labels":[]}`+"\n"), MaxLabelledLines+1)
	if _, err := ReadLabelled(bytes.NewReader(many), MaxUploadedLabelled); err == nil || !strings.Contains(err.Error(), "more than 100000 conversations") {
		t.Errorf("%d conversations: %v", MaxLabelledLines+1, err)
	}
}

// A gzip bomb through the console's limits: refused, with the memory
// reading it took logged (docs/perf). Not parallel: the resident set is
// the process's.
func TestLabelledGzipBomb(t *testing.T) {
	line := []byte(`{"text":"I would like to book a table for two.","labels":["Restaurants"]}` + "\n")
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	chunk := bytes.Repeat(line, 1<<14)
	const expanded = 128 << 20
	for written := 0; written < expanded; written += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	runtime.GC()
	stop := memwatch.Start()
	_, err := ReadLabelled(bytes.NewReader(gz.Bytes()), MaxUploadedLabelled)
	peak := stop()
	if err == nil {
		t.Fatal("a gzip bomb was read")
	}
	t.Logf("a %d KiB gzip expanding to %d MiB: %v; peak resident memory %.0f MiB over the %.0f MiB before",
		gz.Len()>>10, expanded>>20, err, peak.Growth, peak.Resident-peak.Growth)
}

// The sure level is the out-of-fold score that the share of the positives
// reach, whatever the negatives score.
func TestSureLevel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scores []float64
		y      []bool
		want   float64
		share  float64
	}{
		{"no positives", []float64{0.2, 0.9}, []bool{false, false}, 0, 0.9},
		{"one positive", []float64{0.7, 0.9}, []bool{true, false}, 0.7, 0.9},
		{"nine positives: all reach it", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99}, []bool{true, true, true, true, true, true, true, true, true, false}, 0.1, 0.9},
		{"ten positives: nine reach it", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}, []bool{true, true, true, true, true, true, true, true, true, true, false}, 0.2, 0.9},
		{"half of ten positives reach it", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}, []bool{true, true, true, true, true, true, true, true, true, true, false}, 0.6, 0.5},
		{"twenty positives: eighteen reach it", []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.9, 0.91, 0.95},
			[]bool{true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false}, 0.2, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sureLevel(positiveScores(tc.scores, tc.y), tc.share); got != tc.want {
				t.Errorf("sure level %v, want %v", got, tc.want)
			}
		})
	}
}

// Examples of a group share a fold, the folds as even as the groups allow;
// without groups, folds go round the seed's order.
func TestAssignFolds(t *testing.T) {
	ex := make([]Example, 40)
	for i := range ex {
		ex[i].Group = fmt.Sprint("g", i%8) // eight groups of five
	}
	ex[39].Group = "" // a group alone
	folds := assignGroupFolds(ex, Options{Folds: 4, Seed: 3})
	foldOf, sizes := map[string]int{}, make([]int, 4)
	for i, e := range ex {
		if f, ok := foldOf[e.Group]; ok && e.Group != "" && f != folds[i] {
			t.Fatalf("group %s in folds %d and %d", e.Group, f, folds[i])
		}
		foldOf[e.Group] = folds[i]
		sizes[folds[i]]++
	}
	if slices.Max(sizes)-slices.Min(sizes) > 5 {
		t.Errorf("fold sizes %v: groups of five into four folds", sizes)
	}
	random := assignFolds(10, Options{Folds: 5, Seed: 3})
	for f := range 5 {
		if n := strings.Count(fmt.Sprint(random), fmt.Sprint(f)); n != 2 {
			t.Errorf("random folds %v: fold %d has %d", random, f, n)
		}
	}
}

// The set evaluation counts, out of fold, the examples given exactly their
// labels and the labelled ones given none; examples of partial labels
// (reviews) are left out.
func TestTogether(t *testing.T) {
	ex := []Example{
		{Labels: []string{"A"}},      // given A: exact
		{Labels: []string{"A", "B"}}, // given A only
		{Labels: []string{"B"}},      // given nothing: outside
		{Labels: []string{}},         // none, given none: exact
		{Labels: []string{"A"}, Only: []string{"A"}},
	}
	given := [][]bool{{true, true, false, false, true}, {false, false, false, false, false}}
	e := together(ex, []string{"A", "B"}, given, 5, false)
	if e.Examples != 4 || e.ExactLabelSet != 0.5 || e.OutsideEveryLabel != round(1.0/3) || e.Folds != 5 {
		t.Fatalf("%+v", e)
	}
}

// Groups change how the set is evaluated, never the models: penalties and
// thresholds are chosen on random folds either way.
func TestGroupsEvaluateOnly(t *testing.T) {
	ex := examples(6, 150)
	plain, err := Train(ex, Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ex {
		ex[i].Group = fmt.Sprint("g", i%10)
	}
	grouped, err := Train(ex, Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for k, m := range plain.Models {
		if !bytes.Equal(m.Definition(), grouped.Models[k].Definition()) {
			t.Fatalf("%s: groups changed the model", m.Label)
		}
	}
	if plain.Together.Grouped || !grouped.Together.Grouped || grouped.Together.Examples != 150 {
		t.Errorf("set evaluations %+v, %+v", plain.Together, grouped.Together)
	}
}
