package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/earshot/earshot/internal/app/reviews"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// modelResultsPage is a full /ModelResults page: 1,000 conversations with
// the results of 20 models, one in a hundred reviewed.
func modelResultsPage() (modelSet, []results.Conversation, reviews.Found) {
	models := modelSet{fields: map[string]*modelFields{}}
	for m := range 20 {
		id := fmt.Sprintf("0199a000-0000-7000-8000-%012d", m)
		models.fields[id] = newModelFields(id, fmt.Sprintf("Model <%d> & co", m))
		models.name(id)
	}
	found := reviews.Found{Machine: map[string][]results.ModelResult{}, Reviews: map[string][]catalog.Review{}}
	at := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	var convs []results.Conversation
	for i := range 1000 {
		id := fmt.Sprintf("019a3000-0000-7000-8000-%012d", i)
		call := fmt.Sprintf("call-%d", i)
		convs = append(convs, results.Conversation{ID: id, ArrivedOn: at, ClientCallID: &call})
		for m, model := range models.IDs {
			r := m%3 == 0
			found.Machine[id] = append(found.Machine[id], results.ModelResult{ModelID: model, Result: &r, EventTime: at.Add(time.Minute)})
		}
		if i%100 == 0 {
			r := true
			found.Reviews[id] = []catalog.Review{{ConversationID: id, EventType: catalog.EventHumanReview, EventTime: at.Add(time.Hour),
				Results: []catalog.ReviewResult{{ModelID: models.IDs[0], Result: &r}}}}
		}
	}
	return models, convs, found
}

// BenchmarkModelResultsPage: laying out a /ModelResults page and encoding
// it, beside goccy/go-json and encoding/json as baselines.
func BenchmarkModelResultsPage(b *testing.B) {
	models, convs, found := modelResultsPage()
	b.Run("items", func(b *testing.B) {
		for b.Loop() {
			modelResultsItems(models, convs, found, nil, false)
		}
	})
	items := modelResultsItems(models, convs, found, nil, false)
	var buf []byte
	for _, enc := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{
		{"appendJSON", func(any) ([]byte, error) { buf = appendPage(buf[:0], items); return buf, nil }}, // a reused buffer, as writePage's
		{"baseline-goccy-json", gojson.Marshal},
		{"baseline-encoding-json", json.Marshal},
	} {
		b.Run(enc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				body, _ := enc.marshal(items)
				size = len(body)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}

// jsonTexts are strings that take every path of appendJSONString.
var jsonTexts = []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
	"café ☕ 𝄞", "line\u2028para\u2029", "bad \xff\xfe utf-8 \xe2\x82", "end\xc3"}

// TestPageJSONMatchesEncodingJSON: a page written by the appenders is
// what encoding/json writes, for every field filled and empty.
func TestPageJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	models, convs, found := modelResultsPage()
	items := modelResultsItems(models, convs[:150], found, nil, true)
	text, yes, no := "a \"text\" <result>", true, false
	items = append(items,
		modelResultsItem{ID: "x", MediaStatus: &mediaStatus{Status: "NotProcessed"}}, // nil lists are null
		modelResultsItem{ID: "y", ModelResults: &[]modelResultView{{Result: &no, TextResult: &text}, {Result: &yes}}, // every result form
			PriorResults: []resultSetView{{EventType: "HumanReview"}, {ModelResults: []modelResultView{}}}})
	for i, s := range jsonTexts {
		s := s
		items = append(items, modelResultsItem{ID: s, ConversationID: s, ClientCallID: &s, EventType: s,
			EventTime: dates.Timestamp(time.Unix(int64(i)*86_399_999, int64(i)*1_234_567)), MediaStatus: &mediaStatus{Status: s, Reason: &s},
			ModelResults:    &[]modelResultView{{modelFields: newModelFields(s, s), TextResult: &s}},
			EmissionReceipt: &emissionReceipt{EventTime: dates.Timestamp(time.Unix(int64(i), 0)), AuthenticxReceiptID: &s, CustomerReceiptID: []*string{nil, &s}[i%2]}})
	}
	insights := []insightItem{{}, {ClassifierResults: []insightResult{}}}
	for _, s := range jsonTexts {
		s := s
		insights = append(insights, insightItem{ConversationID: s, ClientCallID: &s, ArrivedOn: dates.Timestamp(time.Date(2025, 10, 3, 21, 52, 26, 881e6, time.FixedZone("x", 3600))),
			Status: s, ClassifierResults: []insightResult{{insightClassifier: newInsightClassifier(s, s, s, s), Result: s, Reasoning: &s}, {}}})
	}
	// An Insights page writes its items' results ahead (insightLine).
	lines := make([]insightLine, len(insights))
	for i, it := range insights {
		lines[i] = insightLine{head: it, results: appendPage(nil, it.ClassifierResults)}
	}
	check := func(name string, got []byte, v any) {
		want, err := json.Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: appended\n%s\nencoding/json\n%s (%v)", name, got, want, err)
		}
	}
	check("ModelResults page", appendPage(nil, items), items)
	check("Insights page", appendPage(nil, lines), insights)
	for _, parts := range []int{1, 2, 3, 4, 7, len(items) - 1, len(items), len(items) + 1} { // written at once on a machine of many cores
		check(fmt.Sprintf("ModelResults page in %d parts", parts), sent(encodePage(items, parts)), items)
		check(fmt.Sprintf("Insights page in %d parts", parts), sent(encodePage(lines, parts)), insights)
		check(fmt.Sprintf("empty page in %d parts", parts), sent(encodePage([]insightLine{}, parts)), []insightItem{})
		check(fmt.Sprintf("nil page in %d parts", parts), sent(encodePage[insightLine](nil, parts)), []insightItem(nil))
	}
	check("empty page", appendPage(nil, []insightLine{}), []insightItem{})
	check("nil page", appendPage[insightLine](nil, nil), []insightItem(nil))
}

