package core

import (
	"math"
	"strings"
)

// VADER's compound score, computed as github.com/jonreiter/govader
// computes it, from govader's own lexicon and word lists, without its
// per-call regular expressions, string copies and maps, which made govader
// the largest share of a conversation's classification time; its scoring
// rules are a page. Texts
// with non-ASCII characters (emoji, which VADER first spells out in words)
// go to govader itself. TestCompoundMatchesVADER and FuzzCompound hold the
// two to the same score for every text.

// VADER's constants (govader/constants.go, from the VADER paper).
const (
	vaderCapsIncrement  = 0.733 // a word in CAPS among lower-case words
	vaderNegationScalar = -0.74
	vaderAlpha          = 15 // normalization: compound = s / sqrt(s² + alpha)
	vaderExclamation    = 0.292
	vaderQuestion       = 0.18
	vaderNeverSoScale   = 1.25 // "never so good"
)

// vaderPunctuation is what VADER trims from words (Python's
// string.punctuation).
const vaderPunctuation = `"!#$%&'()*+,-./:;<=>?@[\]^_` + "`{|}~"

// Compound is a text's VADER compound score (-1..1).
func Compound(text string) float64 {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return vader().analyzer.PolarityScores(text).Compound
		}
	}
	var buf [48]vaderToken // room for most turns on the stack
	s := vaderText{text: strings.TrimSpace(text)}
	s.words, s.capDiff = vaderSplit(s.text, buf[:0])
	for _, w := range s.words {
		if w.flags&inLexicon != 0 {
			return s.compound()
		}
	}
	return 0 // only lexicon words have valence: the sum, and all else, is 0
}

// vaderText is an ASCII text split as VADER splits it: on single spaces,
// each word trimmed of punctuation unless that leaves under three
// characters (emoticons).
type vaderText struct {
	text    string
	words   []vaderToken
	capDiff bool // some words but not all are in CAPS
}

// vaderToken is a word of the text: where it is, its case, and what VADER's
// lists say about it lower-cased.
type vaderToken struct {
	from, to int
	hasUpper bool // a capital letter: the word differs from its lower case
	allCaps  bool // Python's str.isupper: a capital and no small letter
	vaderWord
}

// vaderPunct marks the bytes of vaderPunctuation.
var vaderPunct = func() (t [256]bool) {
	for i := range len(vaderPunctuation) {
		t[vaderPunctuation[i]] = true
	}
	return t
}()

// vaderClass marks capital and small letters and the apostrophe: a word's
// case is the union of its bytes' classes.
var vaderClass = func() (t [256]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c], t[c+'a'-'A'] = vaderUpper, vaderSmall
	}
	t['\''] = vaderApostrophe
	return t
}()

const (
	vaderUpper byte = 1 << iota
	vaderSmall
	vaderApostrophe
)

// vaderSplit appends text's words to words (returned, not stored: so the
// caller's buffer can stay on its stack).
func vaderSplit(text string, words []vaderToken) ([]vaderToken, bool) {
	caps := 0
	for start := 0; ; {
		// The word's letters decide its case; trimming punctuation drops none.
		end, seen := start, byte(0)
		for ; end < len(text) && text[end] != ' '; end++ {
			seen |= vaderClass[text[end]]
		}
		upper, small, apostrophe := seen&vaderUpper != 0, seen&vaderSmall != 0, seen&vaderApostrophe != 0
		from, to := start, end
		for from < to && vaderPunct[text[from]] {
			from++
		}
		for to > from && vaderPunct[text[to-1]] {
			to--
		}
		if to-from < 3 {
			from, to = start, end
		}
		w := vaderToken{from: from, to: to, hasUpper: upper, allCaps: upper && !small}
		if w.allCaps {
			caps++
		}
		w.vaderWord = lookupLower(text[from:to], upper, apostrophe)
		words = append(words, w)
		if end == len(text) {
			break
		}
		start = end + 1
	}
	return words, 0 < len(words)-caps && len(words)-caps < len(words)
}

// lookupLower is what VADER's lists say about a word in lower case (and
// whether it is a negation by its "n't").
func lookupLower(w string, hasUpper, apostrophe bool) vaderWord {
	var info vaderWord
	var n int
	var known bool
	tables := vader()
	if !hasUpper {
		n, known = tables.index.Find(w)
	} else if len(w) <= 64 {
		var lower [64]byte
		n, known = tables.index.FindBytes(appendLower(lower[:0], w))
	} else {
		n, known = tables.index.Find(strings.ToLower(w))
	}
	if known {
		info = tables.info[n]
	}
	if apostrophe && hasNT(w) {
		info.flags |= isNegation
	}
	return info
}

// hasNT reports whether a word holds "n't" in any case ("isn't", "DON'T").
func hasNT(w string) bool {
	for i := 1; i+1 < len(w); i++ {
		if w[i] == '\'' && (w[i-1]|0x20) == 'n' && (w[i+1]|0x20) == 't' {
			return true
		}
	}
	return false
}

