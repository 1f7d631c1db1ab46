// Package callbench measures the call pipeline on calls synthesized from
// the dialogue corpus: the word error rate against the dialogue text, the
// real-time factor per worker, the share of words given to the right
// speaker and the peak memory. `earshot bench asr` and the ASR benchmark
// of `make bench` run it.
package callbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/cputime"
	"github.com/earshot/earshot/internal/lab/memwatch"
	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/internal/lab/wer"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/spoken"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Targets of the speech pipeline on 16 kHz synthesized speech; at 8 kHz
// the recommended setting (the telephone model, domain + general language
// model) is held to TargetWER and TargetTelephoneCPU.
const (
	TargetWER          = 0.15
	TargetRTF          = 0.25
	TargetSpeaker      = 0.95
	TargetTelephoneCPU = 0.3
)

// Call is a synthesized stereo call and what was said in it.
type Call struct {
	Reference []wer.Word // spoken form, with the speaker of each word
	WAV       []byte     // 16 kHz stereo, agent on channel 0
	Seconds   float64
}

// Synthesize speaks the first turns turns of each dialogue with flite,
// the agent on channel 0 and the customer on channel 1.
func Synthesize(ctx context.Context, dialogues []corpus.Dialogue, turns int) ([]Call, error) {
	var calls []Call
	for _, d := range dialogues {
		var script []synth.Turn
		for _, t := range d.Turns[:min(turns, len(d.Turns))] {
			script = append(script, synth.Turn{Speaker: t.Participant(), Text: t.Text})
		}
		c, err := synth.Stereo(ctx, script, 0)
		if err != nil {
			return nil, fmt.Errorf("dialogue %s: %w", d.ID, err)
		}
		var ref []wer.Word
		for _, t := range c.Turns {
			for _, w := range spoken.Words(t.Text) {
				ref = append(ref, wer.Word{Text: w, Speaker: t.Speaker})
			}
		}
		calls = append(calls, Call{Reference: ref, WAV: c.WAV, Seconds: float64(c.DurationMs) / 1000})
	}
	return calls, nil
}

// Config is one measured setting.
type Config struct {
	Name    string
	Engine  asr.Engine
	Model   asr.Model // the organization's language model and dictionary ("" for the engine's)
	Workers int
	// Telephone: the calls go through 8 kHz μ-law first.
	Telephone bool
	// TelephoneModel is the acoustic model the call processor decodes
	// telephone audio with ("" for the engine's).
	TelephoneModel string
}

// Result is what a run measured.
type Result struct {
	Config
	Calls        int
	Score        wer.Score
	PerCall      []wer.Score // by call
	AudioSeconds float64
	// BusySeconds is the time workers spent on calls, summed.
	BusySeconds float64
	// CPUSeconds is the CPU time the run used, decoders loaded: this
	// process's (segmenting, decoding, merging turns) and FFmpegSeconds,
	// its ffmpeg children's (decoding the audio files).
	CPUSeconds, FFmpegSeconds float64
	// Memory is the process's peak resident set during the run (decoders
	// loading included) and its growth over the start.
	Memory memwatch.Peak
}

// RTF is the real-time factor per worker: processing time over audio time.
func (r Result) RTF() float64 { return r.BusySeconds / r.AudioSeconds }

// CPUPerAudioSecond is the CPU time, ffmpeg's included, a second of audio
// costs: what a machine's cores must give a call, however many workers
// share them.
func (r Result) CPUPerAudioSecond() float64 { return (r.CPUSeconds + r.FFmpegSeconds) / r.AudioSeconds }

// settings give every organization the benchmark's language model.
type settings asr.Model

func (s settings) AudioSettings(_ context.Context, org string) (catalog.AudioSettings, error) {
	return catalog.AudioSettings{OrgID: org, AgentChannel: 0, LanguageModel: s.LanguageModel, Dictionary: s.Dictionary}, nil
}

