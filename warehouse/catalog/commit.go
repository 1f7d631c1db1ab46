package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// LakeFile is a written Parquet file to register in the manifest.
type LakeFile struct {
	Path           string
	Table          string
	OrgID          string
	Date           time.Time
	Rows           int64
	Bytes          int64
	MinID, MaxID   string
	MinInteraction *time.Time
	MaxInteraction *time.Time
	// MinArrival and MaxArrival (conversations files) are the first and
	// last arrival of the file's rows; nil when unknown.
	MinArrival, MaxArrival *time.Time
	// NodeCounts (conversations files) counts the file's conversations by
	// hierarchy node ("" for none); nil when unknown.
	NodeCounts map[string]int64
	// CompleteClassifiers (conversations files) are the classifiers with a
	// result for every conversation of the file, in the same run.
	CompleteClassifiers []string
}

// lakeFileRow is a manifest entry's values in lakeFileColumns order.
func lakeFileRow(f LakeFile, runID string, created time.Time) []any {
	var nodes, complete any
	if f.NodeCounts != nil {
		b, _ := json.Marshal(f.NodeCounts)
		nodes = string(b)
	}
	if f.CompleteClassifiers != nil {
		b, _ := json.Marshal(f.CompleteClassifiers)
		complete = string(b)
	}
	return []any{f.Path, f.Table, f.OrgID, f.Date.Format(time.DateOnly), f.Rows, f.Bytes, f.MinID, f.MaxID,
		stampPtr(f.MinInteraction), stampPtr(f.MaxInteraction), runID, created, nodes, complete, stampPtr(f.MinArrival), stampPtr(f.MaxArrival)}
}

// UploadOutcome is what processing one claimed upload produced.
type UploadOutcome struct {
	Upload   Interaction
	Status   string   // the upload record's final status
	Failures []string // processFailures of the upload record
	// Conversation: the upload record is itself a conversation whose rows
	// are in the lake (a single chat, a call).
	Conversation       bool
	ChatMessageCount   *int
	CallDurationMillis *int64
	// Children are the ProcessedChat records of an archive, each with its
	// status and (in ProcessFailures) its failure.
	Children []Interaction
	// Partial: Children are one part of an archive too large to hold at
	// once. The upload stays claimed and its own record as it was; later
	// parts and its final outcome follow, each with Appends.
	Partial bool
	// Appends: this run committed earlier parts of the upload; Children add
	// to theirs instead of replacing the upload's chats.
	Appends bool
	// Evaluations are the Auto evaluations of the upload's conversations
	// (with their answers): they replace the conversations' earlier ones.
	Evaluations []Evaluation
}

// IngestCommit is everything one ingest batch commits at once.
type IngestCommit struct {
	RunID string
	Owner string
	// Files are the batch's lake files, already written. They are written
	// before the transaction begins, not during it: the catalog's writes
	// (the next batch's claims, uploads, leases) would wait for them.
	Files    []LakeFile
	Outcomes []UploadOutcome
}

// ErrLeaseLost: another worker took over an upload (this worker's lease
// expired); nothing of this batch is committed.
var ErrLeaseLost = errors.New("an upload's lease was taken over by another worker")

