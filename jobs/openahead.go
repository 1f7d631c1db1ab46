package jobs

import (
	"context"
	"io"
	"sync"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// opensAhead is how many of a batch's uploads are opened before a worker
// takes them.
const opensAhead = 64

// openAheadBytes bounds the uploads opened ahead: small ones, whose whole
// body the bucket sends at once, and for which the round trip is most of
// the time. A large one (an archive, a call) is read for long after its
// open, and a connection opened long before its first read could be
// closed by the far end meanwhile.
const openAheadBytes = 256 << 10

// opensAheadOf tells whether an upload is opened ahead: a small one with
// a staged object.
func opensAheadOf(up catalog.Interaction) bool {
	return up.StagedKey != nil && up.FileSizeBytes <= openAheadBytes
}

// openAhead opens a batch's staged uploads before their turn. On an
// object store an open is a round trip before the first byte: a worker
// that opened its upload itself would wait for one at the start of every
// upload, which for small uploads (single chats) is most of their time.
// Only the opens go ahead, not the reads: an upload opened ahead holds a
// connection (or a file), not its bytes.
type openAhead struct {
	open   pipeline.Opener
	mu     sync.Mutex
	opened map[string]*opening
}

// opening is an open under way or done.
type opening struct {
	done chan struct{}
	rc   io.ReadCloser
	err  error
}

func newOpenAhead(open pipeline.Opener) *openAhead {
	return &openAhead{open: open, opened: map[string]*opening{}}
}

// start opens key in the background, for ctx (a reader opened for a
// context reads only while it lasts).
func (o *openAhead) start(ctx context.Context, key string) {
	op := &opening{done: make(chan struct{})}
	o.mu.Lock()
	o.opened[key] = op
	o.mu.Unlock()
	go func() {
		op.rc, op.err = o.open(ctx, key)
		close(op.done)
	}()
}

// take removes key's opening, if one was started.
func (o *openAhead) take(key string) (*opening, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	op, ok := o.opened[key]
	delete(o.opened, key)
	return op, ok
}

// Open is a pipeline.Opener: key's object as opened ahead, once; opened
// now when it was not (or is asked for again).
func (o *openAhead) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	op, ok := o.take(key)
	if !ok {
		return o.open(ctx, key)
	}
	select {
	case <-op.done:
		return op.rc, op.err
	case <-ctx.Done():
		op.close()
		return nil, ctx.Err()
	}
}

// drop closes key's object if it was opened ahead and never taken (its
// upload failed before reading it).
func (o *openAhead) drop(key string) {
	if op, ok := o.take(key); ok {
		op.close()
	}
}

// close closes the object once its open is done.
func (op *opening) close() {
	go func() {
		<-op.done
		if op.rc != nil {
			op.rc.Close()
		}
	}()
}
