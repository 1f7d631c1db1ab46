package trained

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/analysis"
)

// Example is one labelled conversation. No labels is an explicit "none of
// these": a negative for every label. Only, when set, limits what the
// example says to those labels (a human review answers for the
// classifiers it reviewed, not for the others): it is a positive for the
// ones among its Labels, a negative for the rest of Only, and no example
// at all for any other label.
type Example struct {
	Conversation *analysis.Conversation
	Labels       []string
	Only         []string
	// Group, when any example has one, keeps conversations alike in one
	// cross-validation fold (an example without one is a group alone).
	Group string
}

// about reports whether the example says whether it has the label.
func (e Example) about(label string) bool { return e.Only == nil || slices.Contains(e.Only, label) }

// Options are training's settings; zero values take the defaults.
type Options struct {
	Source string // recorded with the models
	Seed   uint64 // orders the examples into folds
	Folds  int    // cross-validation folds (default DefaultFolds)
	// Regularization is the L2 penalty; 0 chooses it by cross-validation
	// among Regularizations.
	Regularization float64
	MinDocuments   int // a term is a feature when this many examples have it (default 2)
	MaxTerms       int // a model keeps its this many strongest terms (default 3000)
	// SureShare is the share of a label's positives, each scored out of
	// fold, that reach the model's sure level (default DefaultSureShare).
	SureShare float64
	Workers   int // labels trained at once (default GOMAXPROCS)
	// Progress, when set, is told of each label trained.
	Progress func(label string, done, total int)
}

// DefaultFolds is how many cross-validation folds training uses unless
// told.
const DefaultFolds = 5

// Regularizations are the penalties cross-validation chooses among.
var Regularizations = []float64{1e-6, 1e-5, 1e-4}

