package jobs

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/cputime"
	"github.com/earshot/earshot/internal/lab/handoffs"
	"github.com/earshot/earshot/internal/lab/memwatch"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/catalog"
)

// corpusChats reads the training corpus as Earshot JSON chats.
func corpusChats(b *testing.B) map[string][]byte {
	dialogues, err := corpus.Read(corpus.Train, 0)
	if err != nil {
		b.Skip(err)
	}
	out := map[string][]byte{}
	for _, d := range dialogues {
		var msgs []map[string]string
		for _, t := range d.Turns {
			msgs = append(msgs, map[string]string{"participant": t.Participant(), "text": t.Text})
		}
		out["sgd/"+d.ID+".json"], _ = json.Marshal(map[string]any{"messages": msgs})
	}
	return out
}

// BenchmarkIngestCorpus: the full sgd-train corpus (12,174 dialogues) packed
// as one archive, from staged to committed (lake files written, catalog
// rows inserted), reporting conversations per second, the peak RSS
// growth during the run, and the goroutines started and the threads'
// waits a conversation (internal/lab/handoffs), for a tar and a zip
// archive.
func BenchmarkIngestCorpus(b *testing.B) {
	chats := corpusChats(b)
	archives := map[string][]byte{}
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range chats {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write(body)
		f, _ := zw.Create(name)
		f.Write(body)
	}
	tw.Close()
	zw.Close()
	archives["tar"], archives["zip"] = tb.Bytes(), zb.Bytes()
	for _, kind := range []string{"tar", "zip"} {
		b.Run(kind, func(b *testing.B) {
			var convs int64
			var elapsed time.Duration
			var peak float64
			var cpu time.Duration
			var handed handoffs.Counts
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := newEnv(b)
				e.stage(b, fmt.Sprintf("corpus-%d.%s", i, kind), archives[kind])
				stopWatch := memwatch.Start()
				b.StartTimer()
				start, cpuStart, handStart := time.Now(), cputime.Self(), handoffs.Now()
				run, err := e.runner.Run(context.Background(), "ingest")
				elapsed += time.Since(start)
				cpu += cputime.Self() - cpuStart
				n := handoffs.Now().Since(handStart)
				handed.Goroutines += n.Goroutines
				handed.Waits += n.Waits
				b.StopTimer()
				top := stopWatch().Growth
				if err != nil || run.Counts["conversations"] != int64(len(chats)) {
					b.Fatalf("run %+v %v", run, err)
				}
				convs += run.Counts["conversations"]
				peak = max(peak, top)
				e.cat.Close()
			}
			b.ReportMetric(float64(convs)/elapsed.Seconds(), "conv/s")
			b.ReportMetric(peak, "peakRSS-MiB")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(handed.Goroutines)/float64(convs), "goroutines/conv")
			b.ReportMetric(float64(handed.Waits)/float64(convs), "waits/conv")
		})
		// Baseline: reading and parsing the same archive alone, without the
		// lake files and the catalog commit: the floor the job stands on.
		b.Run("baseline-read-and-parse-"+kind, func(b *testing.B) {
			key := "corpus." + kind
			up := catalog.Interaction{ID: catalog.NewID(), OrgID: "o", MediaType: catalog.MediaChat, FileName: key,
				StagedKey: &key, ArrivedOn: time.Now().UTC(), ExtendedMetadata: map[string]string{}}
			open := func(context.Context, string) (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(archives[kind])), nil
			}
			var convs int64
			start := time.Now()
			for b.Loop() {
				res, err := pipeline.Chats{Limits: archive.DefaultLimits}.Process(context.Background(), up, "run", open, nil)
				if err != nil {
					b.Fatal(err)
				}
				convs += int64(len(res.Batch.Conversations))
			}
			b.ReportMetric(float64(convs)/time.Since(start).Seconds(), "conv/s")
		})
	}
}
