package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// The ingest path's catalog work, on each engine (TestMain): workers that
// claim at once never share an upload and together take them all; the
// commit makes them processed; QA sampling takes ceil(rate × n) of each
// agent's week, and a second run changes nothing.
func TestClaimsCommitAndSampling(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	arrived := time.Date(2025, 10, 7, 9, 0, 0, 0, time.UTC) // a Tuesday
	const n = 40
	for i := range n {
		code := fmt.Sprintf("agent-%d", i%2)
		key := "staging/x"
		if err := c.Interactions.CreateInteraction(ctx, Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing,
			FileName: fmt.Sprintf("c/%02d.json", i), StagedKey: &key, ArrivedOn: arrived.Add(time.Duration(i) * time.Hour), AgentCode: &code,
			LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "text", ModifiedOn: arrived}, false); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claimedBy := map[string]string{}
	var claimed []Interaction
	var wg sync.WaitGroup
	for w := range 3 {
		owner := fmt.Sprintf("worker-%d", w)
		wg.Go(func() {
			for {
				got, err := c.Interactions.ClaimPending(ctx, owner, []string{MediaChat}, 4, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, it := range got {
					if other, ok := claimedBy[it.ID]; ok {
						t.Errorf("%s claimed by %s and %s", it.ID, other, owner)
					}
					claimedBy[it.ID] = owner
					claimed = append(claimed, it)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimedBy) != n {
		t.Fatalf("%d of %d uploads claimed", len(claimedBy), n)
	}
	commit := IngestCommit{RunID: NewID(), Owner: "worker-0"}
	for _, it := range claimed {
		commit.Outcomes = append(commit.Outcomes, UploadOutcome{Upload: it, Status: StatusReadyToSample, Conversation: true})
	}
	// The commit checks the leases: take them all over for the committing worker.
	ids := make([]string, 0, n)
	for _, it := range claimed {
		ids = append(ids, it.ID)
	}
	if _, err := c.db.ExecContext(ctx, `UPDATE interactions SET lease_owner = 'worker-0' WHERE `+anyOf("id"), list(ids)); err != nil {
		t.Fatal(err)
	}
	if err := c.Interactions.CommitIngest(ctx, commit); err != nil {
		t.Fatal(err)
	}
	// A review workflow template asks for a workflow of each sampled
	// conversation; another does not.
	for name, onSampled := range map[string]bool{"Review": true, "Dispute": false} {
		if _, err := c.Workflows.CreateTemplate(ctx, WorkflowTemplate{OrgID: org.ID, Name: name, WorkflowType: "QA",
			Definition: []byte(`{"levels":[{"assignees":[]}]}`), StartOnSampled: onSampled}); err != nil {
			t.Fatal(err)
		}
	}
	// Another organization's sampling leaves this one's conversations.
	if moved, started, err := c.Interactions.SampleQA(ctx, 0.22, "seed", NewID()); err != nil || moved != 0 || started != 0 {
		t.Fatalf("another organization's sampling moved %d, started %d (%v)", moved, started, err)
	}
	moved, started, err := c.Interactions.SampleQA(ctx, 0.22, "seed", org.ID)
	if err != nil || moved != 2*5 || started != moved { // ceil(0.22 × 20) for each agent
		t.Fatalf("sampled %d, started %d workflows (%v), want 10 and 10", moved, started, err)
	}
	if again, workflows, err := c.Interactions.SampleQA(ctx, 0.22, "seed", ""); err != nil || again != 0 || workflows != 0 {
		t.Fatalf("a second sampling moved %d and started %d (%v)", again, workflows, err)
	}
	workflows, err := c.Workflows.Workflows(ctx, org.ID, WorkflowFilter{Limit: 100})
	if err != nil || len(workflows) != 10 {
		t.Fatalf("%d workflows (%v)", len(workflows), err)
	}
	states, err := c.Interactions.ConversationStates(ctx, org.ID, ids, true)
	if err != nil {
		t.Fatal(err)
	}
	sampled := 0
	for _, s := range states {
		if !s.LakeRunID.Valid || s.LakeRunID.String != commit.RunID {
			t.Fatalf("state %+v", s)
		}
		if s.Status == StatusSampled {
			sampled++
		}
	}
	for _, w := range workflows {
		if states[w.ConversationID].Status != StatusSampled || w.Status != WorkflowOpen {
			t.Fatalf("workflow %+v of a conversation %s", w, states[w.ConversationID].Status)
		}
	}
	if sampled != 10 {
		t.Fatalf("%d sampled", sampled)
	}
}

// Processes that claim one schedule tick at once: one gets it, the others
// are told no, and none sees an error (on PostgreSQL a caught unique
// violation would have aborted the claim's transaction).
func TestTickClaimedOnce(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	tick := time.Date(2025, 10, 7, 9, 0, 0, 0, time.UTC)
	for round := range 3 {
		var mu sync.Mutex
		var winners []string
		var wg sync.WaitGroup
		for w := range 8 {
			owner := fmt.Sprintf("worker-%d", w)
			wg.Go(func() {
				got, err := c.Jobs.ClaimTick(ctx, "sample", tick.Add(time.Duration(round)*time.Minute), owner)
				if err != nil {
					t.Errorf("%s: %v", owner, err)
				}
				if got {
					mu.Lock()
					winners = append(winners, owner)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: claimed by %v", round, winners)
		}
	}
}

// An archive committed in parts, on each engine: between parts the upload
// stays claimed and Processing while its chats so far are listed; the
// final outcome adds the rest and moves the upload. A later run's first
// part replaces the upload's chats, reusing their ids.
func TestArchiveCommittedInParts(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	key := "staging/a.tar"
	up := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: "a.tar", StagedKey: &key,
		ArrivedOn: time.Now().UTC(), LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: time.Now().UTC()}
	if err := c.Interactions.CreateInteraction(ctx, up, false); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 5)
	for i := range ids {
		ids[i] = NewID()
	}
	chats := func(from, to int) []Interaction {
		var out []Interaction
		for i := from; i < to; i++ {
			ch := up
			ch.ID, ch.UploadID, ch.MediaType, ch.Status, ch.FileName = ids[i], &up.ID, MediaProcessedChat, StatusReadyToSample, fmt.Sprintf("a.tar/%d.json", i)
			out = append(out, ch)
		}
		return out
	}
	commit := func(o UploadOutcome) {
		t.Helper()
		if _, err := c.Interactions.ClaimPending(ctx, "w", []string{MediaChat}, 1, time.Minute); err != nil {
			t.Fatal(err)
		}
		o.Upload = up
		if err := c.Interactions.CommitIngest(ctx, IngestCommit{RunID: NewID(), Owner: "w", Outcomes: []UploadOutcome{o}}); err != nil {
			t.Fatal(err)
		}
	}
	listed := func(wantStatus string, want int) {
		t.Helper()
		got, err := c.Interactions.ChatIDs(ctx, org.ID, up.ID)
		if err != nil {
			t.Fatal(err)
		}
		it, err := c.Interactions.Interaction(ctx, org.ID, up.ID)
		if err != nil || it.Status != wantStatus || len(got) != want {
			t.Fatalf("the upload is %s with %d chats (%v), want %s with %d", it.Status, len(got), err, wantStatus, want)
		}
	}
	commit(UploadOutcome{Status: StatusReadyToSample, Partial: true, Children: chats(0, 2)})
	listed(StatusProcessing, 2)
	commit(UploadOutcome{Status: StatusReadyToSample, Partial: true, Appends: true, Children: chats(2, 4)})
	listed(StatusProcessing, 4)
	commit(UploadOutcome{Status: StatusReadyToSample, Appends: true, Children: chats(4, 5), Failures: []string{"skipped x: a link"}})
	listed(StatusReadyToSample, 5)

	if _, err := c.db.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, up.ID); err != nil {
		t.Fatal(err)
	}
	commit(UploadOutcome{Status: StatusReadyToSample, Partial: true, Children: chats(0, 2)})
	listed(StatusProcessing, 2)
}

// A commit whose chat would take a file name another interaction of the
// organization has fails with ErrFileNameTaken and commits nothing: the
// upload stays claimed and Processing, none of its chats is recorded. On
// PostgreSQL the violation comes from the copy of the chats.
func TestCommitWithTakenChatNameCommitsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := time.Now().UTC()
	key := "staging/day.tar"
	up := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: "day.tar", StagedKey: &key,
		ArrivedOn: now, LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: now}
	taken := up
	taken.ID, taken.FileName, taken.StagedKey, taken.Status = NewID(), "day.tar/2.json", nil, StatusReadyToSample
	for _, it := range []Interaction{up, taken} {
		if err := c.Interactions.CreateInteraction(ctx, it, false); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Interactions.ClaimPending(ctx, "w", []string{MediaChat}, 1, time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("claimed %d: %v", len(got), err)
	}
	var chats []Interaction
	for i := range 3 {
		ch := up
		ch.ID, ch.UploadID, ch.MediaType, ch.Status, ch.StagedKey = NewID(), &up.ID, MediaProcessedChat, StatusReadyToSample, nil
		ch.FileName = fmt.Sprintf("day.tar/%d.json", i+1)
		chats = append(chats, ch)
	}
	err := c.Interactions.CommitIngest(ctx, IngestCommit{RunID: NewID(), Owner: "w",
		Outcomes: []UploadOutcome{{Upload: up, Status: StatusReadyToSample, Children: chats}}})
	if !errors.Is(err, ErrFileNameTaken) {
		t.Fatalf("commit: %v, want ErrFileNameTaken", err)
	}
	it, err := c.Interactions.Interaction(ctx, org.ID, up.ID)
	if err != nil || it.Status != StatusProcessing {
		t.Fatalf("the upload is %s (%v), want Processing", it.Status, err)
	}
	if got, err := c.Interactions.ChatIDs(ctx, org.ID, up.ID); err != nil || len(got) != 0 {
		t.Fatalf("%d chats recorded (%v), want none", len(got), err)
	}
}
