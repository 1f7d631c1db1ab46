package lm

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/earshot/earshot/pipeline/asr/spoken"
)

// Stats describe a training run.
type Stats struct {
	Sentences, Words int64
	Vocabulary       int
	// FromDictionary words had a base-dictionary pronunciation,
	// LetterToSound ones were pronounced by rule; Dropped ones had none
	// and were left out.
	FromDictionary, LetterToSound, Dropped int
	Sizes                                  [3]int
}

// Trainer counts training text, then builds a model and its dictionary.
type Trainer struct {
	counter   *Counter
	sentences int64
}

// NewTrainer starts an empty training run.
func NewTrainer() *Trainer { return &Trainer{counter: NewCounter()} }

// AddText counts a piece of text (a turn, a line), one sentence per
// sentence-ending mark (. ? !), in spoken form: a recognizer starts a new
// utterance at pauses, which fall at sentence ends.
func (t *Trainer) AddText(text string) error {
	for _, sentence := range sentences(text) {
		words := spoken.Words(sentence)
		if len(words) == 0 {
			continue
		}
		if err := t.counter.Add(words); err != nil {
			return err
		}
		t.sentences++
	}
	return nil
}

func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if r == '.' || r == '?' || r == '!' {
			// A full stop between digits ("2.5") is not an end.
			if r == '.' && i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1]) {
				continue
			}
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	return append(out, text[start:])
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// AddFile counts a training file: plain text (one utterance or more a
// line), or JSON lines of dialogues ({"turns":[{"text":...}]}, the shared
// corpus format) or of texts ({"text":...}); gzipped when named .gz.
func (t *Trainer) AddFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	name := path
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		r, name = gz, strings.TrimSuffix(name, ".gz")
	}
	jsonLines := strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".ndjson")
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if !jsonLines {
			if err := t.AddText(sc.Text()); err != nil {
				return fmt.Errorf("%s line %d: %w", path, n, err)
			}
			continue
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec struct {
			Text  string `json:"text"`
			Turns []struct {
				Text string `json:"text"`
			} `json:"turns"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
		texts := []string{rec.Text}
		for _, turn := range rec.Turns {
			texts = append(texts, turn.Text)
		}
		for _, text := range texts {
			if err := t.AddText(text); err != nil {
				return fmt.Errorf("%s line %d: %w", path, n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Build pronounces the vocabulary (base dictionary, then letter-to-sound),
// leaves out the words with no pronunciation, and smooths the counts.
func (t *Trainer) Build(ctx context.Context, base Dictionary, opt Options) (*Model, Dictionary, Stats, error) {
	stats := Stats{Sentences: t.sentences, Words: t.counter.Tokens - t.sentences, Vocabulary: len(t.counter.Vocabulary())}
	if t.sentences == 0 {
		return nil, nil, stats, fmt.Errorf("no training text")
	}
	vocab := t.counter.Vocabulary()
	dict, missing, err := Pronounce(ctx, vocab, base)
	if err != nil {
		return nil, nil, stats, err
	}
	for _, w := range vocab {
		if _, ok := base[w]; ok {
			stats.FromDictionary++
		}
	}
	stats.Dropped = len(missing)
	stats.LetterToSound = len(vocab) - stats.FromDictionary - stats.Dropped
	drop := map[string]bool{}
	for _, w := range missing {
		drop[w] = true
	}
	t.counter.Drop(drop)
	m := t.counter.Build(opt)
	stats.Sizes = m.Sizes()
	return m, dict, stats, nil
}
