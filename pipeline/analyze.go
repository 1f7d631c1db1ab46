package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/earshot/earshot/internal/cores"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/core"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// ClassifierSource lists an organization's classifiers
// (catalog.ClassifierStore).
type ClassifierSource interface {
	Classifiers(ctx context.Context, orgID string, f catalog.ClassifierFilter) ([]catalog.Classifier, error)
}

// HierarchySource gives an organization's hierarchy, which classifiers
// are scoped by (catalog.PeopleStore).
type HierarchySource interface {
	Hierarchy(ctx context.Context, orgID string) (*catalog.Tree, error)
}

// PrivacySource gives an organization's privacy settings: whether
// personal data is redacted (catalog.SettingStore).
type PrivacySource interface {
	PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error)
}

// Analyzer runs each organization's active classifiers over processed
// conversations and adds their results to the batch, so they are
// committed with the conversations (one commit, the same run).
type Analyzer struct {
	Classifiers ClassifierSource
	Hierarchy   HierarchySource
	Privacy     PrivacySource
	Compiler    registry.Compiler
	Log         *slog.Logger

	mu   sync.Mutex
	sets map[string]*orgSet
}

// orgSet is an organization's compiled classifiers and hierarchy; never
// changed once made (workers read it without the lock).
type orgSet struct {
	set       *registry.Set
	tree      *catalog.Tree
	redactPII bool
	signature string // the classifier ids and versions it was built from
}

// set returns the organization's current set, rebuilt when a classifier
// changed. It reads the classifiers and the hierarchy for every batch: the
// catalog keeps them in memory and drops them on a change made by any
// process, so a batch always sees the classifiers of its moment.
func (a *Analyzer) set(ctx context.Context, org string) (*orgSet, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list, err := a.Classifiers.Classifiers(ctx, org, catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		return nil, err
	}
	tree, err := a.Hierarchy.Hierarchy(ctx, org)
	if err != nil {
		return nil, err
	}
	privacy, err := a.Privacy.PrivacySettings(ctx, org)
	if err != nil {
		return nil, err
	}
	var sig strings.Builder
	for _, c := range list {
		fmt.Fprintf(&sig, "%s:%d ", c.ID, c.Version)
	}
	if s, ok := a.sets[org]; ok && s.signature == sig.String() {
		// A new orgSet, not the old one changed: workers read theirs
		// without the lock.
		s = &orgSet{set: s.set, tree: tree, redactPII: privacy.RedactPII, signature: s.signature}
		a.sets[org] = s
		return s, nil
	}
	var compiled []*registry.Compiled
	for _, c := range list {
		cc, err := a.Compiler.Compile(org, RegistryClassifier(c))
		if err != nil {
			// Definitions are checked when written; this one no longer
			// compiles (an LLM endpoint was removed): it is skipped.
			a.Log.Warn("classifier skipped", "org", org, "classifier", c.ID, "version", c.Version, "err", err)
			continue
		}
		compiled = append(compiled, cc)
	}
	if a.sets == nil {
		a.sets = map[string]*orgSet{}
	}
	s := &orgSet{set: registry.NewSet(compiled), tree: tree, redactPII: privacy.RedactPII, signature: sig.String()}
	a.sets[org] = s
	return s, nil
}