// CommitIngest makes a batch visible in one transaction: it replaces the
// archives' chat records, records failures, moves statuses and, last,
// registers the lake files. Before it, nothing of the batch is visible; after it,
// all of it. A re-run replaces an upload's chats and current lake rows: an
// archive committed in parts replaces them with its first part.
func (c *InteractionStore) CommitIngest(ctx context.Context, ic IngestCommit) error {
	// Locking the uploads whose lease this process holds is what keeps
	// every other writer off them and their chats until the commit.
	err := c.inLockedTx(ctx, func(tx *sql.Tx) error {
		ids := make([]string, len(ic.Outcomes))
		for i, o := range ic.Outcomes {
			ids[i] = o.Upload.ID
		}
		owned, err := queryStrings(ctx, tx, `SELECT id FROM interactions WHERE `+anyOf("id")+` AND lease_owner = ?`+c.lockRows(),
			list(ids), ic.Owner)
		if err != nil {
			return err
		}
		if len(owned) != len(ids) {
			return ErrLeaseLost
		}
		t := now()
		// A re-run replaces the chats an earlier run found in these archives,
		// unless it failed wholly: then the earlier chats stay as they were
		// (nothing replaces them, and their rows are still in the lake).
		replaced := []string{}
		for _, o := range ic.Outcomes {
			if !o.Appends && (o.Status != StatusFailedToProcess || len(o.Children) > 0) {
				replaced = append(replaced, o.Upload.ID)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM process_failures WHERE interaction_id IN
			(SELECT id FROM interactions WHERE `+anyOf("upload_id")+`) OR `+anyOf("interaction_id"), list(replaced), list(ids)); err != nil {
			return err
		}
		// The replaced chats (none on an archive's first run) and the
		// uploads that are conversations lose their Auto evaluations.
		deleted, err := queryAll(ctx, tx, func(s scanner) (v [2]string, err error) { return v, s.Scan(&v[0], &v[1]) },
			`DELETE FROM interactions WHERE `+anyOf("upload_id")+` RETURNING org_id, id`, list(replaced))
		if err != nil {
			return err
		}
		gone := map[string][]string{} // organization → conversations
		for _, d := range deleted {
			gone[d[0]] = append(gone[d[0]], d[1])
		}
		for _, o := range ic.Outcomes {
			if o.Conversation {
				gone[o.Upload.OrgID] = append(gone[o.Upload.OrgID], o.Upload.ID)
			}
		}
		if err := c.replaceAutoEvaluations(ctx, tx, gone, ic.Outcomes, t); err != nil {
			return err
		}
		var children, failures [][]any
		addFailure := func(orgID, id, msg string) {
			failures = append(failures, []any{NewID(), orgID, id, msg, t})
		}
		for _, o := range ic.Outcomes {
			for _, ch := range o.Children {
				children = append(children, interactionRow(ch, t, lakeRun(ch.Status, ic.RunID)))
				for _, f := range ch.ProcessFailures {
					addFailure(ch.OrgID, ch.ID, f.Message)
				}
			}
			for _, msg := range o.Failures {
				addFailure(o.Upload.OrgID, o.Upload.ID, msg)
			}
		}
		if err := c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, children); err != nil {
			if isUniqueViolation(err) {
				return ErrFileNameTaken
			}
			return err
		}
		if err := c.bulkInsert(ctx, tx, "process_failures", failureColumns, failures); err != nil {
			return err
		}
		var ends []uploadEnd
		for _, o := range ic.Outcomes {
			if o.Partial {
				continue
			}
			var run *string
			if o.Conversation && o.Status != StatusFailedToProcess {
				run = &ic.RunID
			}
			// The lake row has the interaction date the upload was claimed
			// with; a PATCH since then moved the catalog's.
			written := o.Upload.ArrivedOn
			if o.Upload.InteractionDate != nil {
				written = *o.Upload.InteractionDate
			}
			ends = append(ends, uploadEnd{ID: o.Upload.ID, Status: o.Status, Run: run, Messages: o.ChatMessageCount,
				Duration: o.CallDurationMillis, Written: stamp(written)})
		}
		if err := c.endUploads(ctx, tx, ends, t); err != nil {
			return err
		}
		if err := recordStagedDeletions(ctx, tx, ic.Outcomes); err != nil {
			return err
		}
		if len(ic.Files) == 0 {
			return nil
		}
		var files [][]any
		for _, f := range ic.Files {
			files = append(files, lakeFileRow(f, ic.RunID, t))
		}
		if err := c.bulkInsert(ctx, tx, "lake_files", lakeFileColumns, files); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainManifest, orgsOf(ic.Files)...)
	})
	if err != nil {
		// A commit whose outcome is unknown (a connection lost at its end)
		// may have added the files: what was kept is read again.
		c.manifest.invalidate(orgsOf(ic.Files)...)
		return err
	}
	keepCommitted(c.manifest, ic.Files)
	return nil
}

// interactionRow is an interaction's values in interactionInsertColumns
// order.
func interactionRow(it Interaction, modified time.Time, lakeRunID *string) []any {
	ext, _ := json.Marshal(orEmpty(it.ExtendedMetadata))
	return []any{it.ID, it.OrgID, it.UploadID, it.MediaType, it.Status, it.FileName, it.OrigFileName, it.StagedKey,
		it.FileSizeBytes, it.SHA256, stamp(it.ArrivedOn), stampPtr(it.InteractionDate), it.HierarchyNodeID, it.AgentID, it.AgentCode,
		it.AgentFirstName, it.AgentLastName, it.CustomerName, it.Phone, it.Email, it.CallDirection, it.ClientCallID,
		it.LocaleID, string(ext), it.CallDurationMillis, it.ChatMessageCount, it.Source, modified, lakeRunID, it.PublicID}
}

func lakeRun(status, run string) *string {
	if status == StatusFailedToProcess {
		return nil
	}
	return &run
}

// orgsOf are the organizations of files.
func orgsOf(files []LakeFile) []string {
	var out []string
	for _, f := range files {
		if !slices.Contains(out, f.OrgID) {
			out = append(out, f.OrgID)
		}
	}
	return out
}