func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func (s *vaderText) is(i int, flag uint16) bool { return s.words[i].flags&flag != 0 }

// writtenInLexicon: govader looks the word before a sentiment word up as
// written, capitals and all.
func (s *vaderText) writtenInLexicon(j int) bool {
	if !s.words[j].hasUpper {
		return s.is(j, inLexicon)
	}
	_, ok := vader().analyzer.Lexicon[s.text[s.words[j].from:s.words[j].to]]
	return ok
}

// written reports whether word j is, as written, one with the flag (the
// flag's words are lower case).
func (s *vaderText) written(j int, flag uint16) bool { return !s.words[j].hasUpper && s.is(j, flag) }

func (s *vaderText) compound() float64 {
	var sentimentsBuf [48]float64
	sentiments := sentimentsBuf[:0]
	for i := range s.words {
		v := 0.0
		if s.is(i, isBooster) {
		} else if i+1 < len(s.words) && s.is(i, isKind) && s.is(i+1, isOf) {
		} else {
			v = s.valence(i)
		}
		sentiments = append(sentiments, v)
	}
	// "but": what comes before it counts half, what comes after one and a
	// half times.
	for b := range s.words {
		if !s.is(b, isBut) {
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
	if !s.is(i, inLexicon) {
		return 0
	}
	base := s.words[i].valence
	v := base
	if s.is(i, isNo) && i+1 < len(s.words) && s.is(i+1, inLexicon) {
		v = 0
	}
	if (i > 0 && s.is(i-1, isNo)) || (i > 1 && s.is(i-2, isNo)) || (i > 2 && s.is(i-3, isNo) && s.is(i-1, isOrNor)) {
		v = base * vaderNegationScalar
	}
	if s.capDiff && s.words[i].allCaps {
		if v > 0 {
			v += vaderCapsIncrement
		} else {
			v -= vaderCapsIncrement
		}
	}
	for back := 1; back <= 3 && i >= back; back++ {
		j := i - back
		if s.writtenInLexicon(j) {
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
	if i > 0 && s.written(i-1, isLeast) && !s.writtenInLexicon(i-1) {
		if i == 1 || !s.written(i-2, isAtOrVery) {
			v *= vaderNegationScalar
		}
	}
	return v
}

// boost is what booster word j ("very", "barely") adds to valence v.
func (s *vaderText) boost(j int, v float64) float64 {
	if !s.is(j, isBooster) {
		return 0
	}
	b := s.words[j].boost
	if v < 0 {
		b = -b
	}
	if s.capDiff && s.words[j].allCaps {
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
	switch back {
	case 2:
		if s.is(i-2, isNever) && s.is(i-1, isSoOrThis) {
			return v * vaderNeverSoScale
		}
		if s.is(i-2, isWithout) && s.is(i-1, isDoubt) {
			return v
		}
	case 3:
		if s.is(i-3, isNever) && (s.is(i-2, isSoOrThis) || s.is(i-1, isSoOrThis)) {
			return v * vaderNeverSoScale
		}
		if s.is(i-3, isWithout) && (s.is(i-2, isDoubt) || s.is(i-1, isDoubt)) {
			return v
		}
	}
	if s.is(i-back, isNegation) {
		return v * vaderNegationScalar
	}
	return v
}

// idioms: VADER's special-case idioms ("the bomb", "yeah right") around
// word i replace its valence; multi-word boosters ("kind of") before it
// add to it. Only sequences of idiom words are looked up.
func (s *vaderText) idioms(v float64, i int) float64 {
	var key [64]byte
	lookup := func(m map[string]float64, from, to int) (float64, bool) {
		k := key[:0]
		for j := from; j < to; j++ {
			if !s.is(j, isIdiomPart) {
				return 0, false
			}
			if j > from {
				k = append(k, ' ')
			}
			k = appendLower(k, s.text[s.words[j].from:s.words[j].to])
		}
		x, ok := m[string(k)]
		return x, ok
	}
	special := vader().analyzer.Constants.SpecialCaseIdioms
	for _, seq := range [...][2]int{{i - 1, i + 1}, {i - 2, i + 1}, {i - 2, i}, {i - 3, i}, {i - 3, i - 1}} {
		if x, ok := lookup(special, seq[0], seq[1]); ok {
			v = x
			break
		}
	}
	if i+1 < len(s.words) {
		if x, ok := lookup(special, i, i+2); ok {
			v = x
		}
	}
	if i+2 < len(s.words) {
		if x, ok := lookup(special, i, i+3); ok {
			v = x
		}
	}
	boosters := vader().analyzer.Constants.BoosterDict
	for _, seq := range [...][2]int{{i - 3, i}, {i - 3, i - 1}, {i - 2, i}} {
		if x, ok := lookup(boosters, seq[0], seq[1]); ok {
			v += x
		}
	}
	return v
}