// Analyze classifies the batch's conversations, then redacts personal data
// from their transcripts when the organization asks for it (classifiers
// see the original: a PII classifier must find it). It returns how many
// results could not be had (a classifier's failure — an LLM timeout —
// leaves that result out, the rest stand).
func (a *Analyzer) Analyze(ctx context.Context, b *lake.Batch) (int, error) {
	if len(b.Conversations) == 0 {
		return 0, nil
	}
	segments := map[string][]int{} // conversation → its segments' places in the batch
	for i, s := range b.Segments {
		segments[s.ConversationID] = append(segments[s.ConversationID], i)
	}
	// Each organization's set is read once for the batch, before any
	// conversation is classified.
	sets := make([]*orgSet, len(b.Conversations))
	byOrg := map[string]*orgSet{}
	for i, row := range b.Conversations {
		s, ok := byOrg[row.OrgID]
		if !ok {
			var err error
			if s, err = a.set(ctx, row.OrgID); err != nil {
				return 0, fmt.Errorf("the organization's classifiers cannot be read: %w", err)
			}
			byOrg[row.OrgID] = s
		}
		sets[i] = s
	}
	// The conversations are classified in groups at once, each
	// conversation on one of the context's cores: an upload's last
	// conversations do not leave the other cores of its job idle. Each
	// conversation writes its results in place, at most one a classifier
	// of its set, and the places a failed classifier left are closed up
	// after.
	base := len(b.ClassifierResults)
	places := make([]int, len(b.Conversations)+1) // conversation i's results start at base+places[i]
	for i, s := range sets {
		places[i+1] = places[i] + len(s.set.Classifiers)
	}
	end := base + places[len(sets)]
	b.ClassifierResults = slices.Grow(b.ClassifierResults, end-base)[:end]
	b.ModelResults = slices.Grow(b.ModelResults, end-base)[:end]
	written := make([]int, len(b.Conversations))
	now := time.Now().UTC()
	groups := (len(b.Conversations) + groupConversations - 1) / groupConversations
	state := make([]group, groups)
	classify := func(g int) {
		lo, hi := g*groupConversations, min((g+1)*groupConversations, len(b.Conversations))
		var core cores.Kept
		defer core.Release()
		for i := lo; i < hi; i++ {
			// A conversation is classified on one of the context's
			// cores, kept for the group's next ones, unless a
			// classifier of its set waits on the network (an LLM): a
			// core held while waiting would idle the job's other work.
			core.Hold(ctx, !sets[i].set.WaitsOnNetwork())
			written[i] = a.classify(ctx, b, i, sets[i], segments[b.Conversations[i].ID], base+places[i], now, &state[g])
		}
	}
	// As many goroutines as the context has cores take the groups in
	// turn: more would only queue for a core, each handing it to the next
	// as it ends a group. When a set waits on the network every group has
	// its own, so that their waits overlap.
	runners := min(groups, cores.Size(ctx))
	for _, s := range byOrg {
		if s.set.WaitsOnNetwork() {
			runners = groups
		}
	}
	var next atomic.Int64
	run := func() {
		for g := int(next.Add(1) - 1); g < groups; g = int(next.Add(1) - 1) {
			classify(g)
		}
	}
	var wg sync.WaitGroup
	for range runners - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
	b.ClassifierResults = closeUp(b.ClassifierResults, base, places, written)
	b.ModelResults = closeUp(b.ModelResults, base, places, written)
	failed := 0
	for _, g := range state {
		failed += g.failed
	}
	return failed, nil
}

// closeUp moves each conversation's rows (written[i] of them from
// base+places[i] on) up to the ones before, and returns rows without the
// places left over (cleared: they would hold on to what they point at).
func closeUp[T any](rows []T, base int, places, written []int) []T {
	at := base
	for i, n := range written {
		if from := base + places[i]; from != at {
			copy(rows[at:at+n], rows[from:from+n])
		}
		at += n
	}
	clear(rows[at:])
	return rows[:at]
}

// groupConversations is how many conversations of a batch one goroutine
// classifies: enough that handing them over costs little beside them.
const groupConversations = 16

// group is what the goroutine classifying a group of conversations keeps
// from one to the next.
type group struct {
	outcomes []registry.Outcome
	failed   int
}

// classify classifies the batch's conversation i, writing its results
// from place at on, and redacts its turns (theirs alone: conversations
// are classified at once). It returns how many results it wrote.
func (a *Analyzer) classify(ctx context.Context, b *lake.Batch, i int, s *orgSet, turns []int, at int, now time.Time, g *group) int {
	row := b.Conversations[i]
	start := at
	if len(s.set.Classifiers) > 0 {
		g.outcomes = s.set.EvaluateInto(ctx, conversationOf(row, b.Segments, turns, s.tree), g.outcomes)
		for _, o := range g.outcomes {
			if o.Err != nil {
				g.failed++
				a.Log.Warn("classifier failed", "org", row.OrgID, "conversation", row.ID, "classifier", o.Classifier.ID, "err", o.Err)
				continue
			}
			b.ClassifierResults[at], b.ModelResults[at] = ResultRows(row.ID, row.OrgID, row.RunID, row.ArrivedOn, o, now)
			at++
		}
	}
	if s.redactPII {
		for _, k := range turns {
			redact(&b.Segments[k])
		}
		for k := 1; k < len(turns); k++ {
			redactAcross(&b.Segments[turns[k-1]], &b.Segments[turns[k]])
		}
	}
	return at - start
}

// redact replaces a turn's personal data with its kind ("[card]") and
// blanks the timed words that could spell it.
func redact(s *lake.Segment) {
	text, changed := core.Redact(s.Text)
	if !changed {
		return
	}
	s.Text = text
	blankWords(s)
}

// RedactedWord stands in a redacted turn for each timed word that could
// spell what was redacted.
const RedactedWord = "[redacted]"

// blankWords blanks a redacted turn's timed words that could spell what
// was redacted: those that may be part of personal data (digits, spoken
// digits), and those its text no longer holds (a spoken address's name),
// in order, as many times as it no longer holds them.
func blankWords(s *lake.Segment) {
	kept := map[string]int{}
	for _, w := range strings.Fields(s.Text) {
		kept[wordKey(w)]++
	}
	for i := range s.Words {
		key := wordKey(s.Words[i].Word)
		if core.PIIWord(s.Words[i].Word) || kept[key] == 0 {
			s.Words[i].Word = RedactedWord
			continue
		}
		kept[key]--
	}
}

