package core

import (
	"strings"
	"sync"

	"github.com/jonreiter/govader"

	"github.com/earshot/earshot/pipeline/analysis/words"
)

// vaderTables are govader's analyzer and the word index built from its
// lists, loaded on first use (a program that scores nothing, such as a
// CLI command, does not pay for the 7,500-word lexicon).
type vaderTables struct {
	analyzer *govader.SentimentIntensityAnalyzer
	// index numbers the words of vaderWords, info is what each number
	// stands for: a word is looked up in the index, most of a text's words
	// being ruled out by its filter without reaching its slots (with Go's
	// map, its hashing and cache misses, the 7,500-word lookups cost more
	// than the rest of scoring).
	index *words.Index
	info  []vaderWord
}

var vader = sync.OnceValue(func() *vaderTables {
	analyzer := govader.NewSentimentIntensityAnalyzer()
	var list []string
	var info []vaderWord
	for w, v := range vaderWords(analyzer) {
		list, info = append(list, w), append(info, v)
	}
	return &vaderTables{analyzer: analyzer, index: words.New(list), info: info}
})

// vaderWord is everything VADER's lists say about a lower-case word, so
// that scoring looks each word up once.
type vaderWord struct {
	valence float64 // its lexicon valence (with inLexicon)
	boost   float64 // its booster increment (with isBooster)
	flags   uint16
}

const (
	inLexicon   uint16 = 1 << iota
	isBooster          // "very", "barely"
	isNegation         // "not", "never", "isn't"
	isIdiomPart        // a word of a multi-word idiom or booster ("kind of", "the bomb")
	isNo
	isKind
	isOf
	isBut
	isOrNor
	isNever
	isSoOrThis
	isWithout
	isDoubt
	isLeast
	isAtOrVery
)

// vaderWords are govader's lexicon, boosters, negations and idiom words,
// and the words its rules name.
func vaderWords(vader *govader.SentimentIntensityAnalyzer) map[string]vaderWord {
	m := make(map[string]vaderWord, len(vader.Lexicon)+200)
	set := func(w string, f func(*vaderWord)) {
		v := m[w]
		f(&v)
		m[w] = v
	}
	for w, v := range vader.Lexicon {
		set(w, func(x *vaderWord) { x.valence, x.flags = v, x.flags|inLexicon })
	}
	for w, b := range vader.Constants.BoosterDict {
		set(w, func(x *vaderWord) { x.boost, x.flags = b, x.flags|isBooster })
	}
	for _, w := range vader.Constants.NegateList {
		set(w, func(x *vaderWord) { x.flags |= isNegation })
	}
	for _, idioms := range []map[string]float64{vader.Constants.SpecialCaseIdioms, vader.Constants.BoosterDict} {
		for idiom := range idioms {
			if parts := strings.Fields(idiom); len(parts) > 1 {
				for _, w := range parts {
					set(w, func(x *vaderWord) { x.flags |= isIdiomPart })
				}
			}
		}
	}
	for flag, words := range map[uint16][]string{
		isNo: {"no"}, isKind: {"kind"}, isOf: {"of"}, isBut: {"but"}, isOrNor: {"or", "nor"}, isNever: {"never"},
		isSoOrThis: {"so", "this"}, isWithout: {"without"}, isDoubt: {"doubt"}, isLeast: {"least"}, isAtOrVery: {"at", "very"},
	} {
		for _, w := range words {
			set(w, func(x *vaderWord) { x.flags |= flag })
		}
	}
	return m
}
