package jobs

import "testing"

// The next batch claims as many uploads as the last ones' average fills
// BatchConversations with, between one and the queue's batch size.
func TestNextClaim(t *testing.T) {
	for _, c := range []struct{ batchSize, claimed, convs, want int }{
		{200, 2, 2, 200},                        // single chats: the whole batch size
		{200, 2, 200, BatchConversations / 100}, // archives of 100 chats
		{200, 1, 5 * BatchConversations, 1},     // one archive larger than a batch
		{4, 4, 4, 4},                            // calls: their own batch size
		{200, 3, 0, 200},                        // nothing processed (all failed): as many as allowed
	} {
		if got := nextClaim(c.batchSize, c.claimed, c.convs); got != c.want {
			t.Errorf("nextClaim(%d, %d, %d) = %d, want %d", c.batchSize, c.claimed, c.convs, got, c.want)
		}
	}
}
