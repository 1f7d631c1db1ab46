package catalog

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// Interactions newest first, page after page before a cursor, give the
// oldest-first list reversed; the count is every page's together.
func TestInteractionsNewestFirstAndCounted(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	var want []string
	for i := range 7 {
		it := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: fmt.Sprintf("%d.json", i),
			ArrivedOn: time.Now().UTC(), LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: time.Now().UTC()}
		if err := c.Interactions.CreateInteraction(ctx, it, false); err != nil {
			t.Fatal(err)
		}
		want = append(want, it.ID)
	}
	slices.Sort(want)
	slices.Reverse(want)
	var got []string
	f := InteractionFilter{Newest: true, Limit: 3}
	for {
		page, err := c.Interactions.Interactions(ctx, org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page {
			got = append(got, it.ID)
		}
		if len(page) < f.Limit {
			break
		}
		f.BeforeID = page[len(page)-1].ID
	}
	n, err := c.Interactions.CountInteractions(ctx, org.ID, InteractionFilter{Newest: true, BeforeID: want[0], Limit: 1})
	if !slices.Equal(got, want) || err != nil || n != 7 {
		t.Errorf("newest first: %v, want %v; counted %d (%v), want 7", got, want, n, err)
	}
}
