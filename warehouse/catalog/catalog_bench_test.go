package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchUploads stages n pending chat archives of an organization.
func benchUploads(b *testing.B, c *Catalog, orgID string, n int) {
	b.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	rows := make([][]any, n)
	for i := range rows {
		key := "staging/" + NewID()
		it := Interaction{ID: NewID(), OrgID: orgID, MediaType: MediaChat, Status: StatusProcessing, FileName: key + ".tar",
			StagedKey: &key, ArrivedOn: now, LocaleID: 1033, Source: "file"}
		rows[i] = interactionRow(it, now, nil)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		b.Fatal(err)
	}
}

// benchCommit is an ingest commit of claimed archives, chats of each.
func benchCommit(claimed []Interaction, owner string, chats int) IngestCommit {
	run := NewID()
	ic := IngestCommit{RunID: run, Owner: owner}
	for _, up := range claimed {
		o := UploadOutcome{Upload: up, Status: StatusReadyToSample}
		for k := range chats {
			id := NewID()
			o.Children = append(o.Children, Interaction{ID: id, OrgID: up.OrgID, UploadID: &up.ID, MediaType: MediaProcessedChat,
				Status: StatusReadyToSample, FileName: fmt.Sprintf("%s/chats/%04d.json", up.FileName, k), ArrivedOn: up.ArrivedOn,
				LocaleID: 1033, Source: "file", ExtendedMetadata: map[string]string{"queue": "billing"}})
		}
		ic.Outcomes = append(ic.Outcomes, o)
	}
	files := []LakeFile{{Path: "lake/conversations/" + run + ".parquet", Table: "conversations", OrgID: claimed[0].OrgID,
		Date: claimed[0].ArrivedOn.Truncate(24 * time.Hour), Rows: int64(len(claimed) * chats), MinID: claimed[0].ID, MaxID: run}}
	ic.Files = files
	return ic
}

// BenchmarkClaimCommit: an ingest batch's catalog work — claim 200
// pending archives, then commit them with 50 chats each (10,000 chat
// records, their statuses and a manifest entry) — with every commit synced
// (synchronous=FULL, the catalog's setting), beside the baseline of the
// same work with synchronous=NORMAL (a commit not yet synced when it
// returns: the cost of the guarantee), and beside SQLite's default of a
// commit checkpointing inside itself. On PostgreSQL the first two are
// synchronous_commit on and off (the third is the first again).
func BenchmarkClaimCommit(b *testing.B) {
	const uploads, chats = 200, 50
	for _, mode := range []struct{ name, sqlite, postgres string }{
		{"synchronous-full", "PRAGMA synchronous = FULL", "SET synchronous_commit = on"},
		{"baseline-synchronous-normal", "PRAGMA synchronous = NORMAL", "SET synchronous_commit = off"},
		// SQLite's default: a commit that takes the log past a thousand
		// pages checkpoints inside itself (checkpoint.go).
		{"baseline-checkpoint-in-commit", "PRAGMA wal_autocheckpoint = 1000", "SET synchronous_commit = on"},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := jobContext(b)
			c := openTest(b)
			c.db.SetMaxOpenConns(1) // the setting is the connection's
			setting := mode.sqlite
			if c.postgres {
				setting = mode.postgres
			}
			if _, err := c.db.ExecContext(ctx, setting); err != nil {
				b.Fatal(err)
			}
			org, _ := c.Orgs.CreateOrganization(ctx, "acme")
			var claimTime, commitTime time.Duration
			for b.Loop() {
				b.StopTimer()
				benchUploads(b, c, org.ID, uploads)
				b.StartTimer()
				start := time.Now()
				claimed, err := c.Interactions.ClaimPending(ctx, "bench", []string{MediaChat}, uploads, time.Minute)
				if err != nil || len(claimed) != uploads {
					b.Fatalf("claimed %d: %v", len(claimed), err)
				}
				claimTime += time.Since(start)
				b.StopTimer()
				ic := benchCommit(claimed, "bench", chats)
				b.StartTimer()
				start = time.Now()
				if err := c.Interactions.CommitIngest(ctx, ic); err != nil {
					b.Fatal(err)
				}
				commitTime += time.Since(start)
			}
			b.ReportMetric(float64(claimTime.Microseconds())/1000/float64(b.N), "claim-ms")
			b.ReportMetric(float64(commitTime.Microseconds())/1000/float64(b.N), "commit-ms")
			b.ReportMetric(float64(uploads*chats*b.N)/(claimTime+commitTime).Seconds(), "chats/s")
		})
	}
}

