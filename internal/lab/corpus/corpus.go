// Package corpus reads the shared customer-service dialogue corpus
// (../shared/corpus: Schema-Guided Dialogue, one JSON dialogue a line,
// gzipped) for tests, benchmarks and the demo.
package corpus

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The two splits: tune and train on Train, measure on Dev.
const (
	Train = "sgd-train"
	Dev   = "sgd-dev"
)

// Turn is one utterance; Speaker is "agent" or "customer".
type Turn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// Participant is the speaker as Earshot names it: Agent or Customer.
func (t Turn) Participant() string {
	if t.Speaker == "agent" {
		return "Agent"
	}
	return "Customer"
}

// Dialogue is one conversation with its ground-truth topic labels.
type Dialogue struct {
	ID       string   `json:"dialogue_id"`
	Services []string `json:"services"`
	Intents  []string `json:"intents"`
	Turns    []Turn   `json:"turns"`
}

// Find locates a split (Train, Dev) as shared/corpus/SPLIT.jsonl.gz in the
// working directory or one of its parents, or under $EARSHOT_CORPUS_DIR; a
// split that names a file is that file.
func Find(split string) (string, error) {
	if strings.Contains(split, ".jsonl") {
		_, err := os.Stat(split)
		return split, err
	}
	name := split + ".jsonl.gz"
	if dir := os.Getenv("EARSHOT_CORPUS_DIR"); dir != "" {
		path := filepath.Join(dir, name)
		_, err := os.Stat(path)
		return path, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, "shared", "corpus", name)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("corpus %s not found in shared/corpus of this directory or its parents (set EARSHOT_CORPUS_DIR)", name)
		}
		dir = parent
	}
}

// Each calls fn for the dialogues of a JSONL file (gzipped when its name
// ends in .gz) in order, until fn returns false.
func Each(path string, fn func(Dialogue) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".gz") {
		return each(f, path, fn)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return each(gz, path, fn)
}

func each(r io.Reader, path string, fn func(Dialogue) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var d Dialogue
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if !fn(d) {
			return nil
		}
	}
	return sc.Err()
}

// Read returns the first n dialogues of a split (all when n ≤ 0).
func Read(split string, n int) ([]Dialogue, error) {
	path, err := Find(split)
	if err != nil {
		return nil, err
	}
	var out []Dialogue
	err = Each(path, func(d Dialogue) bool {
		out = append(out, d)
		return n <= 0 || len(out) < n
	})
	return out, err
}

// AcrossServices picks n dialogues spread over the services: a service at
// a time in name order (a dialogue counts for its first service), each
// service's dialogues in an order the seed shuffles, until n are picked or
// none are left.
func AcrossServices(dialogues []Dialogue, n int, seed uint64) []Dialogue {
	byService := map[string][]Dialogue{}
	for _, d := range dialogues {
		if len(d.Services) > 0 {
			byService[d.Services[0]] = append(byService[d.Services[0]], d)
		}
	}
	services := make([]string, 0, len(byService))
	for s := range byService {
		services = append(services, s)
	}
	slices.Sort(services)
	r := rand.New(rand.NewPCG(seed, seed))
	for _, s := range services {
		list := byService[s]
		r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	}
	var out []Dialogue
	for round := 0; len(out) < n; round++ {
		picked := false
		for _, s := range services {
			if round < len(byService[s]) && len(out) < n {
				out = append(out, byService[s][round])
				picked = true
			}
		}
		if !picked {
			break
		}
	}
	return out
}
