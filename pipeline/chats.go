package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/internal/cores"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/pipeline/chat"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// groupChats is how many of an archive's chats its reader hands a parser
// at once, which the parser reads on one core it takes for them: enough
// that handing them over (a goroutine woken, on a machine of idle cores a
// thread) and taking the core cost little beside them, few enough that
// other work waiting for a core is not kept long. A group of large chats
// goes over once it holds groupBytes, so that the groups waiting for a
// parser hold about as much as single chats did.
const (
	groupChats = 16
	groupBytes = 1 << 20
)

// Chats processes chat uploads: archives (.tar, gzip tar, .zip) whose
// every chat becomes a ProcessedChat record, and single conversations
// (.json, .json_chat) that are their own record.
type Chats struct {
	Limits archive.Limits
	// Directory resolves the hierarchy keys and agent codes a chat's own
	// metadata names, as the upload API does for an upload's.
	Directory Directory
	// Earlier, when set, names the chats an earlier run found in an
	// archive: processed again, a chat keeps its id, so that its reviews,
	// evaluations and workflows still refer to it and its rows of the new
	// run replace the old ones in every reader (warehouse/lake/current.go).
	Earlier EarlierChats
	// PartChats is how many chats a part of an archive holds (PartChats
	// when zero).
	PartChats int
}

// EarlierChats names an archive's chats by file name
// (catalog.InteractionStore).
type EarlierChats interface {
	ChatIDs(ctx context.Context, orgID, uploadID string) (map[string]string, error)
}

// Directory resolves the organization data chat metadata refers to.
type Directory interface {
	ResolveUploadRefs(ctx context.Context, orgID string, hierarchyID, hierarchyCode, agentCode *string) (catalog.UploadRefs, error)
}

// Accepts chat uploads.
func (Chats) Accepts(up catalog.Interaction) bool { return up.MediaType == catalog.MediaChat }

// Process reads a chat upload.
func (p Chats) Process(ctx context.Context, up catalog.Interaction, runID string, open Opener, commit Parts) (Result, error) {
	if up.StagedKey == nil {
		return Result{}, ourFault(errors.New("the upload has no staged file"))
	}
	rc, err := open(ctx, *up.StagedKey)
	if err != nil {
		return Result{}, ourFault(fmt.Errorf("the staged file cannot be read: %w", err))
	}
	defer rc.Close()
	kind, isArchive := archive.KindOf(up.FileName)
	if !isArchive {
		return p.single(up, runID, rc)
	}
	return p.archive(ctx, up, runID, kind, rc, commit)
}

// single is a .json/.json_chat upload: one conversation.
func (p Chats) single(up catalog.Interaction, runID string, r io.Reader) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, chat.MaxBytes+1))
	if err != nil {
		return Result{}, ourFault(fmt.Errorf("the staged file cannot be read: %w", err))
	}
	conv, err := chat.Parse(data)
	if err != nil {
		return Result{}, err
	}
	count := len(conv.Messages)
	res := Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusReadyToSample, Conversation: true, ChatMessageCount: &count}}
	res.Batch.Segments = make([]lake.Segment, 0, len(conv.Messages))
	appendChatRows(&res.Batch, up, runID, conv)
	return res, nil
}

