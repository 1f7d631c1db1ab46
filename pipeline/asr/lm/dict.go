package lm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// Phones is the phone set of the CMU dictionary and of PocketSphinx's
// en-us acoustic model.
var Phones = map[string]bool{}

func init() {
	for _, p := range strings.Fields("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH") {
		Phones[p] = true
	}
}

// Dictionary maps a word to its pronunciations (phones separated by
// spaces), as PocketSphinx dictionaries list them: "word P H", then
// "word(2) P H" for each alternative.
type Dictionary map[string][]string

// ReadDictionary reads a PocketSphinx/CMU dictionary. Comment lines (";;;"
// or "#") and blank lines are skipped; a line with an unknown phone is an
// error naming it.
func ReadDictionary(r io.Reader) (Dictionary, error) {
	d := Dictionary{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, ";;;") || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			return nil, fmt.Errorf("dictionary line %d: a word without phones", n)
		}
		word, _ := withoutVariantMark(fields[0])
		for _, p := range fields[1:] {
			if !Phones[p] {
				return nil, fmt.Errorf("dictionary line %d: unknown phone %q", n, p)
			}
		}
		d[word] = append(d[word], strings.Join(fields[1:], " "))
	}
	return d, sc.Err()
}

// withoutVariantMark reads an alternative pronunciation's WORD(N): only a
// trailing "(digits)" is the mark (the word itself may hold a parenthesis).
func withoutVariantMark(word string) (string, bool) {
	if i := strings.LastIndexByte(word, '('); i > 0 && strings.HasSuffix(word, ")") && isNumber(word[i+1:len(word)-1]) {
		return word[:i], true
	}
	return word, false
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Write writes the entries of words (all when words is nil), sorted.
func (d Dictionary) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	words := make([]string, 0, len(d))
	for word := range d {
		words = append(words, word)
	}
	slices.Sort(words)
	for _, word := range words {
		// A word that itself ends in "(digits)" is marked on every line, or
		// reading it back would take its first line for a variant.
		_, looksMarked := withoutVariantMark(word)
		for i, pron := range d[word] {
			if i == 0 && !looksMarked {
				fmt.Fprintf(bw, "%s %s\n", word, pron)
			} else {
				fmt.Fprintf(bw, "%s(%d) %s\n", word, i+1, pron)
			}
		}
	}
	return bw.Flush()
}

// Pronounce returns the pronunciations of words: the base dictionary's, and
// for the others letter-to-sound rules (flite's t2p, as the speech
// synthesizer would say them). Words neither can pronounce are returned
// as missing.
func Pronounce(ctx context.Context, words []string, base Dictionary) (Dictionary, []string, error) {
	out := Dictionary{}
	var unknown []string
	for _, w := range words {
		if p, ok := base[w]; ok {
			out[w] = p
		} else {
			unknown = append(unknown, w)
		}
	}
	if len(unknown) == 0 {
		return out, nil, nil
	}
	if _, err := exec.LookPath("t2p"); err != nil {
		return out, unknown, fmt.Errorf("%d words are not in the dictionary and flite's t2p is not installed to pronounce them", len(unknown))
	}
	var missing []string
	const batch = 200
	for i := 0; i < len(unknown); i += batch {
		chunk := unknown[i:min(i+batch, len(unknown))]
		prons, err := letterToSound(ctx, chunk)
		if err != nil {
			return out, nil, err
		}
		for j, w := range chunk {
			if prons[j] == "" {
				missing = append(missing, w)
			} else {
				out[w] = []string{prons[j]}
			}
		}
	}
	return out, missing, nil
}

// letterToSound runs t2p once over words separated by full stops: flite
// answers "pau" between them. If the pauses do not line up with the words
// (a word read as two), each word is asked alone.
func letterToSound(ctx context.Context, words []string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "t2p", strings.Join(words, ". ")+".").Output()
	if err != nil {
		return nil, fmt.Errorf("t2p: %w", err)
	}
	groups := strings.Split(strings.TrimSpace(string(out)), "pau")
	var prons []string
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" {
			prons = append(prons, g)
		}
	}
	if len(prons) != len(words) {
		if len(words) == 1 {
			return []string{cmuPhones(strings.Join(prons, " "))}, nil
		}
		all := make([]string, len(words))
		for i, w := range words {
			one, err := letterToSound(ctx, []string{w})
			if err != nil {
				return nil, err
			}
			all[i] = one[0]
		}
		return all, nil
	}
	for i, p := range prons {
		prons[i] = cmuPhones(p)
	}
	return prons, nil
}

// cmuPhones maps flite's phones to the CMU set: no stress digits, ax is
// AH and axr ER; "" when a phone has no CMU equivalent.
func cmuPhones(flite string) string {
	var out []string
	for _, p := range strings.Fields(flite) {
		p = strings.ToUpper(strings.TrimRight(p, "012"))
		switch p {
		case "AX":
			p = "AH"
		case "AXR":
			p = "ER"
		case "PAU":
			continue
		}
		if !Phones[p] {
			return ""
		}
		out = append(out, p)
	}
	return strings.Join(out, " ")
}
