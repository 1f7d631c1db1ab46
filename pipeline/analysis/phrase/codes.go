package phrase

import (
	"slices"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/numbers"
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
//
// Numbers are read as numbers (see package numbers) when a phrase has one:
// a run of number tokens ("five oh") becomes the code of its canonical form
// ("50"), so "50", "5 0", "50.00", "fifty" and "five oh" are one phrase
// word, and "3.5" another. The number
// words are then listed with the phrase words, so that one lookup a token
// says which it is (their codes, when no phrase has them, match nothing).
type codes struct {
	words   *words.Index // a word's code is its number
	width   int          // bytes a code
	numbers bool         // some phrase word is a number
	number  []bool       // by code: a word a number can begin with
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
	c := codes{width: 1, numbers: slices.ContainsFunc(list, numbers.IsNumber)}
	if c.numbers {
		for _, w := range slices.Concat(numbers.Words, numbers.Leaders) {
			if !known[w] {
				known[w] = true
				list = append(list, w)
			}
		}
		c.number = make([]bool, len(list))
		for i, w := range list {
			c.number[i] = slices.Contains(numbers.Starters, w) || slices.Contains(numbers.Leaders, w)
		}
	}
	c.words = words.New(list)
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
// that begins a code, the first token it stands for to at and the token
// after its last to ends (-1 elsewhere in both).
func (c *codes) conversation(text *analysis.Normalized, buf []byte, at, ends []int32) ([]byte, []int32, []int32) {
	separated := true
	for i := range text.Turns() {
		last := text.TokensBefore(i + 1)
		for g := text.TokensBefore(i); g < last; {
			token, next := text.Token(g), g+1
			word, ok := c.words.FindPrefixed(text.Prefix(g), token)
			if c.numbers && (ok && c.number[word] || numbers.StartsNumber(token)) {
				if digits, used := c.read(text, g, last); used > 0 {
					word, ok = c.words.Find(digits)
					next = g + used
				}
			}
			if !ok {
				if !separated {
					buf, at, ends = append(buf, 0), append(at, -1), append(ends, -1)
					separated = true
				}
				g = next
				continue
			}
			buf = c.append(buf, uint32(word))
			at, ends = append(at, int32(g)), append(ends, int32(next))
			for range c.width - 1 {
				at, ends = append(at, -1), append(ends, -1)
			}
			separated = false
			g = next
		}
		if !separated {
			buf, at, ends = append(buf, 0), append(at, -1), append(ends, -1)
			separated = true
		}
	}
	return buf, at, ends
}

// read reads the number at token g of a turn that ends before token last:
// its digits and its tokens (none when there is no number there).
func (c *codes) read(text *analysis.Normalized, g, last int) (string, int) {
	return numbers.Read(func(k int) (string, bool) {
		if g+k < last {
			return text.Token(g + k), true
		}
		return "", false
	})
}