// Run transcribes the calls through the real call processor (ffmpeg,
// segmenter, recognizer, turn merging) with cfg.Workers workers, decoders
// loaded before the clock starts.
func Run(ctx context.Context, calls []Call, cfg Config) (Result, error) {
	inputs := make([][]byte, len(calls))
	for i, c := range calls {
		inputs[i] = c.WAV
		if cfg.Telephone {
			var err error
			if inputs[i], err = synth.Telephone(ctx, c.WAV); err != nil {
				return Result{}, err
			}
		}
	}
	workers := max(cfg.Workers, 1)
	// Memory is watched from before the decoders load: they are most of it.
	stopWatch := memwatch.Start()
	recs := &pipeline.Recognizers{Engine: cfg.Engine}
	defer recs.Close()
	loaded := cfg.Model
	if cfg.Telephone {
		loaded.Dir = cfg.TelephoneModel
	}
	if err := recs.Preload(loaded, workers); err != nil {
		stopWatch()
		return Result{}, err
	}
	proc := pipeline.Calls{Recognizers: recs, Settings: settings(cfg.Model), Telephone: cfg.TelephoneModel}

	res := Result{Config: cfg, Calls: len(calls), PerCall: make([]wer.Score, len(calls))}
	cpuStart, ffmpegStart := cputime.Self(), cputime.Children()
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				hyp, err := transcribe(ctx, proc, inputs[i])
				took := time.Since(start).Seconds()
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				res.PerCall[i] = wer.Align(calls[i].Reference, hyp)
				res.Score = res.Score.Add(res.PerCall[i])
				res.BusySeconds += took
				res.AudioSeconds += calls[i].Seconds
				mu.Unlock()
			}
		}()
	}
	for i := range calls {
		next <- i
	}
	close(next)
	wg.Wait()
	res.CPUSeconds, res.FFmpegSeconds = (cputime.Self() - cpuStart).Seconds(), (cputime.Children() - ffmpegStart).Seconds()
	res.Memory = stopWatch()
	return res, firstErr
}

func transcribe(ctx context.Context, proc pipeline.Calls, wav []byte) ([]wer.Word, error) {
	segments, err := segmentsOf(ctx, proc, wav)
	if err != nil {
		return nil, err
	}
	var hyp []wer.Word
	for _, s := range segments {
		for _, w := range strings.Fields(s.Text) {
			hyp = append(hyp, wer.Word{Text: strings.ToLower(w), Speaker: s.Speaker})
		}
	}
	return hyp, nil
}

// segmentsOf runs a call through the call processor: its turns.
func segmentsOf(ctx context.Context, proc pipeline.Calls, wav []byte) ([]lake.Segment, error) {
	key := "call.wav"
	up := catalog.Interaction{ID: catalog.NewID(), OrgID: "bench", MediaType: catalog.MediaAudio, FileName: key, StagedKey: &key,
		LocaleID: 1033, ArrivedOn: time.Now(), ExtendedMetadata: map[string]string{}}
	open := func(context.Context, string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(wav)), nil }
	out, err := proc.Process(ctx, up, "bench", open, nil)
	if err != nil {
		return nil, err
	}
	return out.Batch.Segments, nil
}

// Transcriber runs calls one at a time through the real call processor,
// its decoder loaded once.
type Transcriber struct {
	recs *pipeline.Recognizers
	proc pipeline.Calls
}

// NewTranscriber loads a decoder of cfg's engine and model.
func NewTranscriber(cfg Config) (*Transcriber, error) {
	recs := &pipeline.Recognizers{Engine: cfg.Engine}
	if err := recs.Preload(cfg.Model, 1); err != nil {
		recs.Close()
		return nil, err
	}
	return &Transcriber{recs: recs, proc: pipeline.Calls{Recognizers: recs, Settings: settings(cfg.Model)}}, nil
}

// Segments are a call's recognized turns.
func (t *Transcriber) Segments(ctx context.Context, wav []byte) ([]lake.Segment, error) {
	return segmentsOf(ctx, t.proc, wav)
}