// sent is a page's JSON as its response sends it, its parts one after
// the other; its buffers are given back.
func sent(page pageJSON) []byte {
	defer page.giveBack()
	var out []byte
	for _, part := range page {
		out = append(out, *part...)
	}
	return out
}

// FuzzAppendJSONString holds appendJSONString to encoding/json on any
// text.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
	})
}

// TestInParts covers every item once, in order, in at most the parts
// asked for.
func TestInParts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, parts int }{{1, 1}, {1, 4}, {9, 4}, {10, 4}, {7, 3}, {1000, 4}, {5, 0}} {
		seen := make([]int, tt.n)
		ranges := make([][2]int, max(tt.parts, 1))
		inParts(tt.n, tt.parts, func(p, lo, hi int) {
			ranges[p] = [2]int{lo, hi}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Errorf("n %d parts %d: item %d seen %d times", tt.n, tt.parts, i, c)
			}
		}
		for p := 1; p < len(ranges); p++ {
			if ranges[p] != ([2]int{}) && ranges[p][0] != ranges[p-1][1] {
				t.Errorf("n %d parts %d: part %d %v after %v", tt.n, tt.parts, p, ranges[p], ranges[p-1])
			}
		}
	}
}

// TestPageLaidOutInPartsAsInOne lays a page out and writes it on a
// machine of many cores (in parts at once) as on one of few. It sets
// GOMAXPROCS, so it does not run in parallel with other tests.
func TestPageLaidOutInPartsAsInOne(t *testing.T) {
	models, convs, found := modelResultsPage()
	page := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		if parts := pageParts(len(convs)); parts != min(procs, maxPageParts) {
			t.Fatalf("%d cores: %d parts", procs, parts)
		}
		items := modelResultsItems(models, convs, found, nil, true)
		return sent(encodePage(items, pageParts(len(items))))
	}
	one, many := page(1), page(16)
	if !bytes.Equal(one, many) {
		t.Errorf("in parts: %d bytes, in one: %d bytes", len(many), len(one))
	}
	want, err := json.Marshal(modelResultsItems(models, convs, found, nil, true))
	if err != nil || !bytes.Equal(many, want) {
		t.Errorf("in parts: %d bytes, encoding/json: %d bytes (%v)", len(many), len(want), err)
	}
	// Items whose tails a fetch wrote ahead, in parts, then given other
	// ids and client call ids (as the catalog's check and the public ids
	// give them), write the page encoding/json writes.
	items := modelResultsItems(models, convs, found, nil, true)
	written := &writtenPages{}
	defer written.giveBack()
	for i, tail := range written.write(len(items), 3, func(dst []byte, i int) []byte { return items[i].appendTail(dst) }) {
		callID := "call " + items[i].ID
		items[i].tail, items[i].ID, items[i].ConversationID, items[i].ClientCallID = tail, "public "+items[i].ID, "public "+items[i].ID, &callID
	}
	ahead := sent(encodePage(items, 2))
	for i := range items {
		items[i].tail = nil
	}
	if want, err := json.Marshal(items); err != nil || !bytes.Equal(ahead, want) {
		t.Errorf("tails written ahead: %d bytes, encoding/json: %d bytes (%v)", len(ahead), len(want), err)
	}
}