// benchClaimed stages n pending archives of an organization and claims
// them, as an ingest batch does.
func benchClaimed(b *testing.B, c *Catalog, orgID string, n int) []Interaction {
	b.Helper()
	benchUploads(b, c, orgID, n)
	claimed, err := c.Interactions.ClaimPending(context.Background(), "bench", []string{MediaChat}, n, time.Minute)
	if err != nil || len(claimed) != n {
		b.Fatalf("claimed %d: %v", len(claimed), err)
	}
	return claimed
}

// jobContext is a context that can be canceled, as a job's: the SQLite
// driver runs statements under such a context otherwise than under
// context.Background() (eachRow), so a benchmark of ingest's catalog work
// runs under one.
func jobContext(b *testing.B) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return ctx
}

// benchCommits times ingest commits of uploads claimed archives with
// chats chats each (none: each upload is a conversation itself), each
// commit shaped by shape first, and reports the mean commit.
func benchCommits(b *testing.B, uploads, chats int, shape func(ic *IngestCommit, orgID string)) {
	benchEach(b, "commit-ms", func(c *Catalog, orgID string) IngestCommit {
		ic := benchCommit(benchClaimed(b, c, orgID, uploads), "bench", chats)
		shape(&ic, orgID)
		return ic
	}, func(ctx context.Context, c *Catalog, ic IngestCommit) error {
		return c.Interactions.CommitIngest(ctx, ic)
	})
}

// benchEach times run over a catalog of one organization, each time on
// what prepare made for it (untimed), and reports the mean run as unit.
func benchEach[T any](b *testing.B, unit string, prepare func(c *Catalog, orgID string) T, run func(ctx context.Context, c *Catalog, v T) error) {
	ctx := jobContext(b)
	c := openTest(b)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		v := prepare(c, org.ID)
		b.StartTimer()
		start := time.Now()
		if err := run(ctx, c, v); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
	}
	b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), unit)
}

// BenchmarkCommitSingleUploads: an ingest commit of 1,000 uploads that
// are each a conversation (single chats, calls): each upload's own record
// gets its outcome. Beside it the baseline of as many conversations in one
// archive, whose chats are inserted as new records. On PostgreSQL every
// statement is a round trip: the uploads' outcomes go in one.
func BenchmarkCommitSingleUploads(b *testing.B) {
	const conversations = 1000
	for _, shape := range []struct {
		name           string
		uploads, chats int
	}{{"single-uploads", conversations, 0}, {"baseline-one-archive", 1, conversations}} {
		b.Run(shape.name, func(b *testing.B) {
			benchCommits(b, shape.uploads, shape.chats, func(ic *IngestCommit, _ string) {
				for i := range ic.Outcomes {
					ic.Outcomes[i].Conversation = shape.chats == 0
				}
			})
		})
	}
}

// BenchmarkCommitAutoEvaluations: an ingest commit of 200 archives of 50
// chats each, every chat with an Auto evaluation, beside the baseline of
// the same commit without: what automated QA adds to ingest's serial
// stage.
func BenchmarkCommitAutoEvaluations(b *testing.B) {
	const uploads, chats = 200, 50
	for _, auto := range []bool{false, true} {
		name := map[bool]string{false: "baseline-without", true: "auto-evaluations"}[auto]
		b.Run(name, func(b *testing.B) {
			benchCommits(b, uploads, chats, func(ic *IngestCommit, orgID string) {
				if !auto {
					return
				}
				for i, o := range ic.Outcomes {
					for _, ch := range o.Children {
						score := 50.0
						ic.Outcomes[i].Evaluations = append(ic.Outcomes[i].Evaluations,
							Evaluation{ID: NewID(), OrgID: orgID, FormID: "f", ConversationID: ch.ID, Score: &score, AutoAnswers: "1010101-10"})
					}
				}
			})
		})
	}
}

