package results

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// statesRecorder is a catalog that knows every conversation as processed
// in its run, and counts its reads.
type statesRecorder struct {
	reads atomic.Int32
	read  chan struct{} // closed at the first read
}

func (s *statesRecorder) ConversationStates(_ context.Context, _ string, ids []string, _ bool) (map[string]catalog.ConversationState, error) {
	if s.reads.Add(1) == 1 {
		close(s.read)
	}
	out := map[string]catalog.ConversationState{}
	for _, id := range ids {
		out[id] = catalog.ConversationState{Status: catalog.StatusReadyToSample, LakeRunID: sql.NullString{String: "run-1", Valid: true}}
	}
	return out, nil
}

func (s *statesRecorder) MovedConversations(context.Context, string, string, time.Time, time.Time) ([]catalog.MovedConversation, error) {
	return nil, nil
}

func (s *statesRecorder) CurrentRuns(context.Context, string, []string) (map[string]string, error) {
	return nil, nil
}

// A batch's catalog check waits while DuckDB executes the fetch's lake
// query, and runs beside the hand-over of its result: the fetch here
// returns only once the catalog has been read, so a check that waited for
// the fetch to end would never finish.
func TestCheckRunsOnceTheLakeQueryExecuted(t *testing.T) {
	rows := []Conversation{{ID: "a", RunID: "run-1"}, {ID: "b", RunID: "run-1"}}
	for _, tc := range []struct {
		name  string
		fetch func(states *statesRecorder, executing <-chan struct{}) Fetch
		err   error
	}{
		{"a lake query", func(states *statesRecorder, executing <-chan struct{}) Fetch {
			return func(ctx context.Context, _ []Conversation) (Keep, error) {
				<-executing
				executedHook(ctx)() // as readCandidates calls it at the result's first batch
				<-states.read       // the hand-over goes on while the catalog is read
				return nil, nil
			}
		}, nil},
		{"no lake query", func(_ *statesRecorder, executing <-chan struct{}) Fetch {
			return func(context.Context, []Conversation) (Keep, error) {
				<-executing
				return nil, nil
			}
		}, nil},
		{"a failed fetch", func(_ *statesRecorder, executing <-chan struct{}) Fetch {
			return func(context.Context, []Conversation) (Keep, error) {
				<-executing
				return nil, errors.New("the lake is gone")
			}
		}, errors.New("the lake is gone")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				states := &statesRecorder{read: make(chan struct{})}
				r := &Reader{Conversations: states}
				executing := make(chan struct{})
				var got []Conversation
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					got, err = r.checkAndFetch(t.Context(), PageQuery{OrgID: "org"}, rows, tc.fetch(states, executing))
				}()
				synctest.Wait() // every goroutine is blocked: the fetch's query is executing
				if n := states.reads.Load(); n != 0 {
					t.Fatalf("the catalog was read %d times while the lake query executed", n)
				}
				close(executing)
				<-done
				if tc.err != nil {
					if err == nil || err.Error() != tc.err.Error() {
						t.Fatalf("err = %v, want %v", err, tc.err)
					}
					return
				}
				if err != nil || len(got) != len(rows) || states.reads.Load() != 1 {
					t.Fatalf("got %v, %v after %d catalog reads; want both rows after one", got, err, states.reads.Load())
				}
			})
		})
	}
}

// Without a fetch the check runs at once.
func TestCheckWithoutAFetch(t *testing.T) {
	states := &statesRecorder{read: make(chan struct{})}
	r := &Reader{Conversations: states}
	got, err := r.checkAndFetch(t.Context(), PageQuery{OrgID: "org"}, []Conversation{{ID: "a", RunID: "run-1"}}, nil)
	if err != nil || len(got) != 1 || states.reads.Load() != 1 {
		t.Fatalf("got %v, %v after %d catalog reads", got, err, states.reads.Load())
	}
}
