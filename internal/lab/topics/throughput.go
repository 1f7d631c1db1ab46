package topics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/cputime"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/mining"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
)

// Timed is a dialogue as a timed conversation, as a call would be: 300 ms a
// word, 500 ms between turns (talk statistics need times).
func Timed(d corpus.Dialogue) *analysis.Conversation {
	c := Conversation(d)
	var at int64
	for i := range c.Turns {
		n := int64(c.Normalized().Count(i))
		c.Turns[i].StartMs, c.Turns[i].EndMs = at, at+300*n
		at += 300*n + 500
	}
	return c
}

// ThroughputSet is the throughput benchmark's classifiers: 50 phrase
// classifiers (the topics, and variants restricted to the customer in the
// first 30% and to the agent in the last 5 turns), and with core the
// sentiment, talk and PII models.
func ThroughputSet(topics []mining.Topic, withCore bool) (*registry.Set, error) {
	var cs []*registry.Compiled
	add := func(typ string, def any) error {
		raw, _ := json.Marshal(def)
		c, err := registry.Compiler{}.Compile("bench", registry.Classifier{ID: fmt.Sprint(len(cs)), Type: typ, Definition: raw})
		if err != nil {
			return err
		}
		cs = append(cs, c)
		return nil
	}
	rule := func(phrases []string, extra map[string]any) map[string]any {
		r := map[string]any{"phrases": phrases}
		for k, v := range extra {
			r[k] = v
		}
		return map[string]any{"groups": []any{map[string]any{"rules": []any{r}}}}
	}
	variants := []map[string]any{nil,
		{"speaker": "Customer", "window": map[string]any{"firstPercent": 30}},
		{"speaker": "Agent", "window": map[string]any{"lastTurns": 5}}}
	for v := 0; len(cs) < 50 && len(topics) > 0; v++ {
		for _, t := range topics {
			if len(cs) == 50 {
				break
			}
			if err := add(analysis.TypeClassifier, rule(t.Phrases, variants[v%len(variants)])); err != nil {
				return nil, err
			}
		}
	}
	if withCore {
		for _, def := range []map[string]any{
			{"model": "sentiment", "speaker": "Customer", "label": "Negative"},
			{"model": "talk", "measure": "silenceShare", "above": 0.3},
			{"model": "pii"},
		} {
			if err := add(analysis.TypeCoreModel, def); err != nil {
				return nil, err
			}
		}
	}
	return registry.NewSet(cs), nil
}

// Rate is a throughput measured over several rounds, in conversations per
// second of this process's CPU time (what "per core" means, and what a
// virtual machine's stolen time does not distort: on this one wall-clock
// rates swing by a third with the neighbours' load), the median round as
// the figure, the range beside it, and the median by the wall clock.
type Rate struct{ Median, Min, Max, Wall float64 }

// Throughput is conversations classified per second on one core: each
// conversation prepared (built and tokenized) and run through the set (nil:
// preparing only, the baseline), over the dialogues once a round.
func Throughput(dialogues []corpus.Dialogue, set *registry.Set, rounds int) Rate {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	runtime.GC()
	ctx := context.Background()
	var outcomes []registry.Outcome // reused, as the ingest job does
	cpu := make([]float64, max(rounds, 1))
	wall := make([]float64, len(cpu))
	for r := range cpu {
		start, startCPU := time.Now(), cputime.Self()
		for _, d := range dialogues {
			conv := Timed(d)
			if set != nil {
				outcomes = set.EvaluateInto(ctx, conv, outcomes)
			}
		}
		wall[r] = float64(len(dialogues)) / time.Since(start).Seconds()
		cpu[r] = float64(len(dialogues)) / max(cputime.Self()-startCPU, time.Microsecond).Seconds()
	}
	slices.Sort(cpu)
	slices.Sort(wall)
	return Rate{Median: cpu[len(cpu)/2], Min: cpu[0], Max: cpu[len(cpu)-1], Wall: wall[len(wall)/2]}
}

// Named is a set of classifiers with its name in a table.
type Named struct {
	Name        string
	Classifiers []registry.Classifier
}

// StarterClassifiers are the starter set shipped with Earshot.
func StarterClassifiers() ([]registry.Classifier, error) {
	specs, err := starter.Parse(starter.JSON)
	if err != nil {
		return nil, err
	}
	cs := make([]registry.Classifier, len(specs))
	for i, s := range specs {
		cs[i] = registry.Classifier{ID: s.Name, Name: s.Name, Type: s.ClassifierType, Category: s.CategoryName, Definition: s.Definition}
	}
	return cs, nil
}

// WriteThroughput measures and prints, side by side: preparing alone, the
// 50 phrase classifiers with sentiment, talk and PII of the earlier
// target, the starter set, and the starter set with each topic set.
func WriteThroughput(w io.Writer, split string, dialogues []corpus.Dialogue, mined []mining.Topic, topicSets []Named, rounds int) error {
	fifty, err := ThroughputSet(mined, true)
	if err != nil {
		return err
	}
	starters, err := StarterClassifiers()
	if err != nil {
		return err
	}
	rows := []struct {
		name string
		set  *registry.Set
	}{{"baseline: prepare (build, tokenize)", nil}, {"50 phrase + sentiment + talk + pii", fifty}}
	for _, named := range append([]Named{{Name: "starter set", Classifiers: nil}}, topicSets...) {
		name := "starter set"
		if named.Classifiers != nil {
			name = fmt.Sprintf("starter + %d %s", len(named.Classifiers), named.Name)
		}
		set, err := Set(append(slices.Clip(starters), named.Classifiers...))
		if err != nil {
			return err
		}
		rows = append(rows, struct {
			name string
			set  *registry.Set
		}{name, set})
	}
	fmt.Fprintf(w, "%-40s %14s  %-13s  %s\n", split+" conversations, one core", "conv/CPU-s", "range", "conv/s wall")
	for _, row := range rows {
		r := Throughput(dialogues, row.set, rounds)
		fmt.Fprintf(w, "%-40s %14.0f  %-13s  %.0f\n", row.name, r.Median, fmt.Sprintf("%.0f–%.0f", r.Min, r.Max), r.Wall)
	}
	fmt.Fprintf(w, "medians of %d rounds; target: 50 phrase + sentiment + talk + pii ≥ 20,000 conv/s per core\n", rounds)
	return nil
}
