package pipeline

import (
	"context"
	"sync"

	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/pipeline/chat"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// slot is one archive entry on its way to a chat record and its rows.
type slot struct {
	entry archive.Entry
	// child is the chat's record; one new to the archive (no earlier run
	// recorded it) has no id until its part is laid out (mintIDs).
	child catalog.Interaction
	// chat is the entry read, nil when it could not be: its rows are
	// laid out once its part is whole, in the part's own tables.
	chat *chat.Conversation
	part *part
}

// part is a run of an archive's chats in archive order, committed together.
type part struct {
	slots []*slot
	// parsed is done when every slot has its record and rows.
	parsed sync.WaitGroup
}

// mintingIDs keeps one part's ids minting from another's: ids are time
// ordered, and a part's new chats get theirs at once.
var mintingIDs sync.Mutex

// mintIDs gives the part's new chats their ids, at once: the parts of
// archives read side by side then hold runs of ids that do not overlap,
// and so do their lake files. Files whose ids overlap make one cluster of
// a day's figures, summed again from the lake at each commit that adds to
// it, where a part's own files are summed from its rows.
func (pt *part) mintIDs() {
	mintingIDs.Lock()
	defer mintingIDs.Unlock()
	for _, sl := range pt.slots {
		if sl.child.ID == "" {
			sl.child.ID = catalog.NewID()
		}
	}
}

// result is the part's records and rows, in archive order, its new chats
// given their ids.
func (pt *part) result(up catalog.Interaction, runID string) Result {
	pt.mintIDs()
	var nConvs, nSegs int
	for _, sl := range pt.slots {
		if sl.chat != nil {
			nConvs++
			nSegs += len(sl.chat.Messages)
		}
	}
	// Sized once: a part has tens of thousands of segments, laid out here
	// and not copied from each chat's own.
	res := Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusReadyToSample, Children: make([]catalog.Interaction, 0, len(pt.slots))}}
	res.Batch.Conversations = make([]lake.Conversation, 0, nConvs)
	res.Batch.Segments = make([]lake.Segment, 0, nSegs)
	for _, sl := range pt.slots {
		res.Outcome.Children = append(res.Outcome.Children, sl.child)
		if sl.chat != nil {
			appendChatRows(&res.Batch, sl.child, runID, sl.chat)
		}
	}
	return res
}

// partCommitter commits an archive's full parts in order, one at a time,
// while the reader goes on with the next: at most one part waits, so an
// archive holds the memory of about three parts whatever its size.
type partCommitter struct {
	queue  chan *part
	done   chan error
	handed int // parts handed over
}

// newPartCommitter starts committing the parts handed to it with commit;
// the first failure is passed to fail and the parts after it are dropped.
func newPartCommitter(ctx context.Context, up catalog.Interaction, runID string, commit Parts, fail context.CancelCauseFunc) *partCommitter {
	pc := &partCommitter{queue: make(chan *part, 1), done: make(chan error, 1)}
	go func() {
		var err error
		appends := false
		for pt := range pc.queue {
			pt.parsed.Wait()
			if err != nil {
				continue
			}
			part := pt.result(up, runID)
			part.Outcome.Partial, part.Outcome.Appends = true, appends
			if err = commit(ctx, part); err != nil {
				fail(err)
			}
			appends = true
		}
		pc.done <- err
	}()
	return pc
}

// hand queues a full part; it blocks while another one waits.
func (pc *partCommitter) hand(pt *part) {
	pc.handed++
	pc.queue <- pt
}

// wait waits until every handed part is committed, and tells the first
// failure.
func (pc *partCommitter) wait() error {
	close(pc.queue)
	return <-pc.done
}