// Close frees the decoder.
func (t *Transcriber) Close() { t.recs.Close() }

// WriteTable prints results side by side, with the targets.
func WriteTable(w io.Writer, results []Result) {
	fmt.Fprintf(w, "%-38s %5s %7s %6s %5s %4s %4s %8s %13s %9s %13s\n", "setting", "calls", "audio-s", "WER-%", "S", "D", "I", "RTF/wkr",
		"CPU-s/audio-s", "speaker-%", "peak RSS MiB")
	for _, r := range results {
		fmt.Fprintf(w, "%-38s %5d %7.0f %6.1f %5d %4d %4d %8.3f %5.3f (%.3f) %9.1f %6.0f (+%.0f)\n", r.Name, r.Calls, r.AudioSeconds,
			100*r.Score.WER(), r.Score.Substitutions, r.Score.Deletions, r.Score.Insertions, r.RTF(), r.CPUPerAudioSecond(), r.FFmpegSeconds/r.AudioSeconds,
			100*r.Score.SpeakerAccuracy(), r.Memory.Resident, r.Memory.Growth)
	}
	fmt.Fprintln(w, "CPU-s/audio-s: the run's CPU time, ffmpeg's (in brackets) included, per second of audio")
	for _, r := range results {
		for _, base := range results {
			if r.Model.LanguageModel != "" && base.Model.LanguageModel == "" && base.Telephone == r.Telephone && base.TelephoneModel == r.TelephoneModel {
				n, worst := Worse(base, r, 2)
				fmt.Fprintf(w, "%s: %d of %d calls more than 2 points worse than with %s (largest rise %+.1f points)\n", r.Name, n, r.Calls, base.Name, worst)
			}
		}
	}
	fmt.Fprintf(w, "targets (16 kHz): WER ≤ %.0f%%, RTF ≤ %.2f per worker, speaker ≥ %.0f%%\n", 100*TargetWER, TargetRTF, 100*TargetSpeaker)
	fmt.Fprintf(w, "targets (8 kHz, the recommended setting: the telephone model, domain+general-lm): WER ≤ %.0f%%, CPU-s/audio-s ≤ %.1f\n", 100*TargetWER, TargetTelephoneCPU)
}

// Worse counts the calls whose WER with other is more than points
// percentage points above base's, and the largest rise (base and other
// ran the same calls).
func Worse(base, other Result, points float64) (calls int, worst float64) {
	for i := range min(len(base.PerCall), len(other.PerCall)) {
		rise := 100 * (other.PerCall[i].WER() - base.PerCall[i].WER())
		if rise > points {
			calls++
		}
		worst = max(worst, rise)
	}
	return calls, worst
}

// Configs are the settings a benchmark compares: the engine's general
// language model (the baseline), a domain one and, when given, the domain
// one mixed with the general one, each on 16 kHz audio and on 8 kHz μ-law
// telephone audio, and there also with the telephone acoustic model when
// one is given.
func Configs(engine asr.Engine, domain, mixed asr.Model, telephoneModel string, workers int) []Config {
	type kind struct {
		prefix         string
		telephone      bool
		telephoneModel string
	}
	kinds := []kind{{"wav-16k", false, ""}, {"telephone-8k-mulaw", true, ""}}
	if telephoneModel != "" {
		kinds = append(kinds, kind{"telephone-8k-adapted", true, telephoneModel})
	}
	var out []Config
	for _, k := range kinds {
		c := Config{Engine: engine, Workers: workers, Telephone: k.telephone, TelephoneModel: k.telephoneModel}
		with := func(name string, m asr.Model) Config {
			c.Name, c.Model = k.prefix+" "+name, m
			return c
		}
		out = append(out, with("general-lm", asr.Model{}), with("domain-lm", domain))
		if mixed.LanguageModel != "" {
			out = append(out, with("domain+general-lm", mixed))
		}
	}
	return out
}