// BenchmarkConversationStates: the states of a page's 1,000 conversations
// (as every result page reads them) in a catalog of 200,000 processed
// conversations, each with a client call id and an interaction date: by id range (a dense page), and by id list (a sparse
// page, one in ten of the range), beside the baseline of the same ids
// read through the general interaction lookup.
func BenchmarkConversationStates(b *testing.B) {
	ctx := context.Background()
	c := openTest(b) // on either engine: every page reads them
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	const total = 200_000
	now := time.Now().UTC()
	run := NewID()
	ids := make([]string, total)
	rows := make([][]any, total)
	for i := range rows {
		ids[i] = NewID()
		callID, when := "CALL-"+ids[i][24:], now.Add(-time.Duration(i)*time.Second)
		it := Interaction{ID: ids[i], OrgID: org.ID, MediaType: MediaChat, Status: StatusReadyToSample,
			FileName: ids[i] + ".json", ArrivedOn: now, InteractionDate: &when, ClientCallID: &callID, LocaleID: 1033, Source: "file"}
		rows[i] = interactionRow(it, now, &run)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		b.Fatal(err)
	}
	dense := ids[total/2 : total/2+1000]
	var sparse []string
	for i := total / 4; len(sparse) < 1000; i += 10 {
		sparse = append(sparse, ids[i])
	}
	for _, bc := range []struct {
		name   string
		ids    []string
		sparse bool
	}{{"dense-1000", dense, false}, {"sparse-1000", sparse, true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				states, err := c.Interactions.ConversationStates(ctx, org.ID, bc.ids, bc.sparse)
				if err != nil || len(states) != 1000 {
					b.Fatalf("%d states, %v", len(states), err)
				}
			}
		})
	}
	b.Run("baseline-interactions-1000", func(b *testing.B) {
		for b.Loop() {
			its, err := c.Interactions.Interactions(ctx, org.ID, InteractionFilter{IDs: sparse, ExactIDs: true, Limit: 1000})
			if err != nil || len(its) != 1000 {
				b.Fatalf("%d interactions, %v", len(its), err)
			}
		}
	})
}

// BenchmarkAutoScores sums the Auto evaluations' scores by agent over a
// window of 150,000 conversations, each with one: the dashboard's QA score
// of every conversation, four times a view (now and before, teams and
// agents), which reads them side by side.
func BenchmarkAutoScores(b *testing.B) {
	ctx := context.Background()
	c := openTest(b) // on PostgreSQL too: the first query comes before any statistics
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := loadAutoScored(b, c, org.ID, 150_000, 500)
	q := ScoreQuery{ArrivedFrom: now.Add(-time.Hour), ArrivedTo: now.Add(time.Hour), ByAgent: true, Source: SourceAuto}
	scores := func(b *testing.B) {
		groups, err := c.Evaluations.ScoresBy(ctx, org.ID, q)
		if err != nil || len(groups) != 500 {
			b.Errorf("%d groups, %v", len(groups), err)
		}
	}
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			scores(b)
		}
	})
	// A dashboard view reads four (the range and the one before, by team
	// and by agent): the baseline reads them in turn.
	b.Run("baseline-four-in-turn", func(b *testing.B) {
		for b.Loop() {
			for range 4 {
				scores(b)
			}
		}
	})
	b.Run("four-side-by-side", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() { scores(b) })
			}
			wg.Wait()
		}
	})
}

// BenchmarkConcurrentWrites: small write transactions from many goroutines
// at once (a process's uploads, claims, lease renewals and commits meeting
// on SQLite's one write lock), queued in the process as the catalog's
// transactions are, beside the baseline of the same transactions left to
// SQLite's busy handler, which sleeps and polls while the lock is held.
func BenchmarkConcurrentWrites(b *testing.B) {
	if testEngine == "postgres" {
		b.Skip("PostgreSQL has no one write lock")
	}
	for _, mode := range []struct {
		name   string
		queued bool
	}{{"queued", true}, {"baseline-busy-handler", false}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			c := openTest(b)
			org, _ := c.Orgs.CreateOrganization(ctx, "acme")
			benchUploads(b, c, org.ID, 64)
			ids, err := queryStrings(ctx, c.db, `SELECT id FROM interactions`)
			if err != nil || len(ids) != 64 {
				b.Fatal(len(ids), err)
			}
			touch := func(tx *sql.Tx, id string) error {
				_, err := tx.ExecContext(ctx, `UPDATE interactions SET modified_on = ? WHERE id = ?`, stamp(time.Now()), id)
				return err
			}
			inTx := func(fn func(tx *sql.Tx) error) error {
				if mode.queued {
					return c.inTx(ctx, fn)
				}
				return c.transact(ctx, nil, fn) // no turn taken first
			}
			var mu sync.Mutex
			var took []time.Duration
			var next atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					id := ids[next.Add(1)%int64(len(ids))]
					start := time.Now()
					if err := inTx(func(tx *sql.Tx) error { return touch(tx, id) }); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				took = append(took, mine...)
				mu.Unlock()
			})
			slices.Sort(took)
			if len(took) > 0 {
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
			}
		})
	}
}

