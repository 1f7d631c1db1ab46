package core

import (
	"math"
	"strings"

	"github.com/jonreiter/govader"
)

// VADER's compound score, computed as github.com/jonreiter/govader
// computes it, from govader's own lexicon and word lists, without its
// per-call regular expressions, string copies and maps: govader took 40% of
// a conversation's classification time, its scoring rules are a page. Texts
// with non-ASCII characters (emoji, which VADER first spells out in words)
// go to govader itself. TestCompoundMatchesVADER and FuzzCompound hold the
// two to the same score for every text.

// vader is loaded once: its lexicon is 7,500 words.
var vader = govader.NewSentimentIntensityAnalyzer()

// VADER's constants (govader/constants.go, from the VADER paper).
const (
	vaderCapsIncrement  = 0.733 // a word in CAPS among lower-case words
	vaderNegationScalar = -0.74
	vaderAlpha          = 15 // normalization: compound = s / sqrt(s² + alpha)
	vaderExclamation    = 0.292
	vaderQuestion       = 0.18
	vaderNeverSoScale   = 1.25 // "never so good"
)

// vaderNegations are govader's negation words as a set.
var vaderNegations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range vader.Constants.NegateList {
		m[w] = true
	}
	return m
}()

// vaderPunctuation is what VADER trims from words (Python's
// string.punctuation).
const vaderPunctuation = `"!#$%&'()*+,-./:;<=>?@[\]^_` + "`{|}~"

// Compound is a text's VADER compound score (-1..1).
func Compound(text string) float64 {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return vader.PolarityScores(text).Compound
		}
	}
	// Room for the words of most turns on the stack.
	var words, lower [48]string
	text = strings.TrimSpace(text)
	s := vaderText{text: text}
	s.words, s.lower, s.capDiff = vaderSplit(text, words[:0], lower[:0])
	return s.compound()
}

// vaderText is an ASCII text split as VADER splits it: on single spaces,
// each word trimmed of punctuation unless that leaves under three
// characters (emoticons). Words keep their case; lower are the same words
// lower-cased.
type vaderText struct {
	text         string
	words, lower []string
	capDiff      bool // some words but not all are in CAPS
}

// vaderSplit appends text's words to words and lower (returned, not
// stored: so the caller's buffers can stay on its stack).
func vaderSplit(text string, words, lower []string) ([]string, []string, bool) {
	lowered := strings.ToLower(text) // ASCII: the same offsets
	caps := 0
	for start := 0; ; {
		end := strings.IndexByte(text[start:], ' ')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		from, to := start, end
		for from < to && strings.IndexByte(vaderPunctuation, text[from]) >= 0 {
			from++
		}
		for to > from && strings.IndexByte(vaderPunctuation, text[to-1]) >= 0 {
			to--
		}
		if to-from < 3 {
			from, to = start, end
		}
		w := text[from:to]
		words = append(words, w)
		lower = append(lower, lowered[from:to])
		if isUpper(w) {
			caps++
		}
		if end == len(text) {
			break
		}
		start = end + 1
	}
	return words, lower, 0 < len(words)-caps && len(words)-caps < len(words)
}

