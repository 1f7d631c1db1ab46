package lm

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

var toy = []string{
	"i want to go to new york",
	"i want a table in new york",
	"book a table for two",
	"book a cab for two people",
	"find me a cat",
	"the cat sat",
	"my cat is hungry",
	"a cat and a dog",
	"new york new york",
	"i want to book a table",
}

func count(t *testing.T, sentences []string) *Counter {
	c := NewCounter()
	for _, s := range sentences {
		if err := c.Add(strings.Fields(s)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Every history's distribution, computed the way a decoder backs off
// through the ARPA tables, sums to one: with all trigrams and with the
// rare ones pruned.
func TestDistributionsSumToOne(t *testing.T) {
	for _, min := range []int64{0, 2} {
		m := count(t, toy).Build(Options{MinTrigramCount: min})
		next := append(m.words[1:], []string{}...) // every word but <s>
		for _, h := range [][]string{nil, {"<s>"}, {"a"}, {"new"}, {"york"}, {"<s>", "i"}, {"want", "to"}, {"a", "table"},
			{"new", "york"}, {"cat", "hungry"}, {"two", "people"}, {"zebra"}} {
			var sum float64
			for _, w := range next {
				sum += math.Pow(10, m.Prob(h, w))
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("min %d: p(· | %v) sums to %.9f", min, h, sum)
			}
		}
	}
}

// Kneser-Ney: a word's unigram probability follows how many different
// words it follows, not how often it occurs: "york" (4 times, always after
// "new") is less likely on its own than "cat" (4 times after 4 words).
func TestContinuationCounts(t *testing.T) {
	m := count(t, toy).Build(Options{})
	if york, cat := m.Prob(nil, "york"), m.Prob(nil, "cat"); york >= cat {
		t.Fatalf("p(york) %.3f ≥ p(cat) %.3f", york, cat)
	}
	if seen, unseen := m.Prob([]string{"new"}, "york"), m.Prob([]string{"the"}, "york"); seen <= unseen {
		t.Fatalf("p(york | new) %.3f ≤ p(york | the) %.3f", seen, unseen)
	}
	if got := m.Prob([]string{"a", "table"}, "in"); got < m.Prob([]string{"table"}, "in") || got < math.Log10(0.15) {
		t.Fatalf("p(in | a table) = %.3f", got)
	}
}

func TestPruneAndDrop(t *testing.T) {
	full := count(t, toy).Build(Options{})
	pruned := count(t, toy).Build(Options{MinTrigramCount: 2})
	if f, p := full.Sizes(), pruned.Sizes(); p[2] >= f[2] || p[1] != f[1] || p[2] == 0 {
		t.Fatalf("sizes full %v pruned %v", f, p)
	}
	c := count(t, toy)
	c.Drop(map[string]bool{"york": true, "<s>": true})
	m := c.Build(Options{})
	if _, ok := m.ids["york"]; ok {
		t.Fatal("york kept")
	}
	for k := range m.bi {
		a, b := split2(k)
		if m.words[a] == "york" || m.words[b] == "york" {
			t.Fatal("bigram with york kept")
		}
	}
	if m.Prob([]string{"<s>"}, "i") <= m.Prob(nil, "i") {
		t.Fatalf("p(i | <s>) = %.3f after drop", m.Prob([]string{"<s>"}, "i"))
	}
	if err := NewCounter().Add([]string{"a", "</s>"}); err == nil {
		t.Fatal("a sentence marker inside a sentence was counted")
	}
}

// The ARPA file lists as many n-grams as its header says, in sections, and
// every listed probability reads back as the model's.
func TestWriteARPA(t *testing.T) {
	m := count(t, toy).Build(Options{})
	var buf bytes.Buffer
	if err := m.WriteARPA(&buf); err != nil {
		t.Fatal(err)
	}
	declared := map[string]int{}
	listed := map[string]int{}
	section := ""
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ngram "):
			n, v, _ := strings.Cut(strings.TrimPrefix(line, "ngram "), "=")
			declared[n], _ = strconv.Atoi(v)
		case strings.HasPrefix(line, "\\") && strings.HasSuffix(line, "-grams:"):
			section = line[1:2]
		case line == "" || line == "\\end\\" || line == "\\data\\":
		default:
			fields := strings.Split(line, "\t")
			words := strings.Fields(fields[1])
			if strconv.Itoa(len(words)) != section {
				t.Fatalf("line %q in section %s", line, section)
			}
			p, _ := strconv.ParseFloat(fields[0], 64)
			if want := m.Prob(words[:len(words)-1], words[len(words)-1]); math.Abs(p-want) > 1e-5 && words[len(words)-1] != "<s>" {
				t.Fatalf("%q: %f, model %f", line, p, want)
			}
			listed[section]++
		}
	}
	for n, v := range declared {
		if listed[n] != v || v == 0 {
			t.Fatalf("order %s: declared %d, listed %d", n, v, listed[n])
		}
	}
}

func TestDictionary(t *testing.T) {
	d, err := ReadDictionary(strings.NewReader(";;; comment\nhello HH AH L OW\nhello(2) HH EH L OW\n\nread R IY D\n"))
	if err != nil || len(d["hello"]) != 2 || d["read"][0] != "R IY D" {
		t.Fatalf("%v %v", d, err)
	}
	for _, bad := range []string{"hello\n", "hello HH AX L OW\n"} {
		if _, err := ReadDictionary(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	var out bytes.Buffer
	d.Write(&out)
	if out.String() != "hello HH AH L OW\nhello(2) HH EH L OW\nread R IY D\n" {
		t.Fatalf("%q", out.String())
	}
	if got := cmuPhones("pau g aa1 ch iy axr ax"); got != "G AA CH IY ER AH" {
		t.Fatalf("cmuPhones %q", got)
	}
}

func TestPronounce(t *testing.T) {
	if _, err := exec.LookPath("t2p"); err != nil {
		t.Skip("flite's t2p not installed (make deps installs it)")
	}
	base := Dictionary{"table": {"T EY B AH L"}}
	d, missing, err := Pronounce(context.Background(), []string{"table", "gochi", "saratoga", "mccann's", "3rd"}, base)
	if err != nil || len(missing) != 0 {
		t.Fatalf("%v %v", missing, err)
	}
	want := map[string]string{"table": "T EY B AH L", "gochi": "G AA CH IY", "saratoga": "S EH R AH T OW G AH", "mccann's": "M AH K AE N Z", "3rd": "TH ER D"}
	for w, p := range want {
		if d[w][0] != p {
			t.Errorf("%s: %q, want %q", w, d[w], p)
		}
	}
}

func FuzzReadDictionary(f *testing.F) {
	f.Add("hello HH AH L OW\nhello(2) HH EH L OW\n")
	f.Add(";;; x\n\nword(  AA\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadDictionary(strings.NewReader(s))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		d.Write(&buf)
		again, err := ReadDictionary(&buf)
		if err != nil || len(again) != len(d) {
			t.Fatalf("round trip of %q: %v %v", s, again, err)
		}
	})
}

// Prob is log10 p(w | history) with backoff, as a decoder computes it
// from the ARPA file: the tests check the model through it (history: up to the two previous words).
func (m *Model) Prob(history []string, w string) float64 {
	wid, ok := m.ids[w]
	if !ok {
		return -99
	}
	var h []uint32
	for _, x := range history {
		id, ok := m.ids[x]
		if !ok {
			h = nil
			continue
		}
		h = append(h, id)
	}
	if len(h) > 2 {
		h = h[len(h)-2:]
	}
	return m.prob(h, wid)
}

func (m *Model) prob(h []uint32, w uint32) float64 {
	switch len(h) {
	case 2:
		if p, ok := m.tri[key3(h[0], h[1], w)]; ok {
			return p
		}
		return m.biBackoff[key2(h[0], h[1])] + m.prob(h[1:], w)
	case 1:
		if p, ok := m.bi[key2(h[0], w)]; ok {
			return p
		}
		return m.uniBackoff[h[0]] + m.uni[w]
	}
	return m.uni[w]
}
