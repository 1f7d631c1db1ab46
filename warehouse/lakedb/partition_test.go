package lakedb

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

func ptr[T any](v T) *T { return &v }

// What the lake writer stores, a partition read gives back field for field
// (the writer builds its records by column position, the read selects
// columns by name): every field of every table set to a value of its own.
// Of two runs of a conversation only the current one's rows come back, and
// of its results the newest not older than that run (lake/current.go).
func TestReadPartitionGivesBackWhatWasWritten(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	bucket, err := blob.OpenLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 10, 3, 0, 0, 0, 0, time.UTC)
	conv := func(id, run string) lake.Conversation {
		return lake.Conversation{ID: id, RunID: run, OrgID: "o1", UploadID: ptr("u-" + id), MediaType: "ProcessedChat",
			FileName: id + ".json", ArrivedOn: day.Add(90 * time.Minute), InteractionDate: ptr(day.Add(-time.Hour).UTC()),
			HierarchyNodeID: ptr("n1"), AgentID: ptr("a1"), AgentCode: ptr("A-1"), ClientCallID: ptr("call-" + id),
			CallDirection: ptr("Inbound"), LocaleID: 1033, CallDurationMillis: ptr(int64(61_000)), ChatMessageCount: ptr(int32(7)),
			ExtendedMetadata: `{"queue":"billing"}`, TranscriptMode: "chat", TranscriptEngine: ptr("engine"), TranscriptModel: ptr("model")}
	}
	segment := func(id, run string, i int32) lake.Segment {
		return lake.Segment{ConversationID: id, RunID: run, OrgID: "o1", ArrivedOn: day, Index: i, Speaker: "Customer",
			StartMs: 1000 * int64(i), EndMs: 1000*int64(i) + 900, Text: "turn of " + run, Confidence: ptr(float32(0.75)),
			Words: []lake.Word{{Word: "turn", StartMs: 10, EndMs: 400, Confidence: 0.5}, {Word: "of", StartMs: 410, EndMs: 600, Confidence: 0.25}}}
	}
	classified := func(id, run, classifier, result string) lake.ClassifierResult {
		return lake.ClassifierResult{ConversationID: id, RunID: run, OrgID: "o1", ArrivedOn: day, ClassifierID: classifier, Version: 4,
			Type: "Classifier", Category: "Topics", Result: result, Reasoning: ptr("because " + run), Score: ptr(0.625),
			Evidence: []lake.Evidence{{Turn: 2, StartMs: 2000, EndMs: 2900, Text: "cancel"}}}
	}
	modeled := func(id, run, model string, result bool) lake.ModelResult {
		return lake.ModelResult{ConversationID: id, RunID: run, OrgID: "o1", ArrivedOn: day, EventType: "ModelResults",
			EventTime: day.Add(3 * time.Hour), ModelID: model, Version: 4, Result: ptr(result), TextResult: ptr("text " + run)}
	}
	// c1 was processed by r1 and again by r3 (current); r2 reclassified k1
	// in between, older than c1's current run. c2 is r1's, reclassified by
	// r2. c3 is not in the catalog's runs (its archive's re-run lost it).
	w := &lake.Writer{Bucket: bucket}
	var files []catalog.LakeFile
	for run, b := range map[string]lake.Batch{
		"r1": {Conversations: []lake.Conversation{conv("c1", "r1"), conv("c2", "r1"), conv("c3", "r1")},
			Segments:          []lake.Segment{segment("c1", "r1", 0), segment("c2", "r1", 0), segment("c2", "r1", 1), segment("c3", "r1", 0)},
			ClassifierResults: []lake.ClassifierResult{classified("c1", "r1", "k1", "true"), classified("c2", "r1", "k1", "true"), classified("c2", "r1", "k2", "false")},
			ModelResults:      []lake.ModelResult{modeled("c1", "r1", "k1", true), modeled("c2", "r1", "k1", true)}},
		"r2": {ClassifierResults: []lake.ClassifierResult{classified("c1", "r2", "k1", "false"), classified("c2", "r2", "k1", "false")},
			ModelResults: []lake.ModelResult{modeled("c1", "r2", "k1", false), modeled("c2", "r2", "k1", false)}},
		"r3": {Conversations: []lake.Conversation{conv("c1", "r3")}, Segments: []lake.Segment{segment("c1", "r3", 0), segment("c1", "r3", 1)},
			ClassifierResults: []lake.ClassifierResult{classified("c1", "r3", "k2", "true")}},
	} {
		written, err := w.Write(ctx, run, b)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, written...)
	}
	db, err := Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs := map[string]string{"c1": "r3", "c2": "r1"}
	read := func(table string) lake.Batch {
		t.Helper()
		p := catalog.Partition{OrgID: "o1", Table: table, Date: day}
		for _, f := range files {
			if f.Table == table {
				p.Paths = append(p.Paths, f.Path)
			}
		}
		b, err := db.ReadPartition(ctx, p, runs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	check := func(table string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s read back\n%+v\nwant\n%+v", table, got, want)
		}
	}

	convs := read(lake.TableConversations).Conversations
	slices.SortFunc(convs, func(a, b lake.Conversation) int { return cmp.Compare(a.ID, b.ID) })
	check(lake.TableConversations, convs, []lake.Conversation{conv("c1", "r3"), conv("c2", "r1")})

	segs := read(lake.TableSegments).Segments
	slices.SortFunc(segs, func(a, b lake.Segment) int {
		return cmp.Or(cmp.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Index, b.Index))
	})
	check(lake.TableSegments, segs, []lake.Segment{segment("c1", "r3", 0), segment("c1", "r3", 1), segment("c2", "r1", 0), segment("c2", "r1", 1)})

	results := read(lake.TableClassifierResults).ClassifierResults
	slices.SortFunc(results, func(a, b lake.ClassifierResult) int {
		return cmp.Or(cmp.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.ClassifierID, b.ClassifierID))
	})
	check(lake.TableClassifierResults, results, []lake.ClassifierResult{classified("c1", "r3", "k2", "true"),
		classified("c2", "r2", "k1", "false"), classified("c2", "r1", "k2", "false")})

	models := read(lake.TableModelResults).ModelResults
	slices.SortFunc(models, func(a, b lake.ModelResult) int { return cmp.Compare(a.ConversationID, b.ConversationID) })
	check(lake.TableModelResults, models, []lake.ModelResult{modeled("c2", "r2", "k1", false)})

	if _, err := db.ReadPartition(ctx, catalog.Partition{OrgID: "o1", Table: "nope", Date: day, Paths: []string{files[0].Path}}, runs); err == nil {
		t.Error("an unknown table was read")
	}
}
