package jobs

import "testing"

// The next batch claims as many uploads as the last ones' average fills
// BatchConversations with, rounded up to a whole number a worker, up to
// the queue's batch size.
func TestNextClaim(t *testing.T) {
	for _, c := range []struct{ batchSize, workers, claimed, convs, want int }{
		{200, 2, 2, 2, 200},                        // single chats: the whole batch size
		{200, 2, 2, 200, BatchConversations / 100}, // archives of 100 chats
		{200, 2, 1, 5 * BatchConversations, 2},     // archives larger than a batch: one a worker
		{200, 1, 1, 5 * BatchConversations, 1},     // … with one worker, one
		{200, 16, 3, BatchConversations, 16},       // archives that fill a batch in three: still one a worker
		{200, 16, 10, BatchConversations, 16},      // archives of 100 chats, more workers than a batch holds
		{4, 16, 4, 4, 4},                           // calls: their own batch size
		{200, 2, 3, 0, 200},                        // nothing processed (all failed): as many as allowed
		{200, 0, 1, 5 * BatchConversations, 1},     // no workers set: one
		{200, 2, 2, 600, 4},                        // archives of 300 chats, two workers: two each, not three in all
		{200, 3, 3, 900, 3},                        // … three workers: one each
		{200, 4, 4, 1200, 4},                       // … four workers: one each
		{200, 2, 3, 3 * 333, 4},                    // archives of 333 chats: two each
		{5, 2, 2, 4, 5},                            // never more than the batch size
	} {
		if got := nextClaim(c.batchSize, c.workers, c.claimed, c.convs); got != c.want {
			t.Errorf("nextClaim(%d, %d, %d, %d) = %d, want %d", c.batchSize, c.workers, c.claimed, c.convs, got, c.want)
		}
	}
}