// loadAutoScored inserts n conversations of an organization that arrived
// now, of agents agents in turn, each with an Auto evaluation, in one
// transaction (as a first large load is, before any statistics of the
// rows); it returns their arrival.
func loadAutoScored(tb testing.TB, c *Catalog, orgID string, n, agents int) time.Time {
	tb.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	run := NewID()
	evaluations := make([]Evaluation, n)
	rows := make([][]any, n)
	for i := range rows {
		id, agent := NewID(), fmt.Sprintf("A%03d", i%agents)
		rows[i] = interactionRow(Interaction{ID: id, OrgID: orgID, MediaType: MediaChat, Status: StatusReadyToSample, AgentCode: &agent,
			FileName: id + ".json", ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, &run)
		score := float64(i % 101)
		evaluations[i] = Evaluation{ID: NewID(), OrgID: orgID, FormID: "f", ConversationID: id, Score: &score, AutoAnswers: "10"}
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows); err != nil {
			return err
		}
		return c.Interactions.replaceAutoEvaluations(ctx, tx, nil, []UploadOutcome{{Evaluations: evaluations}}, now)
	}); err != nil {
		tb.Fatal(err)
	}
	return now
}

// BenchmarkDiscoverDeliveries: an emission endpoint's discovery of the
// result sets of 10,000 conversations processed since its last scan (a
// night's ingest), each enqueued as a delivery in one transaction, beside
// the baseline of the same discovery when all are enqueued already (its
// reads alone).
func BenchmarkDiscoverDeliveries(b *testing.B) {
	ctx := context.Background()
	c := openTest(b)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	ep, err := c.Emissions.SetEndpoint(ctx, org.ID, "https://hooks.example.com/x", "whsec_x")
	if err != nil {
		b.Fatal(err)
	}
	const conversations = 10_000
	now := time.Now().UTC().Add(time.Millisecond) // after the endpoint's registration
	run := NewID()
	rows := make([][]any, conversations)
	for i := range rows {
		id := NewID()
		rows[i] = interactionRow(Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusReadyToSample,
			FileName: id + ".json", ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, &run)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		new  int64
	}{{"all-new", conversations}, {"baseline-none-new", 0}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if mode.new > 0 {
					if _, err := c.db.ExecContext(ctx, `DELETE FROM deliveries`); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				// ep keeps the scan's start: each discovery looks from there.
				if n, err := c.Emissions.Discover(ctx, ep); err != nil || n != mode.new {
					b.Fatalf("%d enqueued: %v", n, err)
				}
			}
		})
	}
}