func (o Options) withDefaults() Options {
	if o.Folds == 0 {
		o.Folds = DefaultFolds
	}
	if o.MinDocuments == 0 {
		o.MinDocuments = 2
	}
	if o.MaxTerms == 0 {
		o.MaxTerms = 3000
	}
	if o.SureShare == 0 {
		o.SureShare = DefaultSureShare
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// InputError is training data that cannot train a model, naming what is
// wrong (of the examples, the field of a training request).
func InputError(format string, args ...any) error {
	message := fmt.Sprintf(format, args...)
	return &invalid.Field{Path: "examples", Message: message, Detail: "The examples cannot train classifiers: " + message}
}

// Labels are the labels of the examples, sorted.
func Labels(examples []Example) []string {
	var labels []string
	for _, e := range examples {
		for _, l := range e.Labels {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	slices.Sort(labels)
	return labels
}

// Trained is what a training learned: a model per label, and how they do
// together.
type Trained struct {
	Models []*Model
	// Together is the models as one set, each example scored out of fold
	// by every label's model at its threshold: what a set of classifiers
	// does where per-label figures look near perfect.
	Together SetEvaluation
}

// SetEvaluation is how a set of models did together on conversations they
// were not trained on (out of fold), over the examples that say every
// label they have (not reviews of some classifiers only).
type SetEvaluation struct {
	Folds int `json:"folds"`
	// Grouped: the examples had groups, and the set was evaluated on folds
	// that keep each group whole (wording a fold's models did not see);
	// penalties and thresholds are chosen on random folds either way (on
	// groups they would be chosen for wording no conversation has).
	Grouped  bool `json:"grouped"`
	Examples int  `json:"examples"`
	// ExactLabelSet is the share of examples given exactly their labels;
	// OutsideEveryLabel the share of examples with a label given none —
	// conversations that would fall outside every trained topic.
	ExactLabelSet     float64 `json:"exactLabelSet"`
	OutsideEveryLabel float64 `json:"outsideEveryLabel"`
}

// Train learns one model per label of the examples, each evaluated by
// cross-validation, and evaluates them together. The same examples,
// options and seed train the same models.
func Train(examples []Example, opt Options) (Trained, error) {
	opt = opt.withDefaults()
	if err := Check(examples, opt); err != nil {
		return Trained{}, err
	}
	labels := Labels(examples)
	vocab, vectors := vectorize(examples, opt.MinDocuments)
	folds := assignFolds(len(examples), opt)
	var groupFolds []int // the set evaluation's folds, when the examples have groups
	if grouped(examples) {
		groupFolds = assignGroupFolds(examples, opt)
	}

	models := make([]*Model, len(labels))
	given := make([][]bool, len(labels)) // by label: each example's out-of-fold result
	errs := make([]error, len(labels))
	work := make(chan int, len(labels))
	for k := range labels {
		work <- k
	}
	close(work)
	var wg sync.WaitGroup
	var mu sync.Mutex // orders the progress reports
	done := 0
	for range min(opt.Workers, len(labels)) {
		wg.Go(func() {
			for k := range work {
				models[k], given[k], errs[k] = trainLabel(labels[k], examples, vocab, vectors, folds, groupFolds, opt)
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(labels[k], done, len(labels))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Trained{}, err
		}
	}
	return Trained{Models: models, Together: together(examples, labels, given, opt.Folds, groupFolds != nil)}, nil
}

// together is the set evaluation of the labels' out-of-fold results.
func together(examples []Example, labels []string, given [][]bool, folds int, grouped bool) SetEvaluation {
	e := SetEvaluation{Folds: folds, Grouped: grouped}
	var exact, labelled, outside int
	for i, ex := range examples {
		if ex.Only != nil {
			continue
		}
		e.Examples++
		right, found := true, false
		for k, l := range labels {
			found = found || given[k][i]
			right = right && given[k][i] == slices.Contains(ex.Labels, l)
		}
		if right {
			exact++
		}
		if len(ex.Labels) > 0 {
			labelled++
			if !found {
				outside++
			}
		}
	}
	e.ExactLabelSet, e.OutsideEveryLabel = round(ratio(exact, e.Examples)), round(ratio(outside, labelled))
	return e
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Check refuses examples that cannot train, saying why: none, an empty
// conversation, a blank label, or a label that every example has or too
// few have.
func Check(examples []Example, opt Options) error {
	opt = opt.withDefaults()
	labels := Labels(examples)
	if opt.Folds < 2 || opt.Folds > 20 {
		return InputError("folds must be from 2 to 20, not %d", opt.Folds)
	}
	if err := checkSureShare(opt.SureShare); err != nil {
		return err
	}
	if len(examples) == 0 {
		return InputError("no labelled conversations to train from")
	}
	for i, e := range examples {
		if e.Conversation.Normalized().Tokens() == 0 {
			return InputError("conversation %d (%s) has no words to learn from", i+1, e.Conversation.ID)
		}
		for _, l := range e.Labels {
			if strings.TrimSpace(l) == "" {
				return InputError("conversation %d (%s) has a blank label", i+1, e.Conversation.ID)
			}
		}
	}
	if len(labels) == 0 {
		return InputError("no conversation has a label: training needs conversations of each label")
	}
	for _, l := range labels {
		pos, neg := 0, 0
		for _, e := range examples {
			switch {
			case slices.Contains(e.Labels, l):
				pos++
			case e.about(l):
				neg++
			}
		}
		switch {
		case neg == 0:
			return InputError("every conversation has label %q: training needs conversations without it too (one class only)", l)
		case pos < opt.Folds:
			return InputError("label %q has %d conversations: training needs at least %d (one for each cross-validation fold)", l, pos, opt.Folds)
		case neg < opt.Folds:
			return InputError("label %q: only %d conversations lack it; training needs at least %d", l, neg, opt.Folds)
		}
	}
	return nil
}

// vectorize numbers the terms that minDocuments examples or more have and
// writes every example as a vector of them.
func vectorize(examples []Example, minDocuments int) ([]string, []vector) {
	docs := map[string]int{}
	perExample := make([][]string, len(examples))
	for i, e := range examples {
		seen := map[string]bool{}
		eachTerm(e.Conversation.Normalized(), func(term string, _ uint64, _ occurrence) {
			if !seen[term] {
				seen[term] = true
				perExample[i] = append(perExample[i], term)
				docs[term]++
			}
		})
	}
	var vocab []string
	for term, n := range docs {
		if n >= minDocuments {
			vocab = append(vocab, term)
		}
	}
	slices.Sort(vocab)
	number := make(map[string]int32, len(vocab))
	for i, t := range vocab {
		number[t] = int32(i)
	}
	vectors := make([]vector, len(examples))
	for i, terms := range perExample {
		var v vector
		for _, t := range terms {
			if k, ok := number[t]; ok {
				v = append(v, k)
			}
		}
		slices.Sort(v)
		vectors[i] = v
	}
	return vocab, vectors
}

// assignFolds puts n examples into folds in the seed's order.
func assignFolds(n int, opt Options) []int {
	order := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)).Perm(n)
	folds := make([]int, n)
	for pos, i := range order {
		folds[i] = pos % opt.Folds
	}
	return folds
}

// assignGroupFolds puts each group of examples whole into the fold with
// the fewest examples so far, the largest groups first (an example without
// a group is a group alone).
func assignGroupFolds(examples []Example, opt Options) []int {
	order := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)).Perm(len(examples))
	members := map[string][]int{}
	var groups []string // in the seed's order of their first example
	for _, i := range order {
		g := examples[i].Group
		if g == "" {
			g = "\x00" + strconv.Itoa(i)
		}
		if _, ok := members[g]; !ok {
			groups = append(groups, g)
		}
		members[g] = append(members[g], i)
	}
	slices.SortStableFunc(groups, func(a, b string) int { return cmp.Compare(len(members[b]), len(members[a])) })
	folds := make([]int, len(examples))
	sizes := make([]int, opt.Folds)
	for _, g := range groups {
		f := slices.Index(sizes, slices.Min(sizes))
		for _, i := range members[g] {
			folds[i] = f
		}
		sizes[f] += len(members[g])
	}
	return folds
}

// grouped reports whether any example has a group.
func grouped(examples []Example) bool {
	return slices.ContainsFunc(examples, func(e Example) bool { return e.Group != "" })
}

// trainLabel cross-validates the label's model (choosing the penalty when
// not given, and the threshold), then trains it on every example. It
// also says which examples the model finds out of fold, at its threshold:
// on groupFolds when given (the set evaluation's), else on the folds it
// chose by.
func trainLabel(label string, examples []Example, vocab []string, all []vector, allFolds, groupFolds []int, opt Options) (*Model, []bool, error) {
	var x []vector
	var y []bool
	var folds, byGroup, at []int // at: each row's example
	positives := 0
	for i, e := range examples {
		if !e.about(label) {
			continue
		}
		has := slices.Contains(e.Labels, label)
		x, y, folds, at = append(x, all[i]), append(y, has), append(folds, allFolds[i]), append(at, i)
		if groupFolds != nil {
			byGroup = append(byGroup, groupFolds[i])
		}
		if has {
			positives++
		}
	}
	candidates := Regularizations
	if opt.Regularization > 0 {
		candidates = []float64{opt.Regularization}
	}
	// The strongest penalty first: each fold's solution starts the same
	// fold's fit under the next, weaker one (a regularization path), and
	// the chosen penalty's first fold starts the final fit.
	var best crossValidation
	var starts [][]float64
	for i := len(candidates) - 1; i >= 0; i-- {
		cv, err := crossValidate(x, y, folds, candidates[i], len(vocab), opt, starts)
		if err != nil {
			return nil, nil, fmt.Errorf("label %q: %w", label, err)
		}
		if i == len(candidates)-1 || cv.f1 >= best.f1 { // a tie goes to the weaker penalty
			best = cv
		}
		starts = cv.solutions
	}
	w, bias, err := newLogistic(x, y, best.lambda, len(vocab)).fit(best.solutions[0])
	if err != nil {
		return nil, nil, fmt.Errorf("label %q: %w", label, err)
	}
	m := &Model{
		Label: label, Bias: round(bias), Threshold: round(best.threshold), Weights: prune(w, vocab, opt.MaxTerms),
		Evaluation: Evaluation{Folds: opt.Folds, Examples: len(x), Positives: positives,
			Precision: round(best.precision), Recall: round(best.recall), F1: round(best.f1)},
		Training: Training{Source: opt.Source, Seed: opt.Seed, Regularization: best.lambda, MinDocuments: opt.MinDocuments, Vocabulary: len(vocab)},
	}
	m.sureBasis = &sureBasis{threshold: best.threshold, positives: positiveScores(best.scores, y)}
	m.Sure = m.sureBasis.level(opt.SureShare)
	m.alone = NewIndex([]*Model{m})
	scores := best.scores
	if byGroup != nil {
		cv, err := crossValidate(x, y, byGroup, best.lambda, len(vocab), opt, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("label %q: %w", label, err)
		}
		scores = cv.scores
	}
	given := make([]bool, len(examples)) // out of fold, at the threshold chosen
	for r, i := range at {
		given[i] = scores[r] >= best.threshold
	}
	return m, given, nil
}

// crossValidation is one penalty's out-of-fold result: the threshold that
// gives the examples, each scored by the model of the folds without it,
// their best F1, and the figures there; and the level the model is sure
// from (sureLevel).
type crossValidation struct {
	lambda, threshold     float64
	precision, recall, f1 float64
	solutions             [][]float64 // each fold's weights and bias
	scores                []float64   // each row's, by the model of the folds without it
}

// crossValidate fits each fold's model, from starts[fold] when given.
func crossValidate(x []vector, y []bool, folds []int, lambda float64, dim int, opt Options, starts [][]float64) (crossValidation, error) {
	cv := crossValidation{lambda: lambda, solutions: make([][]float64, opt.Folds)}
	scores := make([]float64, len(x))
	for f := range opt.Folds {
		var tx []vector
		var ty []bool
		for i := range x {
			if folds[i] != f {
				tx, ty = append(tx, x[i]), append(ty, y[i])
			}
		}
		var start []float64
		if starts != nil {
			start = starts[f]
		}
		w, bias, err := newLogistic(tx, ty, lambda, dim).fit(start)
		if err != nil {
			return cv, err
		}
		cv.solutions[f] = append(w[:dim:dim], bias)
		pruned := pruneDense(w, opt.MaxTerms)
		for i := range x {
			if folds[i] == f {
				scores[i] = probability(pruned, bias, x[i])
			}
		}
	}
	cv.threshold, cv.precision, cv.recall, cv.f1 = bestThreshold(scores, y)
	cv.scores = scores
	return cv, nil
}

// DefaultSureShare is the share of a label's positives, each scored out of
// fold, that score at least the model's sure level: a conversation scored
// there looks like most of the label's conversations, not merely like
// some. It was chosen on the training split alone (`earshot-lab bench
// classifiers --open-set`), never on a split measured on.
const DefaultSureShare = 0.98

// checkSureShare refuses a share no sure level can be set at.
func checkSureShare(share float64) error {
	if share <= 0 || share > 1 {
		return InputError("the sure share must be above 0 and at most 1, not %g", share)
	}
	return nil
}

// sureBasis is what a model's sure level is chosen from: its threshold
// and its positives' out-of-fold scores, in order.
type sureBasis struct {
	threshold float64
	positives []float64
}

// level is the sure level where share of the positives reach it, never
// below the threshold.
func (b sureBasis) level(share float64) float64 {
	return round(max(b.threshold, sureLevel(b.positives, share)))
}

// positiveScores are the scores of the positive rows, in order.
func positiveScores(scores []float64, y []bool) []float64 {
	var positives []float64
	for i, s := range scores {
		if y[i] {
			positives = append(positives, s)
		}
	}
	slices.Sort(positives)
	return positives
}

// sureLevel is the score that share of the positives (in order) reach.
func sureLevel(positives []float64, share float64) float64 {
	if len(positives) == 0 {
		return 0
	}
	below := math.Floor((1-share)*float64(len(positives)) + 1e-9) // the rest reach the level
	return positives[int(below)]
}

// bestThreshold is the threshold of best F1 over scored examples: halfway
// between the lowest score taken and the next below it.
func bestThreshold(scores []float64, y []bool) (threshold, precision, recall, f1 float64) {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	positives := 0
	for _, v := range y {
		if v {
			positives++
		}
	}
	tp, threshold := 0, 0.5
	for k, i := range order {
		if y[i] {
			tp++
		}
		if k+1 < len(order) && scores[order[k+1]] == scores[i] {
			continue // a threshold cannot split equal scores
		}
		p, r := float64(tp)/float64(k+1), float64(tp)/float64(positives)
		if p+r == 0 {
			continue
		}
		if f := 2 * p * r / (p + r); f > f1 {
			next := 0.0
			if k+1 < len(order) {
				next = scores[order[k+1]]
			}
			threshold, precision, recall, f1 = (scores[i]+next)/2, p, r, f
		}
	}
	return threshold, precision, recall, f1
}

// pruneDense zeroes all but the maxTerms weights of largest size.
func pruneDense(w []float64, maxTerms int) []float64 {
	if len(w) <= maxTerms {
		return w
	}
	sizes := make([]float64, len(w))
	for i, v := range w {
		sizes[i] = math.Abs(v)
	}
	slices.Sort(sizes)
	cut := sizes[len(sizes)-maxTerms]
	out := make([]float64, len(w))
	kept := 0
	for i, v := range w {
		if math.Abs(v) >= cut && v != 0 && kept < maxTerms {
			out[i] = v
			kept++
		}
	}
	return out
}

// prune is pruneDense's weights by term.
func prune(w []float64, vocab []string, maxTerms int) map[string]float64 {
	out := map[string]float64{}
	for i, v := range pruneDense(w, maxTerms) {
		if v != 0 {
			out[vocab[i]] = round(v)
		}
	}
	return out
}

// round keeps a figure's significant part: a definition stays readable and
// its JSON round trip exact.
func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
