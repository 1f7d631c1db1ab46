package api

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// modelResultsPage is a full /ModelResults page: 1,000 conversations with
// the results of 20 models, one in a hundred reviewed.
func modelResultsPage() (modelSet, []results.Conversation, pageResults) {
	models := modelSet{names: map[string]string{}, index: map[string]int{}}
	for m := range 20 {
		id := fmt.Sprintf("0199a000-0000-7000-8000-%012d", m)
		models.index[id] = len(models.ids)
		models.ids = append(models.ids, id)
		models.names[id] = fmt.Sprintf("Model <%d> & co", m)
	}
	found := pageResults{machine: map[string][]results.ModelResult{}, reviews: map[string][]catalog.Review{}}
	at := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	var convs []results.Conversation
	for i := range 1000 {
		id := fmt.Sprintf("019a3000-0000-7000-8000-%012d", i)
		call := fmt.Sprintf("call-%d", i)
		convs = append(convs, results.Conversation{ID: id, ArrivedOn: at, ClientCallID: &call})
		for m, model := range models.ids {
			r := m%3 == 0
			found.machine[id] = append(found.machine[id], results.ModelResult{ModelID: model, Result: &r, EventTime: at.Add(time.Minute)})
		}
		if i%100 == 0 {
			r := true
			found.reviews[id] = []catalog.Review{{ConversationID: id, EventType: catalog.EventHumanReview, EventTime: at.Add(time.Hour),
				Results: []catalog.ReviewResult{{ModelID: models.ids[0], Result: &r}}}}
		}
	}
	return models, convs, found
}

// BenchmarkModelResultsPage: laying out a /ModelResults page and encoding
// it, beside encoding/json as the baseline.
func BenchmarkModelResultsPage(b *testing.B) {
	models, convs, found := modelResultsPage()
	b.Run("items", func(b *testing.B) {
		for b.Loop() {
			modelResultsItems(models, convs, found, nil, false)
		}
	})
	items := modelResultsItems(models, convs, found, nil, false)
	for _, enc := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"goccy-json", gojson.Marshal}, {"baseline-encoding-json", json.Marshal}} {
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
