// Package words numbers a fixed list of words and finds a token's number in
// a few nanoseconds. Classifiers look up every token of every conversation
// (the phrase engine's words, VADER's lexicon): with Go's map that was a
// fifth of classification time, mostly hashing the string and comparing it
// byte by byte. Here a word is known by its first eight bytes read as one
// integer and its length: the hash is one multiplication, the comparison
// two integer compares (and a string compare only for the rest of a word
// longer than eight bytes).
package words

import "math/bits"

// Index numbers a list of distinct words: word i of the list is number i.
// It is read-only once built, so safe for concurrent use.
type Index struct {
	slots []slot // open addressing, linear probing; a power of two long
	shift uint8  // 64 - log2(len(slots))
	tails []string
	// seen has a bit for each hash value at twice the slots' resolution,
	// set for the words' hashes: most words of a text that are not listed
	// are ruled out by one bit in a few kilobytes, without touching the
	// slots (a large list's slots are not all in the fastest cache).
	seen []uint64
}

// slot is one word: its first eight bytes and length, and its number
// (length 0: empty).
type slot struct {
	prefix uint64
	length uint32
	number uint32
}

// New numbers words (duplicates keep their first number).
func New(list []string) *Index {
	size := 16
	for size < 4*len(list) { // at most a quarter full: probes stay short
		size *= 2
	}
	ix := &Index{slots: make([]slot, size), shift: uint8(64 - bits.TrailingZeros(uint(size))), tails: make([]string, len(list)), seen: make([]uint64, (2*size+63)/64)}
	for i, w := range list {
		if w == "" {
			continue
		}
		if _, ok := ix.Find(w); ok {
			continue
		}
		prefix := Prefix(w)
		h := ix.hash(prefix, len(w))
		word, bit := ix.seenBit(h)
		ix.seen[word] |= bit
		s := int(h >> ix.shift)
		for ix.slots[s].length != 0 {
			s = (s + 1) & (len(ix.slots) - 1)
		}
		ix.slots[s] = slot{prefix: prefix, length: uint32(len(w)), number: uint32(i)}
		if len(w) > 8 {
			ix.tails[i] = w[8:]
		}
	}
	return ix
}

// Prefix is a word's first eight bytes as a little-endian integer, zeros
// after a shorter word's end.
func Prefix[W ~string | ~[]byte](w W) uint64 {
	if len(w) >= 8 {
		return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	}
	var p uint64
	for i := len(w) - 1; i >= 0; i-- {
		p = p<<8 | uint64(w[i])
	}
	return p
}

// hash is a word's hash: its top bits are the slot its probe starts at.
func (ix *Index) hash(prefix uint64, length int) uint64 {
	return (prefix ^ uint64(length)<<59) * 0x9E3779B97F4A7C15
}

// seenBit is where hash h's bit is in seen.
func (ix *Index) seenBit(h uint64) (int, uint64) {
	at := h >> (ix.shift - 1)
	return int(at / 64), 1 << (at % 64)
}

// Find is a word's number.
func (ix *Index) Find(w string) (int, bool) { return ix.FindPrefixed(Prefix(w), w) }

// FindBytes is Find for a word in a byte slice.
func (ix *Index) FindBytes(w []byte) (int, bool) { return find(ix, Prefix(w), w) }

// FindPrefixed is Find for a caller that has the word's Prefix already.
func (ix *Index) FindPrefixed(prefix uint64, w string) (int, bool) { return find(ix, prefix, w) }

func find[W ~string | ~[]byte](ix *Index, prefix uint64, w W) (int, bool) {
	if len(w) == 0 {
		return 0, false
	}
	h := ix.hash(prefix, len(w))
	if word, bit := ix.seenBit(h); ix.seen[word]&bit == 0 {
		return 0, false
	}
	for s := int(h >> ix.shift); ; s = (s + 1) & (len(ix.slots) - 1) {
		e := &ix.slots[s]
		if e.length == 0 {
			return 0, false
		}
		if e.prefix == prefix && int(e.length) == len(w) && (len(w) <= 8 || ix.tails[e.number] == string(w[8:])) {
			return int(e.number), true
		}
	}
}

// Len is how many words were listed.
func (ix *Index) Len() int { return len(ix.tails) }