// archive reads every chat of an archive. A chat that cannot be read fails
// alone. An archive damaged from some point on (cut off, a bad block, a
// compression bomb) keeps the chats before it, and the damage is recorded
// as the archive's failure; one damaged from the start, empty, or over a
// limit fails whole and yields no chats. Entries are read in order by one
// goroutine and parsed by a pool of them, as many as the context's cores,
// handed groupChats at a time (each group parsed on one of the cores). Every PartChats chats are handed to commit as a
// part while the next ones are read; the Result holds the last ones.
func (p Chats) archive(ctx context.Context, up catalog.Interaction, runID string, kind archive.Kind, r io.Reader, commit Parts) (Result, error) {
	res := Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusReadyToSample}}
	earlier := map[string]string{}
	if p.Earlier != nil {
		var err error
		if earlier, err = p.Earlier.ChatIDs(ctx, up.OrgID, up.ID); err != nil {
			return Result{}, ourFault(fmt.Errorf("the archive's earlier chats: %w", err))
		}
	}
	partSize := p.PartChats
	if partSize <= 0 {
		partSize = PartChats
	}
	// A failed part stops the walk and the parsing.
	walkCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	parts := newPartCommitter(walkCtx, up, runID, commit, stop)
	// As many parsers as the job has cores: more would only wait for one.
	parsers := cores.Size(walkCtx)
	work := make(chan []*slot, parsers)
	var wg sync.WaitGroup
	for range parsers {
		wg.Go(func() {
			var core cores.Kept
			for group := range work {
				// One core for the group, given back after it for the
				// job's other work to take its turn.
				for _, sl := range group {
					core.Hold(walkCtx, true)
					sl.child, sl.chat = p.parseEntry(walkCtx, sl.child, sl.entry)
					sl.entry.Data = nil // done with the bytes
					sl.part.parsed.Done()
				}
				core.Release()
			}
		})
	}
	// The chats read are handed over a group at a time, and the last ones
	// of a part before it is (its committer waits for all of them).
	group, groupSize := make([]*slot, 0, groupChats), 0
	handOver := func() {
		if len(group) > 0 {
			work <- group
			group, groupSize = make([]*slot, 0, groupChats), 0
		}
	}
	cur := &part{}
	seen := map[string]bool{} // the chats' names: each is read once
	onEntry := func(e archive.Entry) error {
		if walkCtx.Err() != nil {
			return context.Cause(walkCtx)
		}
		name := up.FileName + "/" + e.Name
		if seen[name] {
			res.Outcome.Failures = append(res.Outcome.Failures, fmt.Sprintf("skipped %s: a second entry with this name", e.Name))
			return nil
		}
		seen[name] = true
		sl := &slot{entry: e, child: childOf(up, earlier[name], name, e.Name), part: cur} // a new chat's id: none yet
		cur.slots = append(cur.slots, sl)
		cur.parsed.Add(1)
		group, groupSize = append(group, sl), groupSize+len(e.Data)
		if len(group) == groupChats || groupSize >= groupBytes {
			handOver()
		}
		if len(cur.slots) >= partSize && commit != nil {
			handOver()
			parts.hand(cur)
			cur = &part{}
		}
		return nil
	}
	w := archive.Walker{Limits: p.Limits}
	var skipped []archive.Skipped
	var err error
	if kind == archive.Zip {
		skipped, err = walkZip(w, r, onEntry)
	} else {
		skipped, err = w.WalkTar(r, onEntry)
	}
	handOver()
	close(work)
	wg.Wait()
	partErr := parts.wait()
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(partErr, catalog.ErrFileNameTaken):
		return Result{}, partErr
	case partErr != nil:
		return Result{}, ourFault(fmt.Errorf("the archive's chats could not all be committed: %w", partErr))
	case err == nil:
	case errors.Is(err, archive.ErrCorrupt) && len(seen) > 0:
		res.Outcome.Failures = append(res.Outcome.Failures, fmt.Sprintf("the archive is damaged after its first %d files, which were read; the rest could not be: %v", len(seen), err))
	default:
		return Result{}, fmt.Errorf("the archive cannot be processed: %w", err)
	}
	rest := cur.result(up, runID)
	res.Outcome.Children, res.Batch = rest.Outcome.Children, rest.Batch
	res.Outcome.Appends = parts.handed > 0
	for _, s := range skipped {
		res.Outcome.Failures = append(res.Outcome.Failures, fmt.Sprintf("skipped %s: %s", s.Name, s.Reason))
	}
	return res, nil
}

