package registry_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/topics"
	"github.com/earshot/earshot/pipeline/analysis/mining"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// minedTopics are the topics mined from sgd-train, once.
var minedTopics = sync.OnceValue(func() []mining.Topic {
	train, err := corpus.Read(corpus.Train, 0)
	if err != nil {
		return nil
	}
	return mining.Mine(topics.Examples(train), mining.DefaultOptions)
})

// BenchmarkClassify: every sgd-dev conversation (2,098, given call-like
// timings) through 50 phrase classifiers, then also sentiment, talk and
// PII, on one goroutine: conversations per second per core (target ≥
// 20,000 with all 53), beside the baseline of preparing the conversations
// (building them and tokenizing their turns) alone. Run it with
// GOMAXPROCS=1 (`earshot bench classifiers` does).
func BenchmarkClassify(b *testing.B) {
	dev, err := corpus.Read(corpus.Dev, 0)
	if err != nil || minedTopics() == nil {
		b.Skip("corpus not found")
	}
	ctx := context.Background()
	run := func(b *testing.B, set *registry.Set) {
		runtime.GC()
		var outcomes []registry.Outcome // reused, as the ingest job does
		for b.Loop() {
			for _, d := range dev {
				conv := topics.Timed(d)
				if set != nil {
					outcomes = set.EvaluateInto(ctx, conv, outcomes)
				}
			}
		}
		b.ReportMetric(float64(b.N*len(dev))/b.Elapsed().Seconds(), "conv/s")
	}
	phrases, _ := topics.ThroughputSet(minedTopics(), false)
	all, _ := topics.ThroughputSet(minedTopics(), true)
	b.Run("baseline-prepare", func(b *testing.B) { run(b, nil) })
	b.Run("50-phrase", func(b *testing.B) { run(b, phrases) })
	b.Run("50-phrase+sentiment+talk+pii", func(b *testing.B) { run(b, all) })
	// Each core model alone beside the baseline: where the time goes.
	for i, name := range []string{"sentiment", "talk", "pii"} {
		one := registry.NewSet(all.Classifiers[len(all.Classifiers)-3+i:][:1])
		b.Run("baseline+"+name, func(b *testing.B) { run(b, one) })
	}
}
