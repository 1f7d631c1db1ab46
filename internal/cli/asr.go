package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/pipeline/asr/lm"
)

func asrCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "asr", Short: "Speech recognition tools: domain language models, acoustic models adapted to telephone audio"}
	cmd.AddCommand(lmCommand(), adaptCommand())
	return cmd
}

func lmCommand() *cobra.Command {
	var out, name, baseDict string
	var minTrigram int64
	var generalWeight float64
	cmd := &cobra.Command{
		Use:   "lm FILE...",
		Short: "Build a domain language model and dictionary from transcripts, for an organization's calls",
		Long: `Build a trigram language model (modified Kneser-Ney) and its pronunciation
dictionary from text an organization's callers and agents actually say: plain
text (one utterance or more a line) or JSON lines of dialogues
({"turns":[{"text":...}]}) or texts ({"text":...}), gzipped when named .gz.
Numbers are spelled as spoken. Words missing from the base dictionary are
pronounced by flite's letter-to-sound rules.

Writes DIR/NAME.lm.bin, DIR/NAME.dict and DIR/NAME.lm.mix: the domain model
mixed with the en-us model's general one (--general-weight; 0 for the domain
model alone), so that calls keep every general word while the domain's words
and phrases weigh more; the dictionary then pronounces the general words too.
Give them to an organization with
  earshot admin org audio ORG --language-model DIR/NAME.lm.mix --dictionary DIR/NAME.dict`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if generalWeight < 0 || generalWeight >= 1 {
				return fmt.Errorf("--general-weight must be from 0 to below 1")
			}
			start := time.Now()
			built, stats, err := lm.BuildFiles(cmd.Context(), files, baseDict, lm.Options{MinTrigramCount: minTrigram, GeneralWeight: generalWeight}, out, name)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%d sentences, %d words, vocabulary %d (%d from the dictionary, %d by letter-to-sound, %d left out)\n",
				stats.Sentences, stats.Words, stats.Vocabulary, stats.FromDictionary, stats.LetterToSound, stats.Dropped)
			fmt.Fprintf(w, "model: %d unigrams, %d bigrams, %d trigrams in %s\n", stats.Sizes[0], stats.Sizes[1], stats.Sizes[2], time.Since(start).Round(time.Millisecond))
			fmt.Fprintf(w, "wrote %s and %s\nuse them with: earshot admin org audio ORG --language-model %s --dictionary %s\n",
				built.LanguageModel, built.Dictionary, abs(built.LanguageModel), abs(built.Dictionary))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", ".", "directory to write the model and dictionary to")
	cmd.Flags().StringVar(&name, "name", "domain", "file name of the model and dictionary (NAME.lm.bin, NAME.lm.mix, NAME.dict)")
	cmd.Flags().StringVar(&baseDict, "dictionary", "", "base pronunciation dictionary (default: the en-us model's cmudict)")
	cmd.Flags().Int64Var(&minTrigram, "min-trigram-count", 2, "leave out trigrams seen fewer times (1 keeps them all)")
	cmd.Flags().Float64Var(&generalWeight, "general-weight", 0.5, "the general en-us model's weight in the mix (0: the domain model alone, no mix)")
	return cmd
}

func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}
