package reviews

import (
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// TestCurrentRule: the newest set is the event; each model's value comes
// from the newest set that has one; older sets are prior, oldest first.
func TestCurrentRule(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	yes := true
	label := "Billing"
	var models Models
	for _, id := range []string{"a", "b", "c", "a"} {
		models.Add(id)
	}
	machine := []results.ModelResult{{ModelID: "a", Result: &yes, EventTime: at.Add(time.Minute)},
		{ModelID: "b", TextResult: &label, EventTime: at.Add(2 * time.Minute)}, {ModelID: "z", Result: &yes, EventTime: at}}
	review := func(event string, minutes int, model string, v bool) catalog.Review {
		return catalog.Review{EventType: event, EventTime: at.Add(time.Duration(minutes) * time.Minute),
			Results: []catalog.ReviewResult{{ModelID: model, Result: &v}}}
	}
	type want struct {
		event   string
		minutes int
		values  string // per place: y, n, label, or - for none; R marks a person's
		prior   []string
	}
	for _, tc := range []struct {
		name    string
		machine []results.ModelResult
		reviews []catalog.Review
		want    want
	}{
		{"machine only", machine, nil, want{catalog.EventModelResults, 2, "y Billing -", nil}},
		{"machine out of model order", []results.ModelResult{machine[2], machine[1], machine[0]}, nil, want{catalog.EventModelResults, 2, "y Billing -", nil}},
		{"nothing yet", nil, nil, want{catalog.EventModelResults, 0, "- - -", nil}},
		{"a review of one model keeps the others", machine, []catalog.Review{review(catalog.EventHumanReview, 10, "a", false)},
			want{catalog.EventHumanReview, 10, "nR Billing -", []string{catalog.EventModelResults}}},
		{"an older review is prior", machine, []catalog.Review{review(catalog.EventHumanReview, 1, "a", false)},
			want{catalog.EventModelResults, 2, "y Billing -", []string{catalog.EventHumanReview}}},
		{"two reviews, the newest wins", machine, []catalog.Review{review(catalog.EventQualityControl, 20, "a", true), review(catalog.EventHumanReview, 10, "a", false)},
			want{catalog.EventQualityControl, 20, "yR Billing -", []string{catalog.EventModelResults, catalog.EventHumanReview}}},
		{"a review of another model is no set", machine, []catalog.Review{review(catalog.EventHumanReview, 10, "z", false)},
			want{catalog.EventModelResults, 2, "y Billing -", nil}},
		{"a review of a model the machine has not answered", machine, []catalog.Review{review(catalog.EventHumanReview, 10, "c", true)},
			want{catalog.EventHumanReview, 10, "y Billing yR", []string{catalog.EventModelResults}}},
	} {
		cur := CurrentOf(at, models, tc.machine, tc.reviews)
		var got string
		for k, v := range cur.Values {
			if k > 0 {
				got += " "
			}
			switch {
			case !v.Set:
				got += "-"
			case v.Result != nil && *v.Result:
				got += "y"
			case v.Result != nil:
				got += "n"
			default:
				got += *v.Text
			}
			if v.Reviewed {
				got += "R"
			}
		}
		var prior []string
		for _, p := range cur.Prior {
			prior = append(prior, p.EventType)
		}
		if cur.EventType != tc.want.event || !cur.EventTime.Equal(at.Add(time.Duration(tc.want.minutes)*time.Minute)) || got != tc.want.values ||
			len(prior) != len(tc.want.prior) {
			t.Errorf("%s: got %s at +%v, %q, prior %v; want %+v", tc.name, cur.EventType, cur.EventTime.Sub(at), got, prior, tc.want)
			continue
		}
		for i := range prior {
			if prior[i] != tc.want.prior[i] {
				t.Errorf("%s: prior %v, want %v", tc.name, prior, tc.want.prior)
			}
		}
	}
}

// A model's place is where the reader named it, whatever the order of
// their ids, and results in id order or out of it land in their places.
func TestPlacesByNamingOrder(t *testing.T) {
	t.Parallel()
	var models Models
	for _, id := range []string{"m3", "m1", "m4", "m2", "m1"} {
		models.Add(id)
	}
	at := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	result := func(id string) results.ModelResult {
		label := id
		return results.ModelResult{ModelID: id, TextResult: &label, EventTime: at}
	}
	for _, order := range [][]string{{"m1", "m2", "m3", "m4"}, {"m4", "m2", "m1", "m3"}, {"m0", "m2", "m5", "m3"}, {"m2", "m2", "m9", "m1"}} {
		var machine []results.ModelResult
		for _, id := range order {
			machine = append(machine, result(id))
		}
		want := map[string]bool{}
		for _, id := range order {
			want[id] = true
		}
		cur := CurrentOf(at, models, machine, nil)
		for k, id := range models.IDs {
			v := cur.Values[k]
			if v.Set != want[id] || v.Set && *v.Text != id {
				t.Errorf("results %v: place %d (%s) holds %+v", order, k, id, v)
			}
		}
	}
}
