package analysis

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// Tokenize normalizes text for matching: lower case, apostrophes removed
// inside words ("Don't" → "dont"), every other mark a separator. Phrases
// and transcripts go through it alike, so "I'd like to CANCEL!" matches the
// phrase "id like to cancel".
func Tokenize(text string) []string {
	buf, starts, ends := appendTokens(make([]byte, 0, len(text)+1), nil, nil, text)
	if len(starts) == 0 {
		return nil
	}
	return splitTokens(string(buf), starts, ends)
}

// asciiToken maps an ASCII byte to itself lower-cased when it belongs to a
// token, to dropped for an apostrophe and to 0 for a separator.
var asciiToken = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		case c == '\'':
			t[c] = dropped
		}
	}
	return t
}()

const dropped = 1

// appendTokens writes text's tokens to buf, each followed by a space, and
// records where each starts and ends.
func appendTokens(buf []byte, starts, ends []int32, text string) ([]byte, []int32, []int32) {
	inToken := false
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch l := asciiToken[c]; l {
			case 0:
				if inToken {
					ends = append(ends, int32(len(buf)))
					buf = append(buf, ' ')
					inToken = false
				}
			case dropped: // joins the word's parts
			default:
				if !inToken {
					starts = append(starts, int32(len(buf)))
					inToken = true
				}
				buf = append(buf, l)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inToken {
				starts = append(starts, int32(len(buf)))
				inToken = true
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case r == '’':
		default:
			if inToken {
				ends = append(ends, int32(len(buf)))
				buf = append(buf, ' ')
				inToken = false
			}
		}
	}
	if inToken {
		ends = append(ends, int32(len(buf)))
		buf = append(buf, ' ')
	}
	return buf, starts, ends
}

// splitTokens cuts the tokens at [starts[i], ends[i]) out of text.
func splitTokens(text string, starts, ends []int32) []string {
	out := make([]string, len(starts))
	for i, s := range starts {
		out[i] = text[s:ends[i]]
	}
	return out
}

// Normalized is a conversation's text as phrase rules read it: every turn's
// tokens (see Tokenize) in one string, each token followed by a space and
// each turn opened by a space and closed by a line feed:
//
//	" hello how can i help \n my card was declined \n"
//
// so a phrase searched as " card was " matches whole tokens of one turn
// only. Tokens are slices of it: a conversation's tokens cost a handful of
// allocations, not a few per turn.
type Normalized struct {
	Text         string
	bytes        []byte // Text's bytes, for matchers that read bytes
	starts, ends []int32
	before       []int // tokens in the turns before turn i; the last entry is the total
	// tokens are every token in order, cut from Text when first asked for
	// (a phrase match needs only offsets).
	tokens []string
}

func normalize(turns []Turn) *Normalized {
	size := 0
	for _, t := range turns {
		size += len(t.Text) + 3
	}
	buf := make([]byte, 0, size)
	starts, ends := make([]int32, 0, size/4), make([]int32, 0, size/4)
	n := &Normalized{before: make([]int, len(turns)+1)}
	for i, t := range turns {
		buf = append(buf, ' ')
		buf, starts, ends = appendTokens(buf, starts, ends, t.Text)
		buf = append(buf, '\n')
		n.before[i+1] = len(starts)
	}
	n.Text, n.bytes, n.starts, n.ends = string(buf), buf, starts, ends
	return n
}

// Bytes are Text as bytes; the caller must not modify them.
func (n *Normalized) Bytes() []byte { return n.bytes }

// Turn is turn i's tokens.
func (n *Normalized) Turn(i int) []string {
	if n.tokens == nil {
		n.tokens = splitTokens(n.Text, n.starts, n.ends)
	}
	return n.tokens[n.before[i]:n.before[i+1]:n.before[i+1]]
}

// TurnText is turn i's tokens joined by spaces.
func (n *Normalized) TurnText(i int) string {
	if n.Count(i) == 0 {
		return ""
	}
	return n.Span(i, 0, n.Count(i))
}

// Count is how many tokens turn i has.
func (n *Normalized) Count(i int) int { return n.before[i+1] - n.before[i] }

// TokensBefore is how many tokens the turns before turn i have
// (TokensBefore(len(turns)) is the total).
func (n *Normalized) TokensBefore(i int) int { return n.before[i] }

// Token is the conversation's token g (counting from the first turn's
// first).
func (n *Normalized) Token(g int) string { return n.Text[n.starts[g]:n.ends[g]] }

// TurnOf is the turn token g is in.
func (n *Normalized) TurnOf(g int) int {
	return sort.Search(len(n.before)-1, func(i int) bool { return n.before[i+1] > g })
}

// Span is the text of turn's tokens [from, to), joined by spaces.
func (n *Normalized) Span(turn, from, to int) string {
	return n.Text[n.starts[n.before[turn]+from]:n.ends[n.before[turn]+to-1]]
}
