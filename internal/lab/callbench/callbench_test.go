package callbench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/lm"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
)

// One short call through Run: the transcript is close to the dialogue,
// words land on their speakers, the CPU of decoding and of ffmpeg counts,
// and the table prints the figures.
func TestRun(t *testing.T) {
	dialogues, err := corpus.Read(corpus.Dev, 1)
	if err != nil {
		t.Skip(err)
	}
	calls, err := Synthesize(context.Background(), dialogues, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), calls, Config{Name: "one call", Engine: sphinx.Engine{}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.AudioSeconds < 2 || res.Score.Reference != len(calls[0].Reference) || res.Score.WER() > 0.5 ||
		res.Score.SpeakerAccuracy() < 0.9 || res.RTF() <= 0 || res.CPUSeconds <= 0 || res.FFmpegSeconds <= 0 ||
		res.CPUPerAudioSecond() <= res.FFmpegSeconds/res.AudioSeconds {
		t.Fatalf("%+v (WER %.2f, speaker %.2f)", res, res.Score.WER(), res.Score.SpeakerAccuracy())
	}
	var table strings.Builder
	WriteTable(&table, []Result{res})
	if !strings.Contains(table.String(), "one call") || !strings.Contains(table.String(), "targets") {
		t.Fatal(table.String())
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkASR: ASR_BENCH_CALLS (20) stereo calls synthesized from sgd-dev
// dialogues, ASR_BENCH_TURNS (6) turns each, with the en-us model's
// general language model and with a domain one trained on sgd-train, on
// 16 kHz WAV and on 8 kHz μ-law, two workers. `earshot bench asr` prints
// the same as a table.
func BenchmarkASR(b *testing.B) {
	ctx := context.Background()
	all, err := corpus.Read(corpus.Dev, 0)
	if err != nil {
		b.Skip(err)
	}
	dialogues := corpus.AcrossServices(all, envInt("ASR_BENCH_CALLS", 20), 1)
	calls, err := Synthesize(ctx, dialogues, envInt("ASR_BENCH_TURNS", 6))
	if err != nil {
		b.Fatal(err)
	}
	train, err := corpus.Find(corpus.Train)
	if err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	mixed, _, err := lm.BuildFiles(ctx, []string{train}, "", lm.Options{MinTrigramCount: 2, GeneralWeight: 0.5}, dir, "sgd-train")
	if err != nil {
		b.Fatal(err)
	}
	domain := asr.Model{LanguageModel: filepath.Join(dir, "sgd-train.lm.bin"), Dictionary: mixed.Dictionary}
	var results []Result
	for _, cfg := range Configs(sphinx.Engine{}, domain, asr.Model{LanguageModel: mixed.LanguageModel, Dictionary: mixed.Dictionary}, "", 2) {
		b.Run(cfg.Name, func(b *testing.B) {
			var res Result
			for b.Loop() {
				if res, err = Run(ctx, calls, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*res.Score.WER(), "WER-%")
			b.ReportMetric(res.RTF(), "RTF/worker")
			b.ReportMetric(100*res.Score.SpeakerAccuracy(), "speaker-%")
			b.ReportMetric(res.Memory.Resident, "peakRSS-MiB")
			results = append(results, res)
		})
	}
	var table strings.Builder
	WriteTable(&table, results)
	b.Log("\n" + table.String())
}