// TestWrittenResults: results written ahead, in any number of parts, are
// each row's array as the item's own encoding writes it.
func TestWrittenResults(t *testing.T) {
	t.Parallel()
	classifiers := map[string]*insightClassifier{}
	var byRow [][]results.ClassifierResult
	for i, s := range append(jsonTexts, jsonTexts...) {
		s := s
		classifiers[s] = newInsightClassifier(s, "name "+s, "Classifier", "category")
		var row []results.ClassifierResult // the first row has none; results come in classifier id order
		for k, id := range slices.Sorted(slices.Values(jsonTexts))[:i%5] {
			row = append(row, results.ClassifierResult{ClassifierID: id, Result: s, Reasoning: []*string{nil, &s}[k%2]})
		}
		if i%3 == 2 { // a result of a classifier the page does not list
			row = append(row, results.ClassifierResult{ClassifierID: "\xff unlisted", Result: s})
		}
		byRow = append(byRow, row)
	}
	for _, parts := range []int{1, 2, 3, len(byRow)} {
		written := &writtenPages{}
		inOrder := classifiersInOrder(classifiers)
		got := written.write(len(byRow), parts, func(dst []byte, row int) []byte {
			return appendInsightResults(dst, byRow[row], inOrder)
		})
		for row, res := range byRow {
			want := make([]insightResult, 0, len(res))
			for _, r := range res {
				want = append(want, insightResult{insightClassifier: classifiers[r.ClassifierID], Result: r.Result, Reasoning: r.Reasoning})
			}
			wantJSON, _ := json.Marshal(want)
			if string(got[row]) != string(wantJSON) {
				t.Fatalf("%d parts, row %d: %s, want %s", parts, row, got[row], wantJSON)
			}
		}
		written.giveBack()
	}
}

// BenchmarkInsightsPageWrite: choosing and writing an Insights page's
// results (1,000 conversations, 20 classifiers) once they are read:
// written ahead by row (CurrentOfEach, writtenPages, insightLine) beside
// the baseline of the build before it, a map of current results by
// conversation, then items of result structs, then their JSON.
func BenchmarkInsightsPageWrite(b *testing.B) {
	classifiers := map[string]*insightClassifier{}
	var ids []string
	for k := range 20 {
		id := fmt.Sprintf("0199a000-0000-7000-8000-%012d", k)
		ids = append(ids, id)
		classifiers[id] = newInsightClassifier(id, fmt.Sprintf("Classifier %d", k), "Classifier", "Compliance")
	}
	at := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	var convs []results.Conversation
	newCandidates := func() *results.Candidates[results.ClassifierResult] { // of every conversation, in order
		cands := &results.Candidates[results.ClassifierResult]{}
		for _, cv := range convs {
			for _, id := range ids {
				cands.Add(cv.ID, cv.RunID, id, results.ClassifierResult{ClassifierID: id, Result: "Yes"})
			}
		}
		return cands
	}
	for i := range 1000 {
		call := fmt.Sprintf("call-%d", i)
		convs = append(convs, results.Conversation{ID: fmt.Sprintf("019a3000-0000-7000-8000-%012d", i), RunID: "run", ArrivedOn: at,
			ClientCallID: &call, Status: catalog.StatusReadyToSample})
	}
	cands := newCandidates() // in order: choosing from them leaves them as they are
	b.Run("written-ahead", func(b *testing.B) {
		for b.Loop() {
			written := &writtenPages{}
			byRow := written.insightResults(results.CurrentOfEach(cands, convs), classifiers)
			lines := make([]insightLine, len(convs))
			for i, row := range results.RowsOf(convs, convs) {
				lines[i] = insightLine{head: insightHeadOf(convs[i], convs[i].ID), results: byRow[row]}
			}
			encodePage(lines, pageParts(len(lines))).giveBack()
			written.giveBack()
		}
	})
	b.Run("baseline-map-and-items", func(b *testing.B) {
		for b.Loop() {
			found := map[string][]results.ClassifierResult{}
			res := cands.Current(results.Runs(convs))
			for _, cv := range convs {
				found[cv.ID] = res[cv.ID]
			}
			items := make([]insightItem, len(convs))
			for i, cv := range convs {
				item := insightHeadOf(cv, cv.ID)
				item.ClassifierResults = make([]insightResult, 0, len(found[cv.ID]))
				for _, r := range found[cv.ID] {
					item.ClassifierResults = append(item.ClassifierResults, insightResult{insightClassifier: classifiers[r.ClassifierID], Result: r.Result, Reasoning: r.Reasoning})
				}
				items[i] = item
			}
			encodePage(items, pageParts(len(items))).giveBack()
		}
	})
}

// appendJSON writes a whole Insights item from its result structs, as
// pages did before their results were written ahead (the baseline of
// BenchmarkInsightsPageWrite).
func (it insightItem) appendJSON(dst []byte) []byte {
	return append(appendPage(append(it.appendHead(dst), `,"classifierResults":`...), it.ClassifierResults), '}')
}
