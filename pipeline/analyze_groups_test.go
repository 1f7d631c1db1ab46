package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/cores"
	"github.com/earshot/earshot/internal/sidebyside"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/llm"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

type starterClassifiers []catalog.Classifier

func (s starterClassifiers) Classifiers(context.Context, string, catalog.ClassifierFilter) ([]catalog.Classifier, error) {
	return s, nil
}

type noHierarchy struct{}

func (noHierarchy) Hierarchy(context.Context, string) (*catalog.Tree, error) { return nil, nil }

type redacting bool

func (r redacting) PrivacySettings(_ context.Context, org string) (catalog.PrivacySettings, error) {
	return catalog.PrivacySettings{OrgID: org, RedactPII: bool(r)}, nil
}

// analyzedBatch is a batch of n conversations, some with a card number,
// analyzed with the starter classifiers in ctx.
func analyzedBatch(t *testing.T, ctx context.Context, n int) lake.Batch {
	t.Helper()
	specs, err := starter.Parse(starter.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var list starterClassifiers
	for i, s := range specs {
		list = append(list, catalog.Classifier{ID: fmt.Sprintf("c%02d", i), Name: s.Name, Type: s.ClassifierType, CategoryName: s.CategoryName, Version: 1, Definition: s.Definition})
	}
	a := &Analyzer{Classifiers: list, Hierarchy: noHierarchy{}, Privacy: redacting(true), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	at := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var b lake.Batch
	for i := range n {
		id := fmt.Sprintf("conv-%03d", i)
		b.Conversations = append(b.Conversations, lake.Conversation{ID: id, RunID: "run", OrgID: "org", ArrivedOn: at})
		texts := []string{"Thank you for calling, my name is Sam.", "I want to cancel my subscription, this is awful."}
		if i%3 == 0 {
			texts = append(texts, fmt.Sprintf("My card is 4111 1111 1111 %04d.", 1111+i))
		}
		for k, text := range texts {
			b.Segments = append(b.Segments, lake.Segment{ConversationID: id, RunID: "run", OrgID: "org", ArrivedOn: at, Index: int32(k),
				Speaker: []string{"Agent", "Customer"}[k%2], StartMs: int64(k) * 1000, EndMs: int64(k+1) * 1000, Text: text})
		}
	}
	if failed, err := a.Analyze(ctx, &b); err != nil || failed != 0 {
		t.Fatalf("%d failed, %v", failed, err)
	}
	return b
}

// TestAnalyzeInGroupsAsInOrder classifies a batch's conversations in
// groups at once on several cores and gets what one core gets: every
// conversation's results, in the conversations' order, and its turns
// redacted.
func TestAnalyzeInGroupsAsInOrder(t *testing.T) {
	t.Parallel()
	n := 5*groupConversations + 3
	one := analyzedBatch(t, cores.With(context.Background(), cores.New(1)), n)
	many := analyzedBatch(t, cores.With(context.Background(), cores.New(8)), n)
	if len(one.ClassifierResults) < n || len(one.ModelResults) != len(one.ClassifierResults) {
		t.Fatalf("%d classifier results, %d model results for %d conversations", len(one.ClassifierResults), len(one.ModelResults), n)
	}
	at := 0
	for i, c := range one.Conversations { // in the conversations' order
		for at < len(one.ClassifierResults) && one.ClassifierResults[at].ConversationID == c.ID {
			at++
		}
		if at == 0 || one.ClassifierResults[at-1].ConversationID != c.ID {
			t.Fatalf("conversation %d (%s) has no results where its turn comes", i, c.ID)
		}
	}
	if at != len(one.ClassifierResults) {
		t.Errorf("results out of the conversations' order from %d", at)
	}
	for i := range many.ModelResults { // the moment each batch was classified
		many.ModelResults[i].EventTime = one.ModelResults[min(i, len(one.ModelResults)-1)].EventTime
	}
	if !reflect.DeepEqual(one.ClassifierResults, many.ClassifierResults) || !reflect.DeepEqual(one.ModelResults, many.ModelResults) {
		t.Error("results classified in groups on eight cores differ from those on one")
	}
	if !reflect.DeepEqual(one.Segments, many.Segments) {
		t.Error("turns redacted in groups differ from those redacted on one core")
	}
	if text := many.Segments[2].Text; text == "My card is 4111 1111 1111 1111." {
		t.Errorf("card not redacted: %q", text)
	}
}

// TestCloseUp closes up the places failed classifiers left: each
// conversation's rows follow the ones before, in order, and nothing is
// left after them.
func TestCloseUp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		rows    []string
		base    int
		places  []int
		written []int
		want    []string
	}{
		{"none failed", []string{"a1", "a2", "b1", "b2"}, 0, []int{0, 2, 4}, []int{2, 2}, []string{"a1", "a2", "b1", "b2"}},
		{"one failed", []string{"a1", "", "b1", "b2"}, 0, []int{0, 2, 4}, []int{1, 2}, []string{"a1", "b1", "b2"}},
		{"all of one failed", []string{"", "", "b1", "", "c1", "c2"}, 0, []int{0, 2, 4, 6}, []int{0, 1, 2}, []string{"b1", "c1", "c2"}},
		{"after rows already there", []string{"x", "a1", "", "b1", ""}, 1, []int{0, 2, 4}, []int{1, 1}, []string{"x", "a1", "b1"}},
		{"every one failed", []string{"x", "", ""}, 1, []int{0, 1, 2}, []int{0, 0}, []string{"x"}},
	} {
		rows := slices.Clone(tt.rows)
		got := closeUp(rows, tt.base, tt.places, tt.written)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		for i, r := range rows[len(got):] {
			if r != "" {
				t.Errorf("%s: place %d left holding %q", tt.name, len(got)+i, r)
			}
		}
	}
}

// TestAnalyzeOverlapsNetworkWaits: a set with an LLM classifier has every
// group of a batch classified at once, whatever the job's cores, so that
// the calls' waits overlap. The model's server answers no call until
// four are in flight together (the endpoint's calls at once for an
// organization); one group at a time would never open it.
func TestAnalyzeOverlapsNetworkWaits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const together = 4
	gate := sidebyside.NewGate(0, together)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := gate.Wait(ctx); err != nil {
			http.Error(w, "the calls came one at a time", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant",
			"content": `{"result":"churn","reasoning":"asked to cancel"}`}}}})
	}))
	defer srv.Close()
	engines := llm.New(llm.Endpoint{BaseURL: srv.URL + "/v1", Model: "m", Concurrency: together})
	list := starterClassifiers{{ID: "llm", Name: "Churn", Type: analysis.TypeLLM, Version: 1,
		Definition: []byte(`{"prompt":"Will the customer leave?","labels":["churn","stay"]}`)}}
	a := &Analyzer{Classifiers: list, Hierarchy: noHierarchy{}, Privacy: redacting(false), Compiler: registry.Compiler{LLM: engines},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var b lake.Batch
	for i := range together * groupConversations {
		id := fmt.Sprintf("conv-%03d", i)
		b.Conversations = append(b.Conversations, lake.Conversation{ID: id, RunID: "run", OrgID: "org"})
		b.Segments = append(b.Segments, lake.Segment{ConversationID: id, RunID: "run", OrgID: "org", Speaker: "Customer", Text: "I want to cancel."})
	}
	failed, err := a.Analyze(cores.With(ctx, cores.New(1)), &b)
	if err != nil || failed != 0 || len(b.ClassifierResults) != len(b.Conversations) {
		t.Fatalf("%d results for %d conversations, %d failed: %v", len(b.ClassifierResults), len(b.Conversations), failed, err)
	}
}