// isUpper is Python's str.isupper for ASCII: a capital and no small letter.
func isUpper(w string) bool {
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'a' <= c && c <= 'z' {
			return false
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	return upper
}

func inLexicon(w string) bool {
	_, ok := vader.Lexicon[w]
	return ok
}

func booster(w string) (float64, bool) {
	b, ok := vader.Constants.BoosterDict[w]
	return b, ok
}

// negated is one word's negation: a negation word or a word with "n't".
func negated(w string) bool { return vaderNegations[w] || strings.Contains(w, "n't") }

func (s *vaderText) compound() float64 {
	var sentimentsBuf [48]float64
	sentiments := sentimentsBuf[:0]
	for i := range s.words {
		v := 0.0
		if _, ok := booster(s.lower[i]); ok {
		} else if i+1 < len(s.words) && s.lower[i] == "kind" && s.lower[i+1] == "of" {
		} else {
			v = s.valence(i)
		}
		sentiments = append(sentiments, v)
	}
	// "but": what comes before it counts half, what comes after one and a
	// half times.
	for b, w := range s.lower {
		if w != "but" {
			continue
		}
		for i := range sentiments {
			if i < b {
				sentiments[i] *= 0.5
			}
			if i > b {
				sentiments[i] *= 1.5
			}
		}
		break
	}
	sum := 0.0
	for _, v := range sentiments {
		sum += v
	}
	emphasis := float64(min(strings.Count(s.text, "!"), 4)) * vaderExclamation
	switch q := strings.Count(s.text, "?"); {
	case q > 3:
		emphasis += 0.96
	case q > 1:
		emphasis += float64(q) * vaderQuestion
	}
	if sum > 0 {
		sum += emphasis
	} else if sum < 0 {
		sum -= emphasis
	}
	return max(-1, min(1, sum/math.Sqrt(sum*sum+vaderAlpha)))
}

// valence is word i's score with what the three words before it do to it.
func (s *vaderText) valence(i int) float64 {
	word, lower := s.words, s.lower
	item := lower[i]
	base, ok := vader.Lexicon[item]
	if !ok {
		return 0
	}
	v := base
	if item == "no" && i+1 < len(lower) && inLexicon(lower[i+1]) {
		v = 0
	}
	if (i > 0 && lower[i-1] == "no") || (i > 1 && lower[i-2] == "no") ||
		(i > 2 && lower[i-3] == "no" && (lower[i-1] == "or" || lower[i-1] == "nor")) {
		v = base * vaderNegationScalar
	}
	if s.capDiff && isUpper(word[i]) {
		if v > 0 {
			v += vaderCapsIncrement
		} else {
			v -= vaderCapsIncrement
		}
	}
	for back := 1; back <= 3 && i >= back; back++ {
		j := i - back
		if inLexicon(word[j]) { // govader looks the word up as written
			continue
		}
		inc := s.boost(j, v)
		if back == 2 && inc != 0 {
			inc *= 0.95
		}
		if back == 3 && inc != 0 {
			inc *= 0.9
		}
		v = s.negation(v+inc, back, i)
		if back == 3 {
			v = s.idioms(v, i)
		}
	}
	// "least" before the word negates it, unless "at least", "very least".
	if i > 0 && word[i-1] == "least" && !inLexicon(word[i-1]) {
		if i == 1 || (word[i-2] != "at" && word[i-2] != "very") {
			v *= vaderNegationScalar
		}
	}
	return v
}

// boost is what booster word j ("very", "barely") adds to valence v.
func (s *vaderText) boost(j int, v float64) float64 {
	b, ok := booster(s.lower[j])
	if !ok {
		return 0
	}
	if v < 0 {
		b = -b
	}
	if s.capDiff && isUpper(s.words[j]) {
		if v > 0 {
			b += vaderCapsIncrement
		} else {
			b -= vaderCapsIncrement
		}
	}
	return b
}

// negation applies the word back places before word i.
func (s *vaderText) negation(v float64, back, i int) float64 {
	l := s.lower
	switch back {
	case 2:
		if l[i-2] == "never" && (l[i-1] == "so" || l[i-1] == "this") {
			return v * vaderNeverSoScale
		}
		if l[i-2] == "without" && l[i-1] == "doubt" {
			return v
		}
	case 3:
		if l[i-3] == "never" && (l[i-2] == "so" || l[i-2] == "this" || l[i-1] == "so" || l[i-1] == "this") {
			return v * vaderNeverSoScale
		}
		if l[i-3] == "without" && (l[i-2] == "doubt" || l[i-1] == "doubt") {
			return v
		}
	}
	if negated(l[i-back]) {
		return v * vaderNegationScalar
	}
	return v
}

// idioms: VADER's special-case idioms ("the bomb", "yeah right") around
// word i replace its valence; multi-word boosters ("kind of") before it
// add to it.
func (s *vaderText) idioms(v float64, i int) float64 {
	l := s.lower
	var key [64]byte
	lookup := func(m map[string]float64, words ...string) (float64, bool) {
		k := key[:0]
		for n, w := range words {
			if n > 0 {
				k = append(k, ' ')
			}
			k = append(k, w...)
		}
		x, ok := m[string(k)]
		return x, ok
	}
	special := vader.Constants.SpecialCaseIdioms
	for _, seq := range [][]string{{l[i-1], l[i]}, {l[i-2], l[i-1], l[i]}, {l[i-2], l[i-1]}, {l[i-3], l[i-2], l[i-1]}, {l[i-3], l[i-2]}} {
		if x, ok := lookup(special, seq...); ok {
			v = x
			break
		}
	}
	if i+1 < len(l) {
		if x, ok := lookup(special, l[i], l[i+1]); ok {
			v = x
		}
	}
	if i+2 < len(l) {
		if x, ok := lookup(special, l[i], l[i+1], l[i+2]); ok {
			v = x
		}
	}
	boosters := vader.Constants.BoosterDict
	for _, seq := range [][]string{{l[i-3], l[i-2], l[i-1]}, {l[i-3], l[i-2]}, {l[i-2], l[i-1]}} {
		if x, ok := lookup(boosters, seq...); ok {
			v += x
		}
	}
	return v
}
