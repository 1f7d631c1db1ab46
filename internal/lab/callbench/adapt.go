package callbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline/asr/adapt"
	"github.com/earshot/earshot/pipeline/audio"
)

// AdaptationVoices speak the sentences a telephone model is adapted on:
// flite voices apart from the measured calls' own (synth.AgentVoice and
// synth.CustomerVoice), so that the benchmark measures the channel
// learned, not the speakers.
var AdaptationVoices = []string{"awb", "kal16"}

// AdaptTelephone builds a telephone acoustic model in out from one turn
// of each dialogue (agents' and customers' in turn, among the first six a
// call speaks), spoken by AdaptationVoices in turn and sent down a
// telephone line (synth.Telephone).
func AdaptTelephone(ctx context.Context, dialogues []corpus.Dialogue, model, dictionary, out string, passes int) (adapt.Report, error) {
	var texts []string
	for i, d := range dialogues {
		if len(d.Turns) > 0 {
			texts = append(texts, d.Turns[i%min(6, len(d.Turns))].Text)
		}
	}
	pcm := make([][]int16, len(texts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, text := range texts {
		g.Go(func() error {
			var err error
			pcm[i], err = overTheLine(gctx, AdaptationVoices[i%len(AdaptationVoices)], text)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return adapt.Report{}, err
	}
	a, err := adapt.New(model, dictionary)
	if err != nil {
		return adapt.Report{}, err
	}
	defer a.Close()
	for i, text := range texts {
		if _, err := a.Add(pcm[i], text); err != nil {
			return adapt.Report{}, err
		}
	}
	return a.Build(ctx, out, passes)
}

// overTheLine speaks text and returns it as the call pipeline hears it
// after a telephone line: 8 kHz μ-law decoded to 16 kHz.
func overTheLine(ctx context.Context, voice, text string) ([]int16, error) {
	dir, err := os.MkdirTemp("", "earshot-adapt-line-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spoken, err := synth.Speak(ctx, filepath.Join(dir, "s.wav"), voice, text)
	if err != nil {
		return nil, err
	}
	line, err := synth.Telephone(ctx, synth.WAV(spoken))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "line.wav")
	if err := os.WriteFile(path, line, 0o600); err != nil {
		return nil, err
	}
	pcm, err := audio.DecodeAll(ctx, path, -1)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", text, err)
	}
	return pcm, nil
}
