// Package phrase is the phrase-rule engine (classifier type "Classifier"):
// groups of rules over normalized tokens, each rule a set of phrases with
// a match mode, a speaker, a window, an optional negation and an optional
// "near" condition. All phrases of all classifiers of a set are found in
// one pass per conversation by an Aho-Corasick automaton (Index).
package phrase

import (
	"fmt"
	"strings"
	"sync"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/numbers"
)

// Match modes.
const (
	Contains   = "contains"
	Exact      = "exact"
	StartsWith = "startsWith"
)

// Classifier is a compiled phrase classifier.
type Classifier struct {
	any    bool // groups combine with ANY (else ALL)
	groups []group
	// phrases are the distinct token sequences of every rule, as
	// " tok tok " keys, in first-seen order.
	phrases []string
	// withoutPhrases is the result when none of its phrases is found.
	withoutPhrases bool
	// takesFromTrained: where the classifier is true, trained models of
	// its category keep their label only from their sure level
	// (registry.Set).
	takesFromTrained bool
	// single is the classifier's own index, for Evaluate outside a set;
	// built on first use (a set builds one index for all its classifiers).
	single func() *Index
}

type group struct {
	any   bool
	rules []rule
}

type rule struct {
	phrases []int  // indexes into Classifier.phrases
	member  []bool // member[p]: phrase p is one of the rule's
	match   string
	speaker string
	negate  bool
	window  window
	near    *near
	path    string
}

func (r rule) has(p int) bool { return r.member[p] }

type near struct {
	phrases  []int
	maxWords int
}

// key is a phrase's token sequence with a space on each side, so that a
// byte match is a whole-token match.
func key(tokens []string) string { return " " + strings.Join(tokens, " ") + " " }

// Compile validates and compiles a definition:
//
//	{"operator": "ALL"|"ANY", "takesFromTrained": false, "groups": [{"operator": "ALL"|"ANY", "rules": [
//	  {"phrases": [...], "match": "contains"|"exact"|"startsWith", "speaker": "Agent"|"Customer"|"Any",
//	   "negate": false, "window": {...}, "near": {"phrases": [...], "maxWords": 5}}]}]}
//
// Errors are *analysis.DefinitionError naming the path under "definition".
func Compile(raw []byte) (*Classifier, error) {
	def, err := analysis.Decode(raw, "definition")
	if err != nil {
		return nil, err
	}
	if err := def.Allow("operator", "takesFromTrained", "groups"); err != nil {
		return nil, err
	}
	c := &Classifier{}
	if c.takesFromTrained, err = def.Bool("takesFromTrained"); err != nil {
		return nil, err
	}
	ids := map[string]int{}
	phraseIDs := func(list []string, path ...any) ([]int, error) {
		var out []int
		for i, p := range list {
			toks := numbers.Canonical(analysis.Tokenize(p))
			if len(toks) == 0 {
				return nil, analysis.Invalid("has no words to match", append(path, i)...)
			}
			k := key(toks)
			id, ok := ids[k]
			if !ok {
				id = len(c.phrases)
				ids[k] = id
				c.phrases = append(c.phrases, k)
			}
			out = append(out, id)
		}
		return out, nil
	}
	op, err := def.String("operator", "ALL", "ALL", "ANY")
	if err != nil {
		return nil, err
	}
	c.any = op == "ANY"
	groups, err := def.Objects("groups", true)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if err := g.Allow("operator", "rules"); err != nil {
			return nil, err
		}
		gop, err := g.String("operator", "ALL", "ALL", "ANY")
		if err != nil {
			return nil, err
		}
		rules, err := g.Objects("rules", true)
		if err != nil {
			return nil, err
		}
		cg := group{any: gop == "ANY"}
		for _, r := range rules {
			cr, err := compileRule(r, phraseIDs)
			if err != nil {
				return nil, err
			}
			cg.rules = append(cg.rules, cr)
		}
		c.groups = append(c.groups, cg)
	}
	for gi := range c.groups {
		for ri := range c.groups[gi].rules {
			r := &c.groups[gi].rules[ri]
			r.member = make([]bool, len(c.phrases))
			for _, p := range r.phrases {
				r.member[p] = true
			}
		}
	}
	c.withoutPhrases, _ = c.decide(func(_ rule, none []analysis.Evidence) []analysis.Evidence { return none }, nil)
	c.single = sync.OnceValue(func() *Index { return NewIndex([]*Classifier{c}) })
	return c, nil
}

func compileRule(r *analysis.Object, phraseIDs func([]string, ...any) ([]int, error)) (rule, error) {
	if err := r.Allow("phrases", "match", "speaker", "negate", "window", "near"); err != nil {
		return rule{}, err
	}
	cr := rule{path: r.Path}
	list, err := r.Strings("phrases", true)
	if err != nil {
		return rule{}, err
	}
	if cr.phrases, err = phraseIDs(list, r.Path, "phrases"); err != nil {
		return rule{}, err
	}
	if cr.match, err = r.String("match", Contains, Contains, Exact, StartsWith); err != nil {
		return rule{}, err
	}
	if cr.speaker, err = r.String("speaker", analysis.Any, analysis.Agent, analysis.Customer, analysis.Any); err != nil {
		return rule{}, err
	}
	if cr.negate, err = r.Bool("negate"); err != nil {
		return rule{}, err
	}
	w, err := r.Object("window")
	if err != nil {
		return rule{}, err
	}
	if w != nil {
		if cr.window, err = compileWindow(w); err != nil {
			return rule{}, err
		}
	}
	n, err := r.Object("near")
	if err != nil {
		return rule{}, err
	}
	if n != nil {
		if err := n.Allow("phrases", "maxWords"); err != nil {
			return rule{}, err
		}
		list, err := n.Strings("phrases", true)
		if err != nil {
			return rule{}, err
		}
		ids, err := phraseIDs(list, n.Path, "phrases")
		if err != nil {
			return rule{}, err
		}
		maxWords, err := n.Int("maxWords", 0, 1000)
		if err != nil {
			return rule{}, err
		}
		if maxWords == nil {
			return rule{}, analysis.Invalid("is required: how many words may lie between the phrases (0–1000)", n.Path, "maxWords")
		}
		if cr.match != Contains {
			return rule{}, analysis.Invalid(fmt.Sprintf("needs match %q", Contains), n.Path)
		}
		cr.near = &near{phrases: ids, maxWords: int(*maxWords)}
	}
	return cr, nil
}

// TakesFromTrained reports whether, where the classifier is true, trained
// models of its category keep their label only from their sure level: a
// topic a user wrote takes its conversations from trained neighbours that
// merely resemble it.
func (c *Classifier) TakesFromTrained() bool { return c.takesFromTrained }
