package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/lab/callbench"
	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/internal/lab/piibench"
	"github.com/earshot/earshot/internal/lab/topics"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/trained"
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
	var calls, turns, workers, adaptSentences, adaptPasses int
	var seed uint64
	var generalWeight float64
	var lmPath, dictPath string
	cmd := &cobra.Command{
		Use:   "asr",
		Short: "Speech recognition: WER, real-time factor, speaker attribution, memory on calls synthesized from sgd-dev",
		Long: `Synthesizes stereo calls from sgd-dev dialogues picked across its services (a
service at a time, each one's dialogues shuffled by --seed) with flite (agent
and customer on their own channels) and runs them through the real call
pipeline (ffmpeg, segmenter, PocketSphinx, turn merging): with the en-us
model's general language model (the baseline) and with a domain model (built
from sgd-train unless --language-model is given), on 16 kHz WAV and on 8 kHz
μ-law telephone audio; there also with an acoustic model adapted to telephone
audio (earshot asr adapt) on --adapt-sentences sgd-train turns spoken by other
flite voices than the calls' (awb, kal16). The corpus is found in
shared/corpus of the working directory or a parent, or in $EARSHOT_CORPUS_DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, log := cmd.Context(), cmd.ErrOrStderr()
			all, err := corpus.Read(corpus.Dev, 0)
			if err != nil {
				return err
			}
			dialogues := corpus.AcrossServices(all, calls, seed)
			fmt.Fprintf(log, "synthesizing %d calls of %d turns (dialogues picked across services) with flite…\n", len(dialogues), turns)
			synthesized, err := callbench.Synthesize(ctx, dialogues, turns)
			if err != nil {
				return err
			}
			domain := asr.Model{LanguageModel: lmPath, Dictionary: dictPath}
			var mixed asr.Model
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
				built, stats, err := lm.BuildFiles(ctx, []string{train}, "", lm.Options{MinTrigramCount: 2, GeneralWeight: generalWeight}, dir, "sgd-train")
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "  %d sentences, vocabulary %d, %d bigrams, %d trigrams\n", stats.Sentences, stats.Vocabulary, stats.Sizes[1], stats.Sizes[2])
				domain = asr.Model{LanguageModel: filepath.Join(dir, "sgd-train.lm.bin"), Dictionary: built.Dictionary}
				mixed = asr.Model{LanguageModel: built.LanguageModel, Dictionary: built.Dictionary}
			}
			engine := sphinx.Engine{ModelDir: cfg.ASRModelDir}
			telephoneModel := ""
			if adaptSentences > 0 {
				train, err := corpus.Read(corpus.Train, 0)
				if err != nil {
					return err
				}
				dir, err := os.MkdirTemp("", "earshot-bench-adapt-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				fmt.Fprintf(log, "adapting the acoustic model to telephone audio on %d sgd-train turns (voices %s)…\n", adaptSentences, strings.Join(callbench.AdaptationVoices, ", "))
				telephoneModel = filepath.Join(dir, "telephone")
				report, err := callbench.AdaptTelephone(ctx, corpus.AcrossServices(train, adaptSentences, seed),
					engine.AcousticModel(), engine.Dictionary(), telephoneModel, adaptPasses)
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "  %d turns (%.0f s) used, %d left out; log-likelihood per frame by pass %.2f\n", report.Recordings, report.AudioSeconds, report.Skipped, report.LogLikelihood)
			}
			var results []callbench.Result
			for _, cfg := range callbench.Configs(engine, domain, mixed, telephoneModel, workers) {
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
	cmd.Flags().IntVar(&calls, "calls", 20, "calls to synthesize, from sgd-dev dialogues picked across services")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "shuffles each service's dialogues before they are picked")
	cmd.Flags().IntVar(&turns, "turns", 6, "turns of each dialogue to speak")
	cmd.Flags().IntVar(&workers, "workers", 2, "calls transcribed at once, one decoder each")
	cmd.Flags().StringVar(&lmPath, "language-model", "", "domain language model to measure (default: built from sgd-train)")
	cmd.Flags().StringVar(&dictPath, "dictionary", "", "its dictionary")
	cmd.Flags().Float64Var(&generalWeight, "general-weight", 0.5, "the general model's weight in the mixed model built from sgd-train")
	cmd.Flags().IntVar(&adaptSentences, "adapt-sentences", 600, "sgd-train turns (one a dialogue, dialogues picked across services) to adapt the telephone acoustic model on (0: no adapted model)")
	cmd.Flags().IntVar(&adaptPasses, "adapt-passes", 2, "transforms the adaptation estimates in turn")
	return cmd
}

func benchClassifiersCommand() *cobra.Command {
	var rounds int
	var trainSplit, split string
	var seed uint64
	var shift, byIntent, openSet bool
	var regularization, sureShare float64
	var minDocuments int
	var holdOut []string
	cmd := &cobra.Command{
		Use:   "classifiers",
		Short: "Topic classifier accuracy (trained and mined on one split, measured on another, every label counted) and throughput per core",
		Long: `Builds two topic sets from the --train split, one classifier per service:
trained classifiers (logistic regression over words and word pairs, penalty and
threshold chosen by cross-validation on --train) and mined phrase rules
(settings tuned on a held-out fifth of --train). A service the training split
has no dialogue of gets its handwritten phrase rule in both sets. Then measures
both through the real engines on --split, a split or a JSONL file of the
corpus format, counting every service it labels (no classifier: recall 0) and
every classifier's false positives: per service, macro, micro, and the share of
dialogues given exactly their labels. Last, classifies every --split
conversation (given call-like timings) on one core: preparing alone (the
baseline), the starter set, and the starter set with each topic set.

--hold-out measures topics nobody trained: the named services' dialogues are
left out of --train, and those services get only their name and their
handwritten phrases (at most five each), as a user adds a topic. The
"trained + take" column is the trained set with those handwritten topics
taking their conversations from trained models (takesFromTrained: where one
matches, a trained model keeps its label only from its sure level); the
"trained" column beside it is the same set without.

--open-set chooses the sure share instead, on the training split alone: the
--hold-out services left out of training, standing as their handwritten topics
that take; trained once with a random fifth held out and once for each of the
--shift intents held out (with a fifth of the held-out services' dialogues),
each measured at every share; the share giving most held-out intents' dialogues
exactly their labels is chosen.

--shift measures instead, on the training split alone, how trained classifiers
do on wording they were not trained on: each of several intents' dialogues held
out in turn, trained on the rest (how the features and penalties were chosen).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, w := cmd.ErrOrStderr(), cmd.OutOrStdout()
			train, err := corpus.Read(trainSplit, 0)
			if err != nil {
				return err
			}
			if openSet {
				_, err := topics.OpenSet(w, train, holdOut, trained.Options{Seed: seed})
				return err
			}
			if train, err = topics.HoldOut(train, holdOut); err != nil {
				return err
			}
			if shift {
				return topics.Shift(w, train, trained.Options{Seed: seed, Regularization: regularization, MinDocuments: minDocuments})
			}
			test, err := corpus.Read(split, 0)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "training one classifier per service on %s (%d dialogues, %d-fold cross-validation)\n", trainSplit, len(train), trained.DefaultFolds)
			start := time.Now()
			examples := topics.Examples(train)
			if byIntent {
				topics.GroupByIntent(examples, train)
			}
			t, err := trained.Train(examples, trained.Options{Source: trainSplit, Seed: seed, SureShare: sureShare,
				Progress: func(label string, done, total int) {
					fmt.Fprintf(log, "  %s (%d of %d) %s\n", label, done, total, time.Since(start).Round(time.Second))
				}})
			if err != nil {
				return err
			}
			models := t.Models
			folds := "random folds"
			if t.Together.Grouped {
				folds = "folds by intent"
			}
			fmt.Fprintf(log, "trained in %s; together, out of fold on %s (%s): exact label set %.3f, labelled given none %.3f\n",
				time.Since(start).Round(time.Second), trainSplit, folds, t.Together.ExactLabelSet, t.Together.OutsideEveryLabel)
			fmt.Fprintf(log, "mining phrase topics on %s (settings tuned on a held-out fifth of it):\n", trainSplit)
			mined, opt, err := topics.Build(train, log)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "mined with min dialogues %d, min precision %.1f, false-positive weight %.0f\n", opt.MinDialogues, opt.MinPrecision, opt.FalsePositive)
			var reports []topics.Report
			sets := [][]registry.Classifier{topics.TrainedClassifiers(models, false), topics.TrainedClassifiers(models, true), topics.PhraseClassifiers(mined)}
			for _, cs := range sets {
				set, err := topics.Set(cs)
				if err != nil {
					return err
				}
				r, err := topics.Measure(set, test)
				if err != nil {
					return err
				}
				reports = append(reports, r)
			}
			topics.WriteTable(w, split, []string{"trained", "trained + take", "mined phrases"}, reports)
			fmt.Fprintln(w)
			return topics.WriteThroughput(w, split, test, mined, []topics.Named{{Name: "trained", Classifiers: sets[1]}, {Name: "mined phrases", Classifiers: sets[2]}}, rounds)
		},
	}
	cmd.Flags().StringVar(&trainSplit, "train", corpus.Train, "split (or JSONL file) to train and mine on")
	cmd.Flags().StringVar(&split, "split", corpus.Dev, "split (or JSONL file) to measure on: never one trained or tuned on")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "orders the training examples into cross-validation folds")
	cmd.Flags().IntVar(&rounds, "rounds", 9, "passes over the split for each throughput figure (the median pass is reported)")
	cmd.Flags().StringSliceVar(&holdOut, "hold-out", nil, "services to leave out of training, given only their handwritten phrases: "+strings.Join(topics.HandwrittenLabels(), ", "))
	cmd.Flags().BoolVar(&byIntent, "group-by-intent", false, "cross-validate the trained classifiers by folds that keep each intent's dialogues together (their figures of unseen wording)")
	cmd.Flags().BoolVar(&shift, "shift", false, "measure generalisation on the training split alone (held-out intents), nothing else")
	cmd.Flags().BoolVar(&openSet, "open-set", false, "choose the sure share on the training split alone (held-out intents, --hold-out services given their handwritten topics), nothing else")
	cmd.Flags().Float64Var(&sureShare, "sure-share", 0, "share of a label's out-of-fold positives that reach its sure level (0: the default, "+strconv.FormatFloat(trained.DefaultSureShare, 'g', -1, 64)+")")
	cmd.Flags().Float64Var(&regularization, "regularization", 0, "with --shift: the penalty to train with (0: chosen by cross-validation)")
	cmd.Flags().IntVar(&minDocuments, "min-documents", 0, "with --shift: a term is a feature when this many conversations have it (0: the default)")
	return cmd
}

