package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/corpus"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/lm"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/pipeline/callbench"
)

func benchCommand(cfg *config) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Benchmarks on this machine, printed beside their baselines"}
	cmd.AddCommand(benchASRCommand(cfg))
	return cmd
}

func benchASRCommand(cfg *config) *cobra.Command {
	var calls, turns, workers int
	var lmPath, dictPath string
	cmd := &cobra.Command{
		Use:   "asr",
		Short: "Speech recognition: WER, real-time factor, speaker attribution, memory on calls synthesized from sgd-dev",
		Long: `Synthesizes stereo calls from the first sgd-dev dialogues with flite (agent
and customer on their own channels) and runs them through the real call
pipeline (ffmpeg, segmenter, PocketSphinx, turn merging): with the en-us
model's general language model (the baseline) and with a domain model (built
from sgd-train unless --language-model is given), on 16 kHz WAV and on 8 kHz
μ-law telephone audio. The corpus is found in shared/corpus of the working
directory or a parent, or in $EARSHOT_CORPUS_DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, log := cmd.Context(), cmd.ErrOrStderr()
			dialogues, err := corpus.Read(corpus.Dev, calls)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "synthesizing %d calls of %d turns with flite…\n", len(dialogues), turns)
			synthesized, err := callbench.Synthesize(ctx, dialogues, turns)
			if err != nil {
				return err
			}
			domain := asr.Model{LanguageModel: lmPath, Dictionary: dictPath}
			if lmPath == "" {
				train, err := corpus.Find(corpus.Train)
				if err != nil {
					return err
				}
				dir, err := os.MkdirTemp("", "earshot-bench-lm-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				fmt.Fprintf(log, "building a domain language model from %s…\n", train)
				built, stats, err := lm.BuildFiles(ctx, []string{train}, "", lm.Options{MinTrigramCount: 2}, dir, "sgd-train")
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "  %d sentences, vocabulary %d, %d bigrams, %d trigrams\n", stats.Sentences, stats.Vocabulary, stats.Sizes[1], stats.Sizes[2])
				domain = asr.Model{LanguageModel: built.LanguageModel, Dictionary: built.Dictionary}
			}
			var results []callbench.Result
			for _, cfg := range callbench.Configs(sphinx.Engine{ModelDir: cfg.ASRModelDir}, domain, workers) {
				start := time.Now()
				fmt.Fprintf(log, "running %s…", cfg.Name)
				res, err := callbench.Run(ctx, synthesized, cfg)
				if err != nil {
					return fmt.Errorf("%s: %w", cfg.Name, err)
				}
				fmt.Fprintf(log, " %s\n", time.Since(start).Round(time.Second))
				results = append(results, res)
			}
			callbench.WriteTable(cmd.OutOrStdout(), results)
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 20, "calls to synthesize, from the first sgd-dev dialogues")
	cmd.Flags().IntVar(&turns, "turns", 6, "turns of each dialogue to speak")
	cmd.Flags().IntVar(&workers, "workers", 2, "calls transcribed at once, one decoder each")
	cmd.Flags().StringVar(&lmPath, "language-model", "", "domain language model to measure (default: built from sgd-train)")
	cmd.Flags().StringVar(&dictPath, "dictionary", "", "its dictionary")
	return cmd
}
