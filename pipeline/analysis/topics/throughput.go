package topics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/earshot/earshot/internal/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
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
func ThroughputSet(topics []Topic, withCore bool) (*registry.Set, error) {
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

// Throughput is conversations classified per second on one core: each
// conversation prepared (built and tokenized) and run through the set (nil:
// preparing only, the baseline), over the dialogues rounds times.
func Throughput(dialogues []corpus.Dialogue, set *registry.Set, rounds int) float64 {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	runtime.GC()
	ctx := context.Background()
	start := time.Now()
	var outcomes []registry.Outcome // reused, as the ingest job does
	for range rounds {
		for _, d := range dialogues {
			conv := Timed(d)
			if set != nil {
				outcomes = set.EvaluateInto(ctx, conv, outcomes)
			}
		}
	}
	return float64(rounds*len(dialogues)) / time.Since(start).Seconds()
}

// WriteThroughput measures and prints the three settings side by side.
func WriteThroughput(w io.Writer, topics []Topic, dialogues []corpus.Dialogue, rounds int) error {
	phrases, err := ThroughputSet(topics, false)
	if err != nil {
		return err
	}
	all, err := ThroughputSet(topics, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-40s %12s\n", "one core, sgd-dev conversations", "conv/s")
	fmt.Fprintf(w, "%-40s %12.0f\n", "baseline: prepare (build, tokenize)", Throughput(dialogues, nil, rounds))
	fmt.Fprintf(w, "%-40s %12.0f\n", "50 phrase classifiers", Throughput(dialogues, phrases, rounds))
	fmt.Fprintf(w, "%-40s %12.0f\n", "50 phrase + sentiment + talk + pii", Throughput(dialogues, all, rounds))
	fmt.Fprintln(w, "target: 50 phrase + sentiment + talk + pii ≥ 20,000 conv/s per core")
	return nil
}