func benchPIICommand(cfg *cli.Config) *cobra.Command {
	var calls int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "pii",
		Short: "Personal-data redaction: planted numbers and e-mails in sgd-dev chats, spoken card numbers in synthesized calls",
		Long: `Puts personal data in one of its forms — a card number (alone, or with its
expiry date and security code), a phone number (US, international with + or an
exit code, UK or German national, or spoken in groups), an SSN, an e-mail
address — into the first customer turn of every sgd-dev dialogue, redacts every
turn as ingest does with redaction on, and prints the share of planted data
removed by form, the share of look-alikes (order numbers, IMEIs) kept, and how
many turns without planted data redaction changed. Then speaks --calls calls with flite in which the customer
reads a card number out, at 16 kHz and again through a telephone line's 8 kHz
μ-law, transcribes them with the real call pipeline (PocketSphinx) and counts
the calls whose number is gone whole from the redacted turns.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, log := c.Context(), c.ErrOrStderr()
			dev, err := corpus.Read(corpus.Dev, 0)
			if err != nil {
				return err
			}
			report := piibench.Chats(dev)
			var results []piibench.CallResult
			if calls > 0 {
				t, err := callbench.NewTranscriber(callbench.Config{Engine: sphinx.Engine{ModelDir: cfg.ASRModelDir}})
				if err != nil {
					return err
				}
				defer t.Close()
				for _, telephone := range []bool{false, true} {
					res, err := piibench.Calls(ctx, t, calls, seed, telephone, log)
					if err != nil {
						return err
					}
					results = append(results, res)
				}
			}
			piibench.WriteTable(c.OutOrStdout(), report, results)
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 10, "synthesized calls with a spoken card number")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the card numbers read out")
	return cmd
}