// BenchmarkRescoreAutoEvaluations: a reclassification's page of 1,000
// Auto evaluations given new results and scores, beside the baseline of
// one evaluation (what a call costs whatever its size).
func BenchmarkRescoreAutoEvaluations(b *testing.B) {
	ctx := context.Background()
	c := openTest(b)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	loadAutoScored(b, c, org.ID, 1000, 10)
	page, err := c.Evaluations.Evaluations(ctx, org.ID, EvaluationFilter{Source: SourceAuto, Limit: 1000})
	if err != nil || len(page) != 1000 {
		b.Fatalf("%d evaluations: %v", len(page), err)
	}
	for _, n := range []int{1000, 1} {
		name := map[bool]string{true: "1000-rescored", false: "baseline-one-rescored"}[n == 1000]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for i := range page[:n] {
					score := *page[i].Score + 1
					page[i].Score, page[i].AutoAnswers = &score, "01"
				}
				if err := c.Evaluations.UpdateAutoEvaluations(ctx, org.ID, page[:n]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInsertChatRecords: an ingest commit's insert of 10,000 chat
// records (200 archives of 50), chats without metadata (every empty field
// common to all), and chats each with their own agent, customer, contact,
// call id, team and date. On SQLite their common values bound once a
// statement, beside the baseline of a prepared statement's step a row
// (every value bound on its own); on PostgreSQL sent by the copy
// protocol, beside the baseline of multi-row INSERT statements of as many
// rows as PostgreSQL's limit of parameters allows.
func BenchmarkInsertChatRecords(b *testing.B) {
	const uploads, chats = 200, 50
	type way struct {
		name   string
		insert func(ctx context.Context, c *Catalog, tx *sql.Tx, rows [][]any) error
	}
	bulk := func(ctx context.Context, c *Catalog, tx *sql.Tx, rows [][]any) error {
		return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows)
	}
	ways := []way{{"common-bound-once", bulk}, {"baseline-row-by-row", func(ctx context.Context, _ *Catalog, tx *sql.Tx, rows [][]any) error {
		return insertEach(ctx, tx, "interactions", interactionInsertColumns, rows)
	}}}
	if testEngine == "postgres" {
		const postgresMaxParameters = 65535
		ways = []way{{"copy", bulk}, {"baseline-multi-row-insert", func(ctx context.Context, _ *Catalog, tx *sql.Tx, rows [][]any) error {
			_, err := insertChunks(ctx, tx, "interactions", interactionInsertColumns, rows, postgresMaxParameters/len(interactionInsertColumns), "")
			return err
		}}}
	}
	for _, shape := range []struct {
		name     string
		metadata bool
	}{{"bare", false}, {"metadata", true}} {
		for _, way := range ways {
			b.Run(shape.name+"/"+way.name, func(b *testing.B) {
				benchEach(b, "insert-ms", func(c *Catalog, orgID string) [][]any {
					return chatRecords(benchClaimed(b, c, orgID, uploads), chats, shape.metadata)
				}, func(ctx context.Context, c *Catalog, rows [][]any) error {
					return c.inTx(ctx, func(tx *sql.Tx) error { return way.insert(ctx, c, tx, rows) })
				})
			})
		}
	}
}

// chatRecords are the interaction rows of chats chats in each claimed
// archive (benchCommit's), as an ingest commit inserts them; with metadata,
// each chat has its own agent, customer, contact, call id, team and date.
func chatRecords(claimed []Interaction, chats int, metadata bool) [][]any {
	ic := benchCommit(claimed, "bench", chats)
	t := now()
	var rows [][]any
	for _, o := range ic.Outcomes {
		for _, ch := range o.Children {
			if metadata {
				n := len(rows)
				text := func(format string) *string { s := fmt.Sprintf(format, n); return &s }
				when := ch.ArrivedOn.Add(-time.Duration(n) * time.Minute)
				count := 10 + n%20
				ch.AgentID, ch.AgentCode, ch.AgentFirstName, ch.AgentLastName = text("agent-%d"), text("A%d"), text("First%d"), text("Last%d")
				ch.CustomerName, ch.Phone, ch.Email = text("Customer %d"), text("+1555%07d"), text("c%d@example.com")
				ch.ClientCallID, ch.HierarchyNodeID, ch.InteractionDate, ch.ChatMessageCount = text("call-%d"), text("team-%d"), &when, &count
			}
			rows = append(rows, interactionRow(ch, t, lakeRun(ch.Status, ic.RunID)))
		}
	}
	return rows
}

// BenchmarkSampleQA: the nightly QA sample of 50,000 processed
// conversations of 50 agents over 8 weeks (400 groups, a share of 5 %
// of each), beside the baseline of the run after it, which reads the same
// groups and finds each full. On either engine.
func BenchmarkSampleQA(b *testing.B) {
	ctx := context.Background()
	c := openTest(b)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	const total, agents, weeks = 50_000, 50, 8
	start := time.Date(2025, 9, 1, 9, 0, 0, 0, time.UTC) // a Monday
	run := NewID()
	rows := make([][]any, total)
	for i := range rows {
		agent := fmt.Sprintf("agent-%02d", i%agents)
		it := Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusReadyToSample, FileName: fmt.Sprintf("%d.json", i),
			ArrivedOn: start.Add(time.Duration(i%(weeks*7)) * 24 * time.Hour), AgentCode: &agent, LocaleID: 1033, Source: "file"}
		rows[i] = interactionRow(it, start, &run)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		b.Fatal(err)
	}
	sample := func(b *testing.B) int64 {
		moved, _, err := c.Interactions.SampleQA(ctx, 0.05, "bench", "")
		if err != nil {
			b.Fatal(err)
		}
		return moved
	}
	b.Run("sample", func(b *testing.B) {
		want := int64(-1) // the same seed samples the same every time
		for b.Loop() {
			b.StopTimer()
			if _, err := c.db.ExecContext(ctx, `UPDATE interactions SET status = 'ReadyToSample' WHERE status = 'Sampled'`); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			moved := sample(b)
			if want < 0 {
				want = moved
			}
			if moved == 0 || moved != want {
				b.Fatalf("%d sampled, want %d", moved, want)
			}
		}
	})
	b.Run("baseline-all-groups-full", func(b *testing.B) {
		sample(b)
		for b.Loop() {
			if moved := sample(b); moved != 0 {
				b.Fatalf("%d sampled again", moved)
			}
		}
	})
}
