package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/pipeline/asr/adapt"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/pipeline/audio"
)

func adaptCommand() *cobra.Command {
	var out, model, dictionary string
	var passes int
	cmd := &cobra.Command{
		Use:   "adapt FILE|DIR...",
		Short: "Adapt the acoustic model to telephone audio from transcribed recordings (CMU Sphinxtrain)",
		Long: `Adapt PocketSphinx's en-us acoustic model to how your calls sound (above all
the telephone line: 8 kHz audio lacks the upper bands the model was trained
on) with one MLLR transform of its means, estimated on recordings and what was
said in them. Each recording (any format ffmpeg reads, one speaker, up to a
minute; a directory gives every recording in it) needs its transcript beside
it: call-17.wav and call-17.txt. Half an hour of recordings is plenty; words
the dictionary cannot pronounce leave their recording out. Needs the
sphinxtrain and sphinxbase-utils packages (make deps installs them).

Writes a complete acoustic model to DIR (which must not exist). Use it for
calls recorded at 8 kHz or less with
  earshot serve --asr-telephone-model DIR`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("--out is required: the directory to write the adapted model to")
			}
			if passes < 1 {
				return errors.New("--passes must be 1 or more")
			}
			recordings, err := transcribedRecordings(args)
			if err != nil {
				return err
			}
			if model == "" {
				model = sphinx.Engine{}.AcousticModel()
			}
			if dictionary == "" {
				dictionary = sphinx.Engine{}.Dictionary()
			}
			a, err := adapt.New(model, dictionary)
			if err != nil {
				return err
			}
			defer a.Close()
			w := cmd.OutOrStdout()
			ctx := cmd.Context()
			fmt.Fprintf(cmd.ErrOrStderr(), "reading %d recordings…\n", len(recordings))
			for _, r := range recordings {
				text, err := os.ReadFile(r.transcript)
				if err != nil {
					return err
				}
				pcm, err := audio.DecodeAll(ctx, r.audio, -1)
				if err != nil {
					return fmt.Errorf("%s: %w", r.audio, err)
				}
				if ok, err := a.Add(pcm, string(text)); err != nil {
					return err
				} else if !ok {
					fmt.Fprintf(cmd.ErrOrStderr(), "left out %s: no words, over a minute, or a word the dictionary cannot pronounce\n", r.audio)
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "estimating the transform (sphinxtrain, %d passes)…\n", passes)
			report, err := a.Build(ctx, out, passes)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%d recordings (%.0f s of audio) used, %d left out\n", report.Recordings, report.AudioSeconds, report.Skipped)
			for i, ll := range report.LogLikelihood {
				fmt.Fprintf(w, "pass %d: log-likelihood per frame %.2f before its transform\n", i+1, ll)
			}
			fmt.Fprintf(w, "wrote %s\nuse it with: earshot serve --asr-telephone-model %s\n", out, abs(out))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the adapted acoustic model to (must not exist)")
	cmd.Flags().StringVar(&model, "model", "", "acoustic model to adapt (default: the en-us model of the pocketsphinx-en-us package)")
	cmd.Flags().StringVar(&dictionary, "dictionary", "", "pronunciation dictionary of the transcripts' words (default: the en-us model's cmudict)")
	cmd.Flags().IntVar(&passes, "passes", 2, "transforms estimated in turn, each on the model the one before left")
	return cmd
}

// recording is an audio file and its transcript.
type recording struct{ audio, transcript string }

// transcribedRecordings lists the recordings named, or found in the
// directories named, each with the .txt beside it; a recording named
// without one is an error.
func transcribedRecordings(args []string) ([]recording, error) {
	var out []recording
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			t := strings.TrimSuffix(arg, filepath.Ext(arg)) + ".txt"
			if _, err := os.Stat(t); err != nil {
				return nil, fmt.Errorf("%s has no transcript beside it (%s)", arg, filepath.Base(t))
			}
			out = append(out, recording{arg, t})
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.EqualFold(filepath.Ext(p), ".txt") {
				return err
			}
			if t := strings.TrimSuffix(p, filepath.Ext(p)) + ".txt"; fileExists(t) {
				out = append(out, recording{p, t})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no recording with a transcript beside it (call-17.wav and call-17.txt)")
	}
	slices.SortFunc(out, func(a, b recording) int { return strings.Compare(a.audio, b.audio) })
	return slices.CompactFunc(out, func(a, b recording) bool { return a.audio == b.audio }), nil
}
