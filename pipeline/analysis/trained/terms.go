package trained

import (
	"math"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
)

// A conversation's terms are its tokens (see analysis.Tokenize) and every
// pair of neighbouring tokens in one turn ("check in"): the features a
// model weighs. A term is present or not, however often it comes and
// however long the conversation: a second topic a few turns long weighs
// as much as the first (scaling by length was worse at topics worded in
// ways the training data did not have). Training and evaluation read
// terms alike, through eachTerm.

// occurrence is where a term was first seen: token g, and g+1 for a pair.
type occurrence struct {
	token int
	pair  bool
}

// eachTerm calls fn with every term of the text, in order, repeats
// included.
func eachTerm(n *analysis.Normalized, fn func(term string, prefix uint64, at occurrence)) {
	for g := range n.Tokens() {
		fn(n.Token(g), n.Prefix(g), occurrence{token: g})
		if pair, ok := n.Pair(g); ok {
			fn(pair, words.Prefix(pair), occurrence{token: g, pair: true})
		}
	}
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
