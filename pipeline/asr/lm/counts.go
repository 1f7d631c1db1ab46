// Package lm builds domain language models for speech recognition: a
// trigram model with modified Kneser-Ney smoothing, written in the ARPA
// format PocketSphinx reads, and a pronunciation dictionary for its words.
// A call center's own transcripts (its products, places, names and ways
// of speaking) make a far better model of what its callers say than a
// general English one.
package lm

import (
	"fmt"
)

// Sentence markers, the first two word ids.
const (
	SentenceStart = "<s>"
	SentenceEnd   = "</s>"
)

const (
	idBits  = 21
	maxID   = 1<<idBits - 1
	startID = 0
	endID   = 1
)

// Counter counts the unigrams, bigrams and trigrams of sentences. Word ids
// are packed into one uint64 key per n-gram, so a model of millions of
// n-grams is a few maps of integers.
type Counter struct {
	ids   map[string]uint32
	words []string
	uni   []int64
	bi    map[uint64]int64
	tri   map[uint64]int64
	// Tokens is how many words (sentence end included) were counted.
	Tokens int64
}

// NewCounter starts an empty count.
func NewCounter() *Counter {
	return &Counter{
		ids:   map[string]uint32{SentenceStart: startID, SentenceEnd: endID},
		words: []string{SentenceStart, SentenceEnd},
		uni:   []int64{0, 0},
		bi:    map[uint64]int64{},
		tri:   map[uint64]int64{},
	}
}

func key2(a, b uint32) uint64    { return uint64(a)<<idBits | uint64(b) }
func key3(a, b, c uint32) uint64 { return uint64(a)<<(2*idBits) | uint64(b)<<idBits | uint64(c) }
func split2(k uint64) (uint32, uint32) {
	return uint32(k >> idBits), uint32(k & maxID)
}
func split3(k uint64) (uint32, uint32, uint32) {
	return uint32(k >> (2 * idBits)), uint32(k >> idBits & maxID), uint32(k & maxID)
}

func (c *Counter) id(w string) (uint32, error) {
	if id, ok := c.ids[w]; ok {
		return id, nil
	}
	if len(c.words) > maxID {
		return 0, fmt.Errorf("more than %d distinct words", maxID)
	}
	id := uint32(len(c.words))
	c.ids[w] = id
	c.words = append(c.words, w)
	c.uni = append(c.uni, 0)
	return id, nil
}

// Add counts one sentence (words in spoken form, see pipeline/asr/spoken);
// an empty one is skipped.
func (c *Counter) Add(words []string) error {
	if len(words) == 0 {
		return nil
	}
	prev2, prev1 := uint32(maxID), uint32(startID)
	for i := 0; i <= len(words); i++ {
		w := uint32(endID)
		if i < len(words) {
			if words[i] == SentenceStart || words[i] == SentenceEnd || words[i] == "" {
				return fmt.Errorf("word %q cannot be counted", words[i])
			}
			var err error
			if w, err = c.id(words[i]); err != nil {
				return err
			}
		}
		c.uni[w]++
		c.bi[key2(prev1, w)]++
		if prev2 != maxID {
			c.tri[key3(prev2, prev1, w)]++
		}
		prev2, prev1 = prev1, w
		c.Tokens++
	}
	c.uni[startID]++
	return nil
}

// Vocabulary is the counted words, sentence markers excluded.
func (c *Counter) Vocabulary() []string { return c.words[2:] }

// Drop removes words (those without a pronunciation, typically) and every
// n-gram containing one. Call it before Build.
func (c *Counter) Drop(drop map[string]bool) {
	if len(drop) == 0 {
		return
	}
	dropped := make([]bool, len(c.words))
	for w := range drop {
		if id, ok := c.ids[w]; ok && id > endID {
			dropped[id] = true
		}
	}
	for k := range c.bi {
		if a, b := split2(k); dropped[a] || dropped[b] {
			delete(c.bi, k)
		}
	}
	for k := range c.tri {
		if a, b, d := split3(k); dropped[a] || dropped[b] || dropped[d] {
			delete(c.tri, k)
		}
	}
	// Renumber the kept words.
	ids := map[string]uint32{}
	var words []string
	var uni []int64
	remap := make([]uint32, len(c.words))
	for id, w := range c.words {
		if dropped[id] {
			continue
		}
		remap[id] = uint32(len(words))
		ids[w] = remap[id]
		words = append(words, w)
		uni = append(uni, c.uni[id])
	}
	bi := make(map[uint64]int64, len(c.bi))
	for k, n := range c.bi {
		a, b := split2(k)
		bi[key2(remap[a], remap[b])] = n
	}
	tri := make(map[uint64]int64, len(c.tri))
	for k, n := range c.tri {
		a, b, d := split3(k)
		tri[key3(remap[a], remap[b], remap[d])] = n
	}
	c.ids, c.words, c.uni, c.bi, c.tri = ids, words, uni, bi, tri
}
