package analysis

import (
	"slices"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/earshot/earshot/pipeline/analysis/words"
)

// Tokenize normalizes text for matching: lower case, apostrophes removed
// inside words ("Don't" → "dont"), every other mark a separator — except
// in numerals: a decimal point or a thousands separator between two digits
// and a percent sign after a digit stay in the token ("1,200.50", "5%"),
// so that "3.5" is not read as 35 (package numbers reads them). Phrases
// and transcripts go through it alike, so "I'd like to CANCEL!" matches the
// phrase "id like to cancel".
func Tokenize(text string) []string {
	buf, starts, ends := appendTokens(make([]byte, 0, len(text)+1), nil, nil, text)
	if len(starts) == 0 {
		return nil
	}
	return splitTokens(string(buf), starts, ends)
}

// How each ASCII byte takes part in a token: asciiLower is the byte a
// token keeps (lower-cased) or a space; asciiInToken and asciiSeparator
// are 1 for token bytes and separators (an apostrophe is neither: it is
// dropped and joins the word's parts); asciiStop marks the bytes of
// multi-byte characters, which the slower rune-by-rune path reads;
// asciiNumeralMark the marks a numeral may keep (inNumeral).
var asciiLower, asciiInToken, asciiSeparator, asciiStop, asciiNumeralMark = func() (lower, in, sep, stop, numeral [256]byte) {
	numeral['.'], numeral[','], numeral['%'] = 1, 1, 1
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			stop[c] = 1
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			lower[c], in[c] = byte(c), 1
		case 'A' <= c && c <= 'Z':
			lower[c], in[c] = byte(c)+'a'-'A', 1
		case c == '\'':
		default:
			lower[c], sep[c] = ' ', 1
		}
	}
	return
}()

