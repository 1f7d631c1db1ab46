package results

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// moved are the conversations whose interaction date a PATCH changed after
// their lake rows were written, for an interaction window: entering are
// in the window by the catalog's date but not by the lake's (the lake's
// rows cannot find them), leaving the reverse (verify drops their lake
// rows). nil for arrival windows.
type moved struct {
	entering []Conversation // in id order
	leaving  int
}

func (r *Reader) movedConversations(ctx context.Context, q PageQuery) (moved, error) {
	if !q.ByInteraction {
		return moved{}, nil
	}
	list, err := r.Conversations.MovedConversations(ctx, q.OrgID, q.AfterID, q.From, q.To)
	if err != nil {
		return moved{}, err
	}
	in := func(m catalog.MovedConversation) bool {
		return (q.NodeIDs == nil || m.HierarchyNodeID != nil && slices.Contains(q.NodeIDs, *m.HierarchyNodeID)) &&
			q.Scope.Allows(m.MediaType, m.HierarchyNodeID)
	}
	var out moved
	for _, m := range list {
		now, before := q.Window.holds(m.InteractionOn()), q.Window.holds(m.LakeInteractionOn)
		switch {
		case !in(m):
		case now && !before:
			out.entering = append(out.entering, Conversation{ID: m.ID, RunID: m.LakeRunID, Status: m.Status, ClientCallID: m.ClientCallID,
				ArrivedOn: m.ArrivedOn, InteractionDate: m.InteractionDate, HierarchyNodeID: m.HierarchyNodeID, MediaType: m.MediaType})
		case before && !now:
			out.leaving++
		}
	}
	return out, nil
}

// holds tells whether t is inside the window.
func (w Window) holds(t time.Time) bool { return !t.Before(w.From) && !t.After(w.To) }

// mergeEntering adds to a batch of lake rows, read up to next ("" when the
// lake has no more), the entering conversations up to there (those before
// the batch were merged into earlier ones), in id order, and returns the
// ones left for later batches.
func mergeEntering(rows []Conversation, entering []Conversation, next string) ([]Conversation, []Conversation) {
	n := 0
	for n < len(entering) && (next == "" || entering[n].ID <= next) {
		n++
	}
	if n == 0 {
		return rows, entering
	}
	rows = append(rows, entering[:n]...)
	slices.SortStableFunc(rows, func(a, b Conversation) int { return strings.Compare(a.ID, b.ID) })
	return rows, entering[n:]
}