// parseEntry reads one archive entry as a chat: a ready record with the
// chat, or a failed record with the reason and no chat.
func (p Chats) parseEntry(ctx context.Context, child catalog.Interaction, e archive.Entry) (catalog.Interaction, *chat.Conversation) {
	child.FileSizeBytes = int64(len(e.Data))
	err := e.Err
	var conv *chat.Conversation
	if err == nil {
		conv, err = chat.Parse(e.Data)
	}
	if err == nil && conv.Metadata != nil {
		err = p.applyChatMetadata(ctx, &child, conv.Metadata)
	}
	if err != nil {
		child.Status = catalog.StatusFailedToProcess
		child.ProcessFailures = []catalog.ProcessFailure{{Message: fmt.Sprintf("%s: %v", e.Name, err)}}
		return child, nil
	}
	count := len(conv.Messages)
	child.ChatMessageCount = &count
	if child.InteractionDate == nil {
		child.InteractionDate = firstTimestamp(conv)
	}
	return child, conv
}

// applyChatMetadata checks a chat's own metadata (Earshot JSON "metadata")
// with the upload rules and lays it over what the chat inherited from its
// archive. Hierarchy keys and agent codes are resolved as the upload API
// resolves them; an agent code other than the archive's replaces the
// archive's agent link.
func (p Chats) applyChatMetadata(ctx context.Context, child *catalog.Interaction, raw []byte) error {
	m, merr := uploadmeta.Parse(raw, uploadmeta.Text)
	if merr != nil {
		return fmt.Errorf("metadata: %s %v", merr.Sentence, merr.Fields)
	}
	// The agent code is resolved only when it names another agent than
	// the archive's, whose link the chat already has.
	newAgent := m.AgentCode != nil && (child.AgentCode == nil || !strings.EqualFold(*child.AgentCode, *m.AgentCode))
	hierarchyKeys := m.HierarchyID != nil || m.HierarchyCode != nil
	var refs catalog.UploadRefs
	if p.Directory == nil && hierarchyKeys {
		return errors.New("metadata: hierarchy keys cannot be resolved here")
	}
	if p.Directory != nil && (hierarchyKeys || newAgent) {
		var agentCode *string
		if newAgent {
			agentCode = m.AgentCode
		}
		var err error
		refs, err = p.Directory.ResolveUploadRefs(ctx, child.OrgID, m.HierarchyID, m.HierarchyCode, agentCode)
		switch {
		case errors.Is(err, catalog.ErrUnknownHierarchy):
			return fmt.Errorf("metadata: %s", uploadmeta.SentenceHierarchy)
		case err != nil:
			return fmt.Errorf("metadata: %w", err)
		}
	}
	if refs.NodeID != nil {
		child.HierarchyNodeID = refs.NodeID
	}
	for _, f := range []struct {
		dst **string
		src *string
	}{
		{&child.ClientCallID, m.ClientCallID}, {&child.CallDirection, m.CallDirection}, {&child.CustomerName, m.Name},
		{&child.Phone, m.Phone}, {&child.Email, m.Email}, {&child.AgentFirstName, m.AgentFirstName}, {&child.AgentLastName, m.AgentLastName},
	} {
		if f.src != nil {
			*f.dst = f.src
		}
	}
	if newAgent {
		child.AgentCode, child.AgentID = m.AgentCode, nil
		if m.AgentFirstName == nil && m.AgentLastName == nil {
			// The archive's agent names are not this chat's agent's.
			child.AgentFirstName, child.AgentLastName = nil, nil
			if a := refs.Agent; a != nil {
				child.AgentFirstName, child.AgentLastName = &a.FirstName, &a.LastName
			}
		}
		if refs.Agent != nil {
			child.AgentID = &refs.Agent.ID
		}
	}
	if m.InteractionDate != nil {
		child.InteractionDate = m.InteractionDate
	}
	if m.LocaleGiven {
		child.LocaleID = m.LocaleID
	}
	for k, v := range m.Extended {
		child.ExtendedMetadata[k] = v
	}
	return nil
}