// wordKey is a word as the comparison of a turn's text and its timed words
// reads it.
func wordKey(w string) string { return strings.ToLower(strings.Trim(w, ".,!?;:")) }

// redactAcross redacts a card number one speaker sent as two messages in
// a row, and blanks the words that could spell it.
func redactAcross(a, b *lake.Segment) {
	if a.Speaker != b.Speaker {
		return
	}
	var changed bool
	if a.Text, b.Text, changed = core.RedactAcross(a.Text, b.Text); !changed {
		return
	}
	blankWords(a)
	blankWords(b)
}

// conversationOf is a processed conversation as classifiers read it: its
// row and its turns, segments[k] for each k of turns.
func conversationOf(row lake.Conversation, segments []lake.Segment, turns []int, tree *catalog.Tree) *analysis.Conversation {
	c := &analysis.Conversation{ID: row.ID, OrgID: row.OrgID, Turns: make([]analysis.Turn, len(turns))}
	for i, k := range turns {
		s := &segments[k]
		t := analysis.Turn{Speaker: s.Speaker, Text: s.Text, StartMs: s.StartMs, EndMs: s.EndMs}
		for _, w := range s.Words {
			t.Words = append(t.Words, analysis.Word{Text: w.Word, StartMs: w.StartMs, EndMs: w.EndMs})
		}
		c.Turns[i] = t
	}
	var extended map[string]string
	json.Unmarshal([]byte(row.ExtendedMetadata), &extended)
	var messages *int
	if row.ChatMessageCount != nil {
		n := int(*row.ChatMessageCount)
		messages = &n
	}
	c.Metadata = metadataOf(row.CallDirection, row.AgentCode, row.HierarchyNodeID, row.CallDurationMillis, messages, int(row.LocaleID), extended, tree)
	return c
}

// StoredConversation is a conversation already in the catalog and the lake
// as classifiers read it (a classifier's Test, a reclassification).
func StoredConversation(it catalog.Interaction, segs []catalog.TranscriptSegment, tree *catalog.Tree) *analysis.Conversation {
	c := &analysis.Conversation{ID: it.ID, OrgID: it.OrgID, Turns: make([]analysis.Turn, len(segs))}
	for i, s := range segs {
		t := analysis.Turn{Speaker: s.Speaker, Text: s.Text, StartMs: s.StartMs, EndMs: s.EndMs}
		for _, w := range s.Words {
			t.Words = append(t.Words, analysis.Word{Text: w.Word, StartMs: w.StartMs, EndMs: w.EndMs})
		}
		c.Turns[i] = t
	}
	c.Metadata = metadataOf(it.CallDirection, it.AgentCode, it.HierarchyNodeID, it.CallDurationMillis, it.ChatMessageCount, it.LocaleID, it.ExtendedMetadata, tree)
	return c
}

func metadataOf(direction, agentCode, node *string, durationMs *int64, messages *int, locale int, extended map[string]string, tree *catalog.Tree) analysis.Metadata {
	m := analysis.Metadata{CallDurationMillis: durationMs, LocaleID: locale, ExtendedMetadata: extended}
	if direction != nil {
		m.CallDirection = *direction
	}
	if agentCode != nil {
		m.AgentCode = *agentCode
	}
	if messages != nil {
		n := int64(*messages)
		m.ChatMessageCount = &n
	}
	if node != nil && tree != nil {
		m.HierarchyCodes = tree.CodesUpward(*node)
	}
	return m
}

// ResultRows are a classifier outcome's rows of classifier_results and
// model_results (the ModelResults event: a boolean classifier's result as a
// boolean, any other's as text), for a conversation's partition.
func ResultRows(conversationID, orgID, runID string, arrivedOn time.Time, out registry.Outcome, at time.Time) (lake.ClassifierResult, lake.ModelResult) {
	cl := out.Classifier
	cr := lake.ClassifierResult{ConversationID: conversationID, RunID: runID, OrgID: orgID, ArrivedOn: arrivedOn,
		ClassifierID: cl.ID, Version: int32(cl.Version), Type: cl.Type, Category: cl.Category, Result: out.Result.Value, Score: out.Result.Score}
	if out.Result.Reasoning != "" {
		cr.Reasoning = &out.Result.Reasoning
	}
	for _, e := range out.Result.Evidence {
		cr.Evidence = append(cr.Evidence, lake.Evidence{Turn: int32(e.Turn), StartMs: e.StartMs, EndMs: e.EndMs, Text: e.Text})
	}
	mr := lake.ModelResult{ConversationID: conversationID, RunID: runID, OrgID: orgID, ArrivedOn: arrivedOn,
		EventType: "ModelResults", EventTime: at, ModelID: cl.ID, Version: int32(cl.Version)}
	if out.Result.Bool != nil {
		mr.Result = out.Result.Bool
	} else {
		text := out.Result.Value
		mr.TextResult = &text
	}
	return cr, mr
}
