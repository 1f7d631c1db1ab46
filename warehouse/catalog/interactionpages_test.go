package catalog

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInteractionPagesOfAWindow: pages of an arrival window, walked either
// way from any cursor, with and without filters, list what a filter of
// every record in Go lists — whether the ids after the cursor hold the page
// (their arrivals follow their ids, as they nearly always do) or not (ids
// and arrivals shuffled).
func TestInteractionPagesOfAWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "other")
	rng := rand.New(rand.NewPCG(7, 43))
	start := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	statuses := []string{StatusReadyToSample, StatusSampled, StatusFailedToProcess}
	var all []Interaction
	var rows [][]any
	for i := range 3000 {
		arrived := start.Add(time.Duration(i) * time.Minute) // in id order
		if i%3 == 0 {
			arrived = start.Add(time.Duration(rng.IntN(3000)) * time.Minute) // out of it
		}
		it := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: statuses[rng.IntN(len(statuses))], FileName: NewID(),
			ArrivedOn: arrived, LocaleID: 1033, Source: "file"}
		if i%10 == 0 {
			it.OrgID = other.ID
		}
		all = append(all, it)
		rows = append(rows, interactionRow(it, start, nil))
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	at := func(minute int) *time.Time { t := start.Add(time.Duration(minute) * time.Minute); return &t }
	for round := range 300 {
		from, to := at(rng.IntN(3000)), at(rng.IntN(3000))
		if from.After(*to) {
			from, to = to, from
		}
		f := InteractionFilter{ArrivedFrom: from, ArrivedTo: to, Limit: 1 + rng.IntN(60), Newest: round%2 == 1}
		if round%3 == 0 {
			f.Status = statuses[rng.IntN(len(statuses))]
		}
		if round%5 == 0 {
			f.ArrivedTo = nil
		}
		var want []Interaction
		for _, it := range all {
			if it.OrgID == org.ID && !it.ArrivedOn.Before(*f.ArrivedFrom) && (f.ArrivedTo == nil || !it.ArrivedOn.After(*f.ArrivedTo)) &&
				(f.Status == "" || it.Status == f.Status) {
				want = append(want, it)
			}
		}
		slices.SortFunc(want, func(a, b Interaction) int { return strings.Compare(a.ID, b.ID) })
		if f.Newest {
			slices.Reverse(want)
		}
		// Walk every page from the first.
		var got []string
		for page := 0; ; page++ {
			its, err := c.Interactions.Interactions(ctx, org.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range its {
				got = append(got, it.ID)
			}
			if len(its) < f.Limit || page > len(want) {
				break
			}
			if f.Newest {
				f.BeforeID = its[len(its)-1].ID
			} else {
				f.AfterID = its[len(its)-1].ID
			}
		}
		if !slices.Equal(got, InteractionIDs(want)) {
			t.Fatalf("round %d (%+v): %d listed, want %d", round, f, len(got), len(want))
		}
	}
}