// walkZip spools the zip to a temporary file: its directory is at the end.
func walkZip(w archive.Walker, r io.Reader, fn func(archive.Entry) error) ([]archive.Skipped, error) {
	f, err := os.CreateTemp("", "earshot-zip-*")
	if err != nil {
		return nil, ourFault(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	size, err := io.Copy(f, r)
	if err != nil {
		return nil, ourFault(fmt.Errorf("the staged file cannot be read: %w", err))
	}
	return w.WalkZip(f, size, fn)
}

// childOf makes an archive's chat record: its id, the archive's
// metadata.
func childOf(up catalog.Interaction, id, fileName, entry string) catalog.Interaction {
	child := up
	child.ID = id
	child.UploadID = &up.ID
	child.MediaType = catalog.MediaProcessedChat
	child.Status = catalog.StatusReadyToSample
	child.FileName = fileName
	base := path.Base(entry)
	child.OrigFileName = &base
	child.SHA256, child.ChatMessageCount, child.ProcessFailures = nil, nil, nil
	child.ExtendedMetadata = map[string]string{}
	for k, v := range up.ExtendedMetadata {
		child.ExtendedMetadata[k] = v
	}
	return child
}

func firstTimestamp(conv *chat.Conversation) *time.Time {
	for _, m := range conv.Messages {
		if m.Timestamp != nil {
			t := m.Timestamp.UTC()
			return &t
		}
	}
	return nil
}

// appendChatRows adds a chat's lake rows to b. A message starts at its
// offset from the first timestamped message (or its HH:MM:SS offset) and
// ends where the next one starts.
func appendChatRows(b *lake.Batch, it catalog.Interaction, runID string, conv *chat.Conversation) {
	row := conversationRow(it, runID, "chat")
	count := int32(len(conv.Messages))
	row.ChatMessageCount = &count
	b.Conversations = append(b.Conversations, row)
	starts := messageStarts(conv)
	for i, m := range conv.Messages {
		end := starts[i]
		if i+1 < len(starts) && starts[i+1] > end {
			end = starts[i+1]
		}
		b.Segments = append(b.Segments, lake.Segment{
			ConversationID: it.ID, RunID: runID, OrgID: it.OrgID, ArrivedOn: it.ArrivedOn, Index: int32(i),
			Speaker: m.Participant, StartMs: starts[i], EndMs: end, Text: m.Text,
		})
	}
}

// conversationRow is a record's row of the conversations table: its
// metadata and how it was transcribed (chat, stereo or mono).
func conversationRow(it catalog.Interaction, runID, mode string) lake.Conversation {
	return lake.Conversation{
		ID: it.ID, RunID: runID, OrgID: it.OrgID, UploadID: it.UploadID, MediaType: it.MediaType, FileName: it.FileName,
		ArrivedOn: it.ArrivedOn, InteractionDate: it.InteractionDate, HierarchyNodeID: it.HierarchyNodeID, AgentID: it.AgentID,
		AgentCode: it.AgentCode, ClientCallID: it.ClientCallID, CallDirection: it.CallDirection, LocaleID: int32(it.LocaleID),
		ExtendedMetadata: jsonObject(it.ExtendedMetadata), TranscriptMode: mode,
	}
}

func messageStarts(conv *chat.Conversation) []int64 {
	starts := make([]int64, len(conv.Messages))
	var origin *time.Time
	var last int64
	for i, m := range conv.Messages {
		switch {
		case m.Offset != nil:
			last = m.Offset.Milliseconds()
		case m.Timestamp != nil:
			if origin == nil {
				origin = m.Timestamp
			}
			last = max(m.Timestamp.Sub(*origin).Milliseconds(), 0)
		}
		starts[i] = last
	}
	return starts
}

// jsonObject writes metadata values as a JSON object (keys sorted).
func jsonObject(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	data, _ := json.Marshal(m)
	return string(data)
}
