package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/lab/callbench"
	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/piibench"
	"github.com/earshot/earshot/internal/lab/topics"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/lm"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
)

func benchCommand(cfg *cli.Config) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: cli.BenchShort}
	cmd.AddCommand(benchASRCommand(cfg), benchAuthCommand(cfg), benchClassifiersCommand(), benchGenCommand(cfg), benchIngestCommand(cfg), benchPeersCommand(cfg), benchPIICommand(cfg), benchQueryCommand(cfg))
	return cmd
}

func benchASRCommand(cfg *cli.Config) *cobra.Command {
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

func benchClassifiersCommand() *cobra.Command {
	var rounds int
	cmd := &cobra.Command{
		Use:   "classifiers",
		Short: "Topic classifier accuracy (mined from sgd-train, measured on sgd-dev) and classification throughput per core",
		Long: `Mines one phrase-rule topic classifier per service of the corpus from sgd-train
(its settings tuned on a held-out fifth of sgd-train), then prints precision,
recall and F1 per service and macro-averaged on sgd-train and sgd-dev, measured
with the real phrase engine. Then classifies every sgd-dev conversation (given
call-like timings) on one core: preparing alone (the baseline), with 50 phrase
classifiers, and with sentiment, talk and PII as well.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, w := cmd.ErrOrStderr(), cmd.OutOrStdout()
			train, err := corpus.Read(corpus.Train, 0)
			if err != nil {
				return err
			}
			dev, err := corpus.Read(corpus.Dev, 0)
			if err != nil {
				return err
			}
			fmt.Fprintln(log, "tuning the mining settings on sgd-train (a held-out fifth):")
			mined, opt, err := topics.Build(train, log)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "mined with min dialogues %d, min precision %.1f, false-positive weight %.0f\n", opt.MinDialogues, opt.MinPrecision, opt.FalsePositive)
			onTrain, err := topics.Measure(mined, train)
			if err != nil {
				return err
			}
			onDev, err := topics.Measure(mined, dev)
			if err != nil {
				return err
			}
			topics.WriteTable(w, []string{"sgd-train", "sgd-dev"}, [][]topics.Score{onTrain, onDev})
			fmt.Fprintln(w)
			return topics.WriteThroughput(w, mined, dev, rounds)
		},
	}
	cmd.Flags().IntVar(&rounds, "rounds", 9, "passes over sgd-dev for each throughput figure (the median pass is reported)")
	return cmd
}

func benchPIICommand(cfg *cli.Config) *cobra.Command {
	var calls int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "pii",
		Short: "Personal-data redaction: planted numbers and e-mails in sgd-dev chats, spoken card numbers in synthesized calls",
		Long: `Puts a card number, a phone number (US or international, written as customers
write them) or an e-mail address into the first customer turn of every sgd-dev
dialogue, redacts every turn as ingest does with redaction on, and prints the
share of planted data removed by kind, and how many turns without planted data
redaction changed. Then speaks --calls calls with flite in which the customer
reads a card number out, transcribes them with the real call pipeline
(PocketSphinx) and counts the calls whose number is gone whole from the
redacted turns.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, log := c.Context(), c.ErrOrStderr()
			dev, err := corpus.Read(corpus.Dev, 0)
			if err != nil {
				return err
			}
			rows, changed, turns := piibench.Chats(dev)
			var res piibench.CallResult
			if calls > 0 {
				t, err := callbench.NewTranscriber(callbench.Config{Engine: sphinx.Engine{ModelDir: cfg.ASRModelDir}})
				if err != nil {
					return err
				}
				defer t.Close()
				if res, err = piibench.Calls(ctx, t, calls, seed, log); err != nil {
					return err
				}
			}
			piibench.WriteTable(c.OutOrStdout(), rows, changed, turns, res)
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 10, "synthesized calls with a spoken card number")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the card numbers read out")
	return cmd
}
