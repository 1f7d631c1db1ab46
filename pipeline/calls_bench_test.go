package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/memwatch"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/pipeline/asr/spoken"
	"github.com/earshot/earshot/pipeline/asr/wer"
	"github.com/earshot/earshot/pipeline/audio/synth"
	"github.com/earshot/earshot/warehouse/catalog"
)

const devCorpus = "../../shared/corpus/sgd-dev.jsonl.gz"

// benchDialogues reads the first n dialogues of sgd-dev, each cut to its
// first turns turns.
func benchDialogues(b *testing.B, n, turns int) [][]synth.Turn {
	f, err := os.Open(devCorpus)
	if err != nil {
		b.Skipf("corpus not found at %s: %v", devCorpus, err)
	}
	defer f.Close()
	gz, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out [][]synth.Turn
	for sc.Scan() && len(out) < n {
		var d struct {
			Turns []struct{ Speaker, Text string }
		}
		json.Unmarshal(sc.Bytes(), &d)
		var ts []synth.Turn
		for _, t := range d.Turns[:min(turns, len(d.Turns))] {
			sp := "Customer"
			if t.Speaker == "agent" {
				sp = "Agent"
			}
			ts = append(ts, synth.Turn{Speaker: sp, Text: t.Text})
		}
		out = append(out, ts)
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

type settingsOf int

func (s settingsOf) AudioSettings(_ context.Context, org string) (catalog.AudioSettings, error) {
	return catalog.AudioSettings{OrgID: org, AgentChannel: int(s)}, nil
}

// BenchmarkASR: stereo calls synthesized with flite from sgd-dev dialogues
// (ASR_BENCH_CALLS, default 20; ASR_BENCH_TURNS turns each, default 6),
// through the real call pipeline (ffmpeg, segmenter, PocketSphinx) with
// two workers. Reports the word error rate against the dialogue text
// (sclite's S+D+I over reference words, after spoken.Words), the
// real-time factor per worker (processing time over audio time), the share
// of words attributed to the right speaker and the peak RSS growth; for
// 16 kHz WAV and for 8 kHz μ-law telephone audio. Targets: WER ≤ 15%,
// RTF ≤ 0.25, attribution ≥ 95%.
func BenchmarkASR(b *testing.B) {
	dialogues := benchDialogues(b, envInt("ASR_BENCH_CALLS", 20), envInt("ASR_BENCH_TURNS", 6))
	ctx := context.Background()
	type call struct {
		ref  []wer.Word
		wav  []byte
		secs float64
	}
	var calls []call
	for _, d := range dialogues {
		c, err := synth.Stereo(ctx, d, 0)
		if err != nil {
			b.Fatal(err)
		}
		var ref []wer.Word
		for _, t := range c.Turns {
			for _, w := range spoken.Words(t.Text) {
				ref = append(ref, wer.Word{Text: w, Speaker: t.Speaker})
			}
		}
		calls = append(calls, call{ref, c.WAV, float64(len(c.WAV)-44) / 4 / 16000})
	}
	telephone := func(wav []byte) []byte {
		dir := b.TempDir()
		in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.wav")
		os.WriteFile(in, wav, 0o600)
		if msg, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", in, "-ar", "8000", "-c:a", "pcm_mulaw", out).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, msg)
		}
		data, _ := os.ReadFile(out)
		return data
	}
	for _, variant := range []string{"wav-16k", "telephone-8k-mulaw"} {
		b.Run(variant, func(b *testing.B) {
			inputs := make([][]byte, len(calls))
			for i, c := range calls {
				inputs[i] = c.wav
				if variant != "wav-16k" {
					inputs[i] = telephone(c.wav)
				}
			}
			recs := &Recognizers{Engine: sphinx.Engine{}}
			defer recs.Close()
			p := Calls{Recognizers: recs, Settings: settingsOf(0)}
			// Load one decoder per worker before timing.
			for range 2 {
				r, err := recs.Engine.New(modelOf(b, p))
				if err != nil {
					b.Fatal(err)
				}
				recs.Put(modelOf(b, p), r)
			}
			var total wer.Score
			var busy, audio float64
			stopWatch := memwatch.Start()
			for b.Loop() {
				var mu sync.Mutex
				var wg sync.WaitGroup
				sem := make(chan struct{}, 2)
				for i, c := range calls {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						key := "call.wav"
						up := catalog.Interaction{ID: catalog.NewID(), OrgID: "o", MediaType: catalog.MediaAudio, FileName: key, StagedKey: &key,
							LocaleID: 1033, ArrivedOn: time.Now(), ExtendedMetadata: map[string]string{}}
						open := func(context.Context, string) (io.ReadCloser, error) {
							return io.NopCloser(bytes.NewReader(inputs[i])), nil
						}
						start := time.Now()
						res, err := p.Process(ctx, up, "run", open)
						took := time.Since(start).Seconds()
						if err != nil {
							b.Error(err)
							return
						}
						var hyp []wer.Word
						for _, s := range res.Batch.Segments {
							for _, w := range strings.Fields(s.Text) {
								hyp = append(hyp, wer.Word{Text: strings.ToLower(w), Speaker: s.Speaker})
							}
						}
						mu.Lock()
						total = total.Add(wer.Align(c.ref, hyp))
						busy += took
						audio += c.secs
						mu.Unlock()
					}()
				}
				wg.Wait()
			}
			peak := stopWatch()
			b.ReportMetric(100*total.WER(), "WER-%")
			b.ReportMetric(busy/audio, "RTF/worker")
			b.ReportMetric(100*total.SpeakerAccuracy(), "speaker-%")
			b.ReportMetric(peak, "peakRSS-MiB")
			b.ReportMetric(audio/float64(b.N), "audio-s")
			b.Logf("%s: %d calls, %d reference words: S=%d D=%d I=%d; targets WER ≤ 15%%, RTF ≤ 0.25, speaker ≥ 95%%",
				variant, len(calls), total.Reference, total.Substitutions, total.Deletions, total.Insertions)
		})
	}
}

func modelOf(b *testing.B, p Calls) asr.Model {
	up := catalog.Interaction{OrgID: "o", LocaleID: 1033}
	settings, _ := p.Settings.AudioSettings(context.Background(), up.OrgID)
	m, err := p.model(up, settings)
	if err != nil {
		b.Fatal(err)
	}
	return m
}
