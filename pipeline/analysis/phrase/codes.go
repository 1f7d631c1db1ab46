package phrase

import (
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
)

// codes turns token sequences into the bytes the Index's automaton reads:
// every word of any phrase of the set gets a number, written in a fixed
// number of bytes (the first with its high bit set, the others without),
// and every other token, and every turn boundary, becomes a 0 byte. A
// conversation of 180 tokens is then some 200 bytes instead of 1,000
// characters, the automaton is a few hundred states, and a match is whole
// tokens of one turn by construction: a code can only begin at a byte with
// the high bit set, which only a token's first byte has, and a 0 byte (a
// word no phrase has, or a new turn) matches no phrase.
type codes struct {
	words *words.Index // a word's code is its number
	width int          // bytes a code
}

func newCodes(phrases [][]string) codes {
	var list []string
	known := map[string]bool{}
	for _, p := range phrases {
		for _, w := range p {
			if !known[w] {
				known[w] = true
				list = append(list, w)
			}
		}
	}
	c := codes{words: words.New(list), width: 1}
	for n := 128; n < len(list); n *= 128 {
		c.width++
	}
	return c
}

func (c codes) append(dst []byte, word uint32) []byte {
	for k := c.width - 1; k >= 0; k-- {
		b := byte(word>>(7*k)) & 0x7F
		if k == c.width-1 {
			b |= 0x80
		}
		dst = append(dst, b)
	}
	return dst
}

// phrase is a phrase's code (all its words are known).
func (c codes) phrase(tokens []string) []byte {
	var out []byte
	for _, t := range tokens {
		word, _ := c.words.Find(t)
		out = c.append(out, uint32(word))
	}
	return out
}

// conversation writes the conversation's codes to buf and, for each byte
// that begins a code, the token it stands for to at (-1 elsewhere).
func (c *codes) conversation(text *analysis.Normalized, buf []byte, at []int32) ([]byte, []int32) {
	separated := true
	for i := range text.Turns() {
		for g := text.TokensBefore(i); g < text.TokensBefore(i+1); g++ {
			word, ok := c.words.FindPrefixed(text.Prefix(g), text.Token(g))
			if !ok {
				if !separated {
					buf, at = append(buf, 0), append(at, -1)
					separated = true
				}
				continue
			}
			buf = c.append(buf, uint32(word))
			at = append(at, int32(g))
			for range c.width - 1 {
				at = append(at, -1)
			}
			separated = false
		}
		if !separated {
			buf, at = append(buf, 0), append(at, -1)
			separated = true
		}
	}
	return buf, at
}
