package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/mining"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// trainCommand trains one classifier per label of a labelled file and
// installs them.
func trainCommand(cfg *Config) *cobra.Command {
	var labelsPath, category string
	var seed uint64
	var folds int
	cmd := &cobra.Command{
		Use:   "train ID|NAME --labels FILE [--seed 1] [--folds 5] [--category Topics]",
		Short: "Train one classifier per label from a file of labelled conversations, and install them (by name: a label's classifier gets a new version)",
		Long: `Train a classifier for each label of a labelled file and create or update the
organization's classifier named after the label (a new version when it exists).
Each is a Core AI Model whose model is "trained": a logistic regression over the
conversation's words and word pairs, its penalty and decision threshold chosen by
k-fold cross-validation, whose figures are stored with the version and printed.

FILE is JSON Lines (gzipped or not), one conversation a line:
  {"turns": [{"speaker": "customer", "text": "…"}, …], "labels": ["Hotels"]}
  {"text": "…", "labels": ["Hotels", "Flights"]}
"services" may stand for "labels" (the format of the shared dialogue corpus). An
empty list is an explicit "none of these": a negative for every label. The same
file and seed train the same models. Works while the server runs: its next
ingest uses the new versions.`,
		Args: cobra.ExactArgs(1),
	}
	cmd.RunE = withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
		orgID, examples, err := labelledInput(ctx, a, args[0], labelsPath, category)
		if err != nil {
			return nil, err
		}
		log := cmd.ErrOrStderr()
		start := time.Now()
		fmt.Fprintf(log, "training on %d conversations (%d-fold cross-validation)\n", len(examples), folds)
		t, err := trained.Train(examples, trained.Options{Source: filepath.Base(labelsPath), Seed: seed, Folds: folds,
			Progress: func(label string, done, total int) {
				fmt.Fprintf(log, "  %s trained (%d of %d, %s)\n", label, done, total, time.Since(start).Round(time.Second))
			}})
		if err != nil {
			return nil, err
		}
		models := t.Models
		fmt.Fprintln(log, together(t.Together))
		specs := make([]starter.Spec, len(models))
		for i, m := range models {
			specs[i] = starter.Spec{
				Name: m.Label, ClassifierType: analysis.TypeCoreModel, CategoryName: category, Reportable: true, Groupable: true,
				Description: m.Description(),
				Definition:  m.Definition(),
			}
		}
		out, err := importClassifiers(ctx, a, orgID, specs)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i].Evaluation = &models[i].Evaluation
		}
		return out, nil
	})
	cmd.Flags().StringVar(&labelsPath, "labels", "", "JSON Lines file of labelled conversations (see above)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "orders the conversations into cross-validation folds")
	cmd.Flags().IntVar(&folds, "folds", trained.DefaultFolds, "cross-validation folds (2–20)")
	cmd.Flags().StringVar(&category, "category", "Topics", "category of the classifiers")
	return cmd
}

// mineCommand mines one phrase-rule classifier per label of a labelled
// file and installs them.
func mineCommand(cfg *Config) *cobra.Command {
	var labelsPath, category string
	cmd := &cobra.Command{
		Use:   "mine ID|NAME --labels FILE [--category Topics]",
		Short: "Mine one phrase-rule classifier per label from a file of labelled conversations, and install them (by name)",
		Long: `Mine a phrase-rule classifier for each label of a labelled file (the format of
"classifiers train") and create or update the organization's classifier named
after the label: greedily the phrases of up to three words that find the most
conversations of the label and the fewest of the others, the mining settings
tuned on a held-out fifth of the file. The explainable alternative to trained
classifiers: each is a list of phrases a reviewer can read and edit.`,
		Args: cobra.ExactArgs(1),
	}
	cmd.RunE = withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
		orgID, examples, err := labelledInput(ctx, a, args[0], labelsPath, category)
		if err != nil {
			return nil, err
		}
		log := cmd.ErrOrStderr()
		fmt.Fprintf(log, "tuning the mining settings on a held-out fifth of %d conversations:\n", len(examples))
		topics, _, err := mining.Build(examples, log)
		if err != nil {
			return nil, err
		}
		if len(topics) == 0 {
			return nil, errors.New("no label has phrases to mine: each needs phrases found in at least five of its conversations")
		}
		specs := make([]starter.Spec, len(topics))
		for i, t := range topics {
			specs[i] = starter.Spec{
				Name: t.Label, ClassifierType: analysis.TypeClassifier, CategoryName: category, Reportable: true, Groupable: true,
				Description: fmt.Sprintf("Phrases mined from %s (%d conversations)", filepath.Base(labelsPath), len(examples)),
				Definition:  t.Definition(),
			}
		}
		return importClassifiers(ctx, a, orgID, specs)
	})
	cmd.Flags().StringVar(&labelsPath, "labels", "", "JSON Lines file of labelled conversations (see classifiers train)")
	cmd.Flags().StringVar(&category, "category", "Topics", "category of the classifiers")
	return cmd
}

// labelledInput checks train's and mine's arguments and reads the
// organization's id and the labelled file's examples.
func labelledInput(ctx context.Context, a admin.Operations, org, labelsPath, category string) (string, []trained.Example, error) {
	if labelsPath == "" {
		return "", nil, errors.New("give --labels FILE: the labelled conversations")
	}
	if !slices.Contains(analysis.Categories, category) {
		return "", nil, fmt.Errorf("--category must be one of %v", analysis.Categories)
	}
	orgID, err := resolveOrg(ctx, a, org)
	if err != nil {
		return "", nil, err
	}
	examples, err := readExamples(labelsPath)
	return orgID, examples, err
}

// readExamples reads a labelled file's conversations as training examples.
func readExamples(path string) ([]trained.Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := trained.ReadLabelled(f, trained.MaxLocalLabelled)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	examples := make([]trained.Example, len(lines))
	for i, l := range lines {
		if l.ConversationID != "" {
			return nil, fmt.Errorf("%s line %d: names a stored conversation; this command trains from the conversations' text (turns or text)", path, l.Line)
		}
		examples[i] = l.Example()
	}
	return examples, nil
}

// together says how the trained classifiers did as one set, out of fold,
// and how far to trust it.
func together(e trained.SetEvaluation) string {
	folds := "random folds: wording every fold's models also saw, so expect less on new conversations; give each line a \"group\" to measure on folds by it"
	if e.Grouped {
		folds = "folds by the lines' groups: wording each fold's models did not see"
	}
	return fmt.Sprintf("together, out of fold (%d-fold, %s): %.1f %% of %d conversations given exactly their labels; %.1f %% of the labelled ones given none (outside every trained topic)",
		e.Folds, folds, 100*e.ExactLabelSet, e.Examples, 100*e.OutsideEveryLabel)
}