// inNumeral reports whether c, a mark after the digit that ends a token,
// stays in it: '.' and ',' when a digit (next) follows, '%' always.
func inNumeral(c byte, next int) bool {
	return c == '%' || (c == '.' || c == ',') && next >= 0 && isDigit(byte(next))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// byteAt is text[i], or -1 past its end.
func byteAt(text string, i int) int {
	if i < len(text) {
		return int(text[i])
	}
	return -1
}

// appendTokens writes text's tokens to buf, each followed by a space, and
// records where each starts and ends.
func appendTokens(buf []byte, starts, ends []int32, text string) ([]byte, []int32, []int32) {
	// ASCII without branches on the byte: write it (or a space), move on
	// when it is a token's byte or the first separator after a token, and
	// note a start or an end where one is (the slot is overwritten when
	// not).
	most := len(text)/2 + 2 // tokens at most, and one slot to spare
	buf, starts, ends = slices.Grow(buf, len(text)+1), slices.Grow(starts, most), slices.Grow(ends, most)
	out, j := buf[:cap(buf)], len(buf)
	st, ns := starts[:cap(starts)], len(starts)
	en, ne := ends[:cap(ends)], len(ends)
	var in byte // 1 inside a token
	i := 0
	for ; i < len(text); i++ {
		c := text[i]
		if asciiStop[c] != 0 {
			break
		}
		if in == 1 && asciiNumeralMark[c] != 0 && isDigit(out[j-1]) && inNumeral(c, byteAt(text, i+1)) {
			out[j] = c
			j++
			continue
		}
		token, separator := asciiInToken[c], asciiSeparator[c]
		st[ns] = int32(j)
		ns += int(token &^ in)
		en[ne] = int32(j)
		ne += int(separator & in)
		out[j] = asciiLower[c]
		j += int(token | separator&in)
		in = token | in&^separator
	}
	buf, starts, ends = out[:j], st[:ns], en[:ne]
	inToken := in == 1
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if inToken && r < utf8.RuneSelf && asciiNumeralMark[r] != 0 && isDigit(buf[len(buf)-1]) && inNumeral(byte(r), byteAt(text, i)) {
			buf = append(buf, byte(r))
			continue
		}
		separator := r < utf8.RuneSelf && asciiSeparator[r] == 1 || r >= utf8.RuneSelf && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '’'
		switch {
		case separator && inToken:
			ends, buf, inToken = append(ends, int32(len(buf))), append(buf, ' '), false
		case separator || r == '\'' || r == '’':
		default:
			if !inToken {
				starts, inToken = append(starts, int32(len(buf))), true
			}
			if r < utf8.RuneSelf {
				buf = append(buf, asciiLower[r])
			} else {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
		}
	}
	if inToken {
		ends, buf = append(ends, int32(len(buf))), append(buf, ' ')
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
// Tokens are slices of it, known by their offsets: a conversation's tokens
// cost a handful of allocations, not a few per turn, and evidence text is
// a slice of it too (see Span).
type Normalized struct {
	Text         string
	starts, ends []int32
	before       []int32 // tokens in the turns before turn i; the last entry is the total
}

// normalizing is normalize's working memory, reused: the tokenizer writes
// with room to spare, the result is copied out at its size.
type normalizing struct {
	buf                  []byte
	starts, ends, before []int32
}

var normalizers = sync.Pool{New: func() any { return new(normalizing) }}

func normalize(turns []Turn) *Normalized {
	w := normalizers.Get().(*normalizing)
	defer normalizers.Put(w)
	buf, starts, ends, before := w.buf[:0], w.starts[:0], w.ends[:0], append(w.before[:0], 0)
	for _, t := range turns {
		buf = append(buf, ' ')
		buf, starts, ends = appendTokens(buf, starts, ends, t.Text)
		buf = append(buf, '\n')
		before = append(before, int32(len(starts)))
	}
	// The offsets in one allocation, the text in another.
	offsets := make([]int32, 0, len(starts)+len(ends)+len(before))
	offsets = append(append(append(offsets, starts...), ends...), before...)
	n := &Normalized{Text: string(buf), starts: offsets[:len(starts)], ends: offsets[len(starts) : 2*len(starts)], before: offsets[2*len(starts):]}
	w.buf, w.starts, w.ends, w.before = buf, starts, ends, before
	return n
}

// Turns is how many turns the conversation has.
func (n *Normalized) Turns() int { return len(n.before) - 1 }

// Count is how many tokens turn i has.
func (n *Normalized) Count(i int) int { return int(n.before[i+1] - n.before[i]) }

// TokensBefore is how many tokens the turns before turn i have
// (TokensBefore(len(turns)) is the total).
func (n *Normalized) TokensBefore(i int) int { return int(n.before[i]) }

// Token is the conversation's token g (counting from the first turn's
// first).
func (n *Normalized) Token(g int) string { return n.Text[n.starts[g]:n.ends[g]] }

// Prefix is token g's words.Prefix: its first eight bytes, read at once
// (the text goes on after a token, so they are there to read).
func (n *Normalized) Prefix(g int) uint64 {
	s, length := int(n.starts[g]), int(n.ends[g]-n.starts[g])
	if s+8 > len(n.Text) {
		return words.Prefix(n.Text[s : s+length])
	}
	t := n.Text[s : s+8]
	p := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	if length < 8 {
		p &= 1<<(8*length) - 1
	}
	return p
}

// TurnOf is the turn token g is in.
func (n *Normalized) TurnOf(g int) int {
	return sort.Search(len(n.before)-1, func(i int) bool { return int(n.before[i+1]) > g })
}

// Span is the text of turn's tokens [from, to), joined by spaces.
func (n *Normalized) Span(turn, from, to int) string {
	first := n.TokensBefore(turn)
	return n.Text[n.starts[first+from]:n.ends[first+to-1]]
}

// Pair is tokens g and g+1 as one string ("check in"), when both are in
// one turn.
func (n *Normalized) Pair(g int) (string, bool) {
	if g+1 >= len(n.starts) || n.starts[g+1] != n.ends[g]+1 {
		return "", false // the last token, or the next is in the next turn
	}
	return n.Text[n.starts[g]:n.ends[g+1]], true
}

// Tokens is how many tokens the conversation has.
func (n *Normalized) Tokens() int { return len(n.starts) }
