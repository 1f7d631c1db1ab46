package reviews

import (
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// The current-result rule: a conversation's result sets are the machine's
// and each review; the newest set is the conversation's event; each
// model's current value is its value in the newest set that has one (a
// review of some models leaves the others as the machine found them); the
// older sets are its prior results, oldest first. /ModelResults,
// /Interactions, the receipts, the emitted items and the console all show
// results through Current.

// Models are the models a reader shows, in its order: a model's place is
// its index in IDs.
type Models struct {
	IDs  []string
	byID []placed // sorted by id
}

// placed is a named model and its place.
type placed struct {
	id    string
	place int
}

// Add names a model after the others; a model named twice keeps its first
// place.
func (m *Models) Add(id string) {
	at, named := m.search(id)
	if !named {
		m.byID = slices.Insert(m.byID, at, placed{id, len(m.IDs)})
		m.IDs = append(m.IDs, id)
	}
}

// Place is a model's place, ok false for a model not named.
func (m Models) Place(id string) (int, bool) {
	at, ok := m.search(id)
	if !ok {
		return 0, false
	}
	return m.byID[at].place, true
}

// search is where id is, or would be, in byID.
func (m Models) search(id string) (int, bool) {
	return slices.BinarySearchFunc(m.byID, id, func(p placed, id string) int { return strings.Compare(p.id, id) })
}

// placeAfter is Place for results that come in model id order (a page's
// current results do): the search goes on from where the result before
// it was found (from, an index of byID; next is the one to go on from).
// A result out of that order is searched for.
func (m Models) placeAfter(id string, from int) (place int, ok bool, next int) {
	for from < len(m.byID) && m.byID[from].id < id {
		from++
	}
	if from < len(m.byID) && m.byID[from].id == id {
		return m.byID[from].place, true, from + 1
	}
	place, ok = m.Place(id)
	return place, ok, from
}

// Value is a model's value in a result set; Set is false where the set
// has none.
type Value struct {
	Result   *bool   // a boolean classifier's result
	Text     *string // another's label
	Set      bool
	Reviewed bool // a person's answer, not the machine's
}

// Set is one set of results: the machine's, or a review.
type Set struct {
	EventType string
	EventTime time.Time
	Values    []Value // by model place
}

// Current is a conversation's results as every reader shows them: the
// newest set's event, each model's current value (by place) and the older
// sets.
type Current struct {
	Set
	Prior []Set
}

// CurrentOf applies the rule to a conversation that arrived at arrivedOn,
// with the machine's current results and the reviews recorded for it. A
// page's conversations are a large share of its time, so a set is a slice
// by model place, not a map.
func CurrentOf(arrivedOn time.Time, models Models, machine []results.ModelResult, reviews []catalog.Review) Current {
	var setsBuf [2]Set // the machine's and at most one review, nearly always
	sets := append(setsBuf[:0], Set{EventType: catalog.EventModelResults, EventTime: arrivedOn, Values: make([]Value, len(models.IDs))})
	from := 0
	for _, m := range machine {
		var k int
		var ok bool
		if k, ok, from = models.placeAfter(m.ModelID, from); ok {
			sets[0].Values[k] = Value{Set: true, Result: m.Result, Text: m.TextResult}
		}
		if m.EventTime.After(sets[0].EventTime) {
			sets[0].EventTime = m.EventTime
		}
	}
	for _, r := range reviews {
		set := Set{EventType: r.EventType, EventTime: r.EventTime, Values: make([]Value, len(models.IDs))}
		found := false
		for _, rr := range r.Results {
			if k, ok := models.Place(rr.ModelID); ok {
				set.Values[k], found = Value{Set: true, Result: rr.Result, Text: rr.TextResult, Reviewed: true}, true
			}
		}
		if found {
			sets = append(sets, set)
		}
	}
	slices.SortStableFunc(sets, func(a, b Set) int { return a.EventTime.Compare(b.EventTime) })
	cur := Current{Set: sets[len(sets)-1], Prior: slices.Clone(sets[:len(sets)-1])}
	if len(sets) > 1 { // the newest set's values, else an older one's
		cur.Values = slices.Clone(cur.Values)
		for k := range cur.Values {
			for i := len(sets) - 2; i >= 0 && !cur.Values[k].Set; i-- {
				cur.Values[k] = sets[i].Values[k]
			}
		}
	}
	return cur
}
