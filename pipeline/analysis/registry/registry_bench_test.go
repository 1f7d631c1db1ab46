package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/earshot/earshot/internal/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/topics"
)

// timed gives a dialogue call-like timings: 300 ms a word, 500 ms between
// turns.
func timed(d corpus.Dialogue) *analysis.Conversation {
	c := topics.Conversation(d)
	var at int64
	for i := range c.Turns {
		n := int64(len(c.Tokens(i)))
		c.Turns[i].StartMs, c.Turns[i].EndMs = at, at+300*n
		at += 300*n + 500
	}
	return c
}

// minedTopics are the topics mined from sgd-train, once.
var minedTopics = sync.OnceValue(func() []topics.Topic {
	train, err := corpus.Read(corpus.Train, 0)
	if err != nil {
		return nil
	}
	return topics.Mine(train, topics.DefaultMineOptions)
})

// benchSet is 50 phrase classifiers (the mined topics, and variants of them
// restricted to the customer in the first 30% and to the agent in the last
// 5 turns), and with core the sentiment, talk and PII models.
func benchSet(b *testing.B, withCore bool) *Set {
	mined := minedTopics()
	if mined == nil {
		b.Skip("corpus not found")
	}
	var cs []*Compiled
	add := func(typ string, def any) {
		raw, _ := json.Marshal(def)
		c, err := Compiler{}.Compile("org", Classifier{ID: fmt.Sprint(len(cs)), Type: typ, Definition: raw})
		if err != nil {
			b.Fatal(err)
		}
		cs = append(cs, c)
	}
	rule := func(phrases []string, extra map[string]any) map[string]any {
		r := map[string]any{"phrases": phrases}
		for k, v := range extra {
			r[k] = v
		}
		return map[string]any{"groups": []any{map[string]any{"rules": []any{r}}}}
	}
	for v := 0; len(cs) < 50; v++ {
		for _, t := range mined {
			if len(cs) == 50 {
				break
			}
			switch v {
			case 0:
				add(analysis.TypeClassifier, rule(t.Phrases, nil))
			case 1:
				add(analysis.TypeClassifier, rule(t.Phrases, map[string]any{"speaker": "Customer", "window": map[string]any{"firstPercent": 30}}))
			default:
				add(analysis.TypeClassifier, rule(t.Phrases, map[string]any{"speaker": "Agent", "window": map[string]any{"lastTurns": 5}}))
			}
		}
	}
	if withCore {
		add(analysis.TypeCoreModel, map[string]any{"model": "sentiment", "speaker": "Customer", "label": "Negative"})
		add(analysis.TypeCoreModel, map[string]any{"model": "talk", "measure": "silenceShare", "above": 0.3})
		add(analysis.TypeCoreModel, map[string]any{"model": "pii"})
	}
	return NewSet(cs)
}

// BenchmarkClassify: every sgd-dev conversation (2,098, given call-like
// timings) through 50 phrase classifiers, then also sentiment, talk and
// PII, on one goroutine: conversations per second per core (target ≥
// 20,000 with all 53), beside the baseline of preparing the conversations
// (building them and tokenizing their turns) alone.
func BenchmarkClassify(b *testing.B) {
	dev, err := corpus.Read(corpus.Dev, 0)
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	run := func(b *testing.B, set *Set) {
		runtime.GC()
		for b.Loop() {
			for _, d := range dev {
				conv := timed(d)
				if set != nil {
					set.Evaluate(ctx, conv)
				}
			}
		}
		b.ReportMetric(float64(b.N*len(dev))/b.Elapsed().Seconds(), "conv/s")
	}
	b.Run("baseline-prepare", func(b *testing.B) { run(b, nil) })
	b.Run("50-phrase", func(b *testing.B) { run(b, benchSet(b, false)) })
	b.Run("50-phrase+sentiment+talk+pii", func(b *testing.B) { run(b, benchSet(b, true)) })
}
