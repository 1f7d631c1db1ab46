package lake

import (
	"cmp"
	"fmt"
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

func segs(spec string) []Segment {
	var out []Segment
	for _, f := range strings.Fields(spec) {
		var idx int32
		fmt.Sscanf(f[1:], "%d", &idx)
		out = append(out, Segment{ConversationID: f[:1], Index: idx})
	}
	return out
}

func segString(rows []Segment) string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s%d", r.ConversationID, r.Index))
	}
	return strings.Join(out, " ")
}

// Batches whose ids interleave are merged into conversation order, each
// conversation's rows kept in their order; a batch out of conversation
// order has the batches joined as they come, for the writer to sort.
func TestMergeOrdersConversations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		batches []string
		want    string
	}{
		{"one batch is itself", []string{"c0 a0 a1"}, "c0 a0 a1"},
		{"interleaved ids", []string{"a0 a1 c0 c1 c2", "b0 d0 d1"}, "a0 a1 b0 c0 c1 c2 d0 d1"},
		{"an empty batch", []string{"b0", "", "a0 a1"}, "a0 a1 b0"},
		{"a conversation split in one batch", []string{"a0 b0 a1", "c0"}, "a0 b0 a1 c0"},
		{"a conversation in two batches", []string{"b0 a0", "a1"}, "b0 a0 a1"},
		{"a conversation in two ordered batches", []string{"a0 b0", "b1 c0"}, "a0 b0 b1 c0"},
		{"three batches, one ordered differently", []string{"a0 d0", "c0 b0", "e0"}, "a0 d0 c0 b0 e0"},
		{"many short runs", []string{"a0 d0 d1 g0", "b0 e0 h0 h1", "c0 f0 f1 f2 i0"}, "a0 b0 c0 d0 d1 e0 f0 f1 f2 g0 h0 h1 i0"},
	} {
		var batches []Batch
		for _, b := range c.batches {
			batches = append(batches, Batch{Segments: segs(b)})
		}
		got := Merge(batches)
		if s := segString(got.Segments); s != c.want {
			t.Errorf("%s: %q, want %q", c.name, s, c.want)
		}
		if len(got.Conversations) != 0 || len(got.ClassifierResults) != 0 || len(got.ModelResults) != 0 {
			t.Errorf("%s: rows of other tables appeared: %+v", c.name, got)
		}
	}
}

// Every table is merged; the rows are copies, so the merged batch does not
// share the inputs' arrays.
func TestMergeEveryTable(t *testing.T) {
	t.Parallel()
	a := Batch{Conversations: []Conversation{{ID: "b"}}, Segments: segs("b0"), ClassifierResults: []ClassifierResult{{ConversationID: "b", ClassifierID: "x"}},
		ModelResults: []ModelResult{{ConversationID: "b"}}}
	b := Batch{Conversations: []Conversation{{ID: "a"}}, Segments: segs("a0"), ClassifierResults: []ClassifierResult{{ConversationID: "a", ClassifierID: "y"}},
		ModelResults: []ModelResult{{ConversationID: "a"}}}
	got := Merge([]Batch{a, b})
	if got.Conversations[0].ID != "a" || got.Segments[0].ConversationID != "a" || got.ClassifierResults[0].ConversationID != "a" ||
		got.ModelResults[0].ConversationID != "a" || got.Rows() != 8 {
		t.Fatalf("merged %+v", got)
	}
	got.Segments[0].Text = "changed"
	if b.Segments[0].Text != "" {
		t.Error("the merged batch shares its rows with an input")
	}
}

// mergeInput is k batches of chats conversations of segments rows each,
// whose ids interleave as those of uploads processed side by side do.
func mergeInput(k, chats, segments int) []Batch {
	batches := make([]Batch, k)
	for c := range chats {
		for b := range batches {
			id := catalog.NewID()
			batches[b].Conversations = append(batches[b].Conversations, Conversation{ID: id})
			for s := range segments {
				batches[b].Segments = append(batches[b].Segments, Segment{ConversationID: id, Index: int32(s), Text: fmt.Sprint(c)})
			}
		}
	}
	return batches
}

// BenchmarkMerge: an ingest batch's rows of 3 and of 16 uploads (300
// chats of 15 messages each) put in conversation order, beside the
// baseline of joining them and sorting the rows as the writer would
// without Merge.
func BenchmarkMerge(b *testing.B) {
	for _, k := range []int{3, 16} {
		batches := mergeInput(k, 300, 15)
		b.Run(fmt.Sprintf("uploads-%d", k), func(b *testing.B) {
			for b.Loop() {
				Merge(batches)
			}
		})
		b.Run(fmt.Sprintf("baseline-joined-and-sorted-%d", k), func(b *testing.B) {
			for b.Loop() {
				var segments []Segment
				for i := range batches {
					segments = append(segments, batches[i].Segments...)
				}
				sortRows(segments, func(a, b *Segment) int {
					return cmp.Or(strings.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Index, b.Index))
				})
			}
		})
	}
}
