package lake

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/internal/cores"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Putter stores objects.
type Putter interface {
	Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error)
}

// Prefix is where the lake lives in the bucket.
const Prefix = "lake/"

// Writer writes batches to the bucket, one file per table and partition.
type Writer struct {
	Bucket Putter
	// Cache, when set, is the local directory DuckDB reads a remote
	// bucket's lake from: every file is written through to it.
	Cache string
	// Workers is how many files are encoded at once, and how many a large
	// partition is split into at most (0: the cores the process may use).
	Workers int
}

// partition is an organization and an arrival day (UTC midnight).
type partition struct {
	org string
	day time.Time
}

// minRowsPerSplit is the smallest share of a partition worth a file of its
// own when a large partition is split to use every core: small enough that
// a batch of many workers' uploads makes about a file a core (a batch's
// write waits for its largest file), large enough that a file's fixed
// costs (footer, dictionaries, its put) stay small beside its rows';
// compaction merges the files later.
const minRowsPerSplit = 8192

// fileJob is one file to write.
type fileJob struct {
	table string
	p     partition
	build func() arrow.RecordBatch
	meta  func(*catalog.LakeFile)
}

// Write writes a batch's files and describes them for the manifest. The
// files are not visible to readers until they are committed. A large
// partition is split, at conversation boundaries, into files with disjoint
// id ranges, and files are written in parallel (encoding and compression
// are CPU-bound); compaction merges them later.
func (w *Writer) Write(ctx context.Context, runID string, b Batch) ([]catalog.LakeFile, error) {
	convs := groupByPartition(b.Conversations, func(c *Conversation) partition { return partitionOf(c.OrgID, c.ArrivedOn) })
	segs := groupByPartition(b.Segments, func(s *Segment) partition { return partitionOf(s.OrgID, s.ArrivedOn) })
	classified := sortedResults(b.ClassifierResults, func(r *ClassifierResult) partition { return partitionOf(r.OrgID, r.ArrivedOn) }, classifierResultKey)
	workers := w.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var jobs []fileJob
	for _, p := range sortedPartitions(convs) {
		rows := convs[p]
		sortRows(rows, func(a, b *Conversation) int { return strings.Compare(a.ID, b.ID) })
		for _, part := range splitAt(len(rows), workers, func(i int) bool { return true }) {
			chunk := rows[part[0]:part[1]]
			jobs = append(jobs, fileJob{TableConversations, p, func() arrow.RecordBatch { return conversationRecord(chunk) },
				func(f *catalog.LakeFile) {
					f.Rows, f.MinID, f.MaxID = int64(len(chunk)), chunk[0].ID, chunk[len(chunk)-1].ID
					f.MinInteraction, f.MaxInteraction = timeRange(chunk, effectiveInteraction)
					f.MinArrival, f.MaxArrival = timeRange(chunk, arrival)
					f.NodeCounts = nodeCounts(chunk)
					f.CompleteClassifiers = completeClassifiers(chunk, classified[p])
				}})
		}
	}
	for _, p := range sortedPartitions(segs) {
		rows := segs[p]
		sortRows(rows, func(a, b *Segment) int {
			if c := strings.Compare(a.ConversationID, b.ConversationID); c != 0 {
				return c
			}
			return cmp.Compare(a.Index, b.Index)
		})
		boundary := func(i int) bool { return rows[i].ConversationID != rows[i-1].ConversationID }
		for _, part := range splitAt(len(rows), workers, boundary) {
			chunk := rows[part[0]:part[1]]
			jobs = append(jobs, fileJob{TableSegments, p, func() arrow.RecordBatch { return segmentRecord(chunk) },
				func(f *catalog.LakeFile) {
					f.Rows, f.MinID, f.MaxID = int64(len(chunk)), chunk[0].ConversationID, chunk[len(chunk)-1].ConversationID
				}})
		}
	}
	jobs = append(jobs, resultJobs(classified, TableClassifierResults, workers, classifierResultKey, classifierResultRecord)...)
	modeled := sortedResults(b.ModelResults, func(r *ModelResult) partition { return partitionOf(r.OrgID, r.ArrivedOn) }, modelResultKey)
	jobs = append(jobs, resultJobs(modeled, TableModelResults, workers, modelResultKey, modelResultRecord)...)
	files := make([]catalog.LakeFile, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	// A file is stored while the next ones are encoded: on an object store
	// a put is a round trip, which an encoder waiting on it would add to
	// the batch's write as many times as it has files.
	var encoders sync.WaitGroup
	var puts errgroup.Group // each put keeps its error in errs: all of them are reported
	puts.SetLimit(putsAtOnce)
	for range workers {
		encoders.Go(func() {
			for i := range next {
				data, err := encode(ctx, jobs[i])
				if err != nil {
					errs[i] = err
					continue
				}
				puts.Go(func() error {
					f, err := w.put(ctx, jobs[i].table, jobs[i].p, runID, data)
					if err == nil {
						jobs[i].meta(&f)
					}
					files[i], errs[i] = f, err
					return nil
				})
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	encoders.Wait()
	puts.Wait() // nil: the puts report in errs
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return files, nil
}

// classifierResultKey and modelResultKey are what results files are sorted
// by: conversation, then classifier.
func classifierResultKey(r *ClassifierResult) (string, string) {
	return r.ConversationID, r.ClassifierID
}
func modelResultKey(r *ModelResult) (string, string) { return r.ConversationID, r.ModelID }

// sortedResults groups the rows of a results table by partition, each
// partition's sorted by conversation then classifier (key).
func sortedResults[T any](rows []T, part func(*T) partition, key func(*T) (string, string)) map[partition][]T {
	byPartition := groupByPartition(rows, part)
	for _, chunk := range byPartition {
		sortRows(chunk, func(a, b *T) int {
			ac, am := key(a)
			bc, bm := key(b)
			return cmp.Or(strings.Compare(ac, bc), strings.Compare(am, bm))
		})
	}
	return byPartition
}

// resultJobs are the files of a results table, from its sortedResults:
// a large partition is split at conversation boundaries into up to
// workers files, as the conversations' and segments' are (a batch holds
// a result of every classifier for each conversation: often more rows
// than its segments).
func resultJobs[T any](byPartition map[partition][]T, table string, workers int, key func(*T) (string, string), record func([]T) arrow.RecordBatch) []fileJob {
	var jobs []fileJob
	for _, p := range sortedPartitions(byPartition) {
		rows := byPartition[p]
		boundary := func(i int) bool {
			a, _ := key(&rows[i-1])
			b, _ := key(&rows[i])
			return a != b
		}
		for _, part := range splitAt(len(rows), workers, boundary) {
			chunk := rows[part[0]:part[1]]
			jobs = append(jobs, fileJob{table, p, func() arrow.RecordBatch { return record(chunk) }, func(f *catalog.LakeFile) {
				first, _ := key(&chunk[0])
				last, _ := key(&chunk[len(chunk)-1])
				f.Rows, f.MinID, f.MaxID = int64(len(chunk)), first, last
			}})
		}
	}
	return jobs
}

// partitionOf is cheap on purpose (no formatting): it runs for every row.
func partitionOf(org string, arrived time.Time) partition {
	y, m, d := arrived.UTC().Date()
	return partition{org, time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// groupByPartition splits rows by partition. Rows are large structs and a
// batch can hold hundreds of thousands: when they all fall in one
// partition (the usual case) the batch's own slice is used, not a copy.
func groupByPartition[T any](rows []T, of func(*T) partition) map[partition][]T {
	if len(rows) == 0 {
		return nil
	}
	first := of(&rows[0])
	mixed := false
	for i := range rows {
		if of(&rows[i]) != first {
			mixed = true
			break
		}
	}
	if !mixed {
		return map[partition][]T{first: rows}
	}
	out := map[partition][]T{}
	for i := range rows {
		p := of(&rows[i])
		out[p] = append(out[p], rows[i])
	}
	return out
}

// sortRows sorts rows in place, stably, unless they already are in order
// (ids are UUIDv7s handed out in arrival order, but uploads processed side
// by side interleave theirs). Rows are large structs: their positions are
// sorted, comparing the rows where they lie, and the rows are then moved
// once.
func sortRows[T any](rows []T, compare func(a, b *T) int) {
	sorted := true
	for i := 1; i < len(rows) && sorted; i++ {
		sorted = compare(&rows[i-1], &rows[i]) <= 0
	}
	if sorted {
		return
	}
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(compare(&rows[a], &rows[b]), cmp.Compare(a, b)) })
	moved := make([]T, len(rows))
	for i, from := range order {
		moved[i] = rows[from]
	}
	copy(rows, moved)
}

// splitAt cuts n sorted rows into up to parts ranges of at least
// minRowsPerSplit rows, each cut at a row where boundary is true (a new
// conversation), so a conversation's rows stay in one file.
func splitAt(n, parts int, boundary func(i int) bool) [][2]int {
	if n == 0 {
		return nil
	}
	parts = max(1, min(parts, n/minRowsPerSplit))
	var out [][2]int
	start := 0
	for k := 1; k < parts; k++ {
		cut := max(n*k/parts, start+1)
		for cut < n && !boundary(cut) {
			cut++
		}
		if cut >= n {
			break
		}
		out = append(out, [2]int{start, cut})
		start = cut
	}
	return append(out, [2]int{start, n})
}

func sortedPartitions[T any](m map[partition]T) []partition {
	out := make([]partition, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].org != out[j].org {
			return out[i].org < out[j].org
		}
		return out[i].day.Before(out[j].day)
	})
	return out
}

// timeRange is the earliest and the latest of at over rows (nil for
// none): a file's range kept in the manifest for pruning.
func timeRange(rows []Conversation, at func(*Conversation) time.Time) (lo, hi *time.Time) {
	if len(rows) == 0 {
		return nil, nil
	}
	first, last := at(&rows[0]), at(&rows[0])
	for i := range rows[1:] {
		t := at(&rows[i+1])
		if t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return &first, &last
}

// effectiveInteraction is when a conversation took place: its interaction
// date, or its arrival when none was given (what InteractionDate queries
// filter on).
func effectiveInteraction(r *Conversation) time.Time {
	if r.InteractionDate != nil {
		return *r.InteractionDate
	}
	return r.ArrivedOn
}

func arrival(r *Conversation) time.Time { return r.ArrivedOn }

// Path is the object key of a lake file: the run that wrote it and a file
// id of its own (a run writes many batches).
func Path(table, org, date, runID, fileID string) string {
	return fmt.Sprintf("%s%s/org=%s/date=%s/part-%s-%s.parquet", Prefix, table, org, date, runID, fileID)
}

// encode builds a file's rows and encodes them as Parquet, on one of the
// context's cores (the CPU-bound part of writing a file).
func encode(ctx context.Context, job fileJob) ([]byte, error) {
	defer cores.Take(ctx).Release()
	rec := job.build()
	defer rec.Release()
	var buf bytes.Buffer
	if err := writeParquet(&buf, rec); err != nil {
		return nil, fmt.Errorf("write %s parquet: %w", job.table, err)
	}
	return buf.Bytes(), nil
}

// put stores an encoded file under a new key of its table and partition.
func (w *Writer) put(ctx context.Context, table string, p partition, runID string, data []byte) (catalog.LakeFile, error) {
	key := Path(table, p.org, p.day.Format(time.DateOnly), runID, catalog.NewID())
	if _, err := w.Bucket.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{IfAbsent: true}); err != nil {
		return catalog.LakeFile{}, fmt.Errorf("store %s: %w", key, err)
	}
	if w.Cache != "" {
		if err := WriteCache(w.Cache, key, data); err != nil {
			return catalog.LakeFile{}, fmt.Errorf("cache %s: %w", key, err)
		}
	}
	size := int64(len(data))
	return catalog.LakeFile{Path: key, Table: table, OrgID: p.org, Date: p.day, Bytes: size}, nil
}

// putsAtOnce bounds the files a batch stores at once (a batch of many
// days has a file per day and table).
const putsAtOnce = 32

// RowGroupRows is the most rows of a row group. The files are sorted by
// conversation id, and a page reads a narrow id range: with row groups
// this small DuckDB skips all but the few whose id statistics overlap it
// (a page of 1,000 conversations reads 2–3 row groups of a results file
// instead of the whole file), at a negligible cost in file size.
const RowGroupRows = 10_240

// writeParquet writes one record batch as a Parquet file: zstd level 1
// (cheap to write, small to read), row groups of RowGroupRows,
// dictionaries only where values repeat.
func writeParquet(w io.Writer, rec arrow.RecordBatch) error {
	opts := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(RowGroupRows),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDictionaryDefault(false),
	}
	for _, name := range dictionaryColumns {
		opts = append(opts, parquet.WithDictionaryFor(name, true))
	}
	rec = withDictionaries(rec)
	defer rec.Release()
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, parquet.NewWriterProperties(append(opts, parquet.WithAllocator(buffers))...),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(buffers)))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// dictionaryColumns are the columns of few distinct values, dictionary
// encoded in the files.
var dictionaryColumns = []string{"org_id", "run_id", "speaker", "media_type", "classifier_id", "model_id", "classifier_type",
	"category_name", "event_type", "result"}

var dictionaryType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// withDictionaries is rec (retained once more) with its dictionary
// columns of strings as Arrow dictionary arrays: the Parquet writer then
// takes each file's few values and their indices as they are, instead of
// looking every value up in its own table (which allocates for each).
func withDictionaries(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := slices.Clone(rec.Schema().Fields())
	cols := slices.Clone(rec.Columns())
	var built []arrow.Array
	for i, f := range fields {
		strs, ok := cols[i].(*array.String)
		if !ok || !slices.Contains(dictionaryColumns, f.Name) {
			continue
		}
		cols[i] = dictionaryOf(strs)
		built = append(built, cols[i])
		fields[i].Type = dictionaryType
	}
	if len(built) == 0 {
		rec.Retain()
		return rec
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, a := range built {
		a.Release() // the record holds them
	}
	return out
}

// dictionaryOf is strs as a dictionary array: its distinct values in order
// of first appearance, and each row's index into them.
func dictionaryOf(strs *array.String) arrow.Array {
	indices := array.NewInt32Builder(buffers)
	defer indices.Release()
	values := array.NewStringBuilder(buffers)
	defer values.Release()
	indices.Reserve(strs.Len())
	index := map[string]int32{}
	last, lastIndex := "", int32(-1)
	for i := range strs.Len() {
		if strs.IsNull(i) {
			indices.AppendNull()
			continue
		}
		v := strs.Value(i)
		if lastIndex < 0 || v != last {
			k, ok := index[v]
			if !ok {
				k = int32(len(index))
				index[v] = k
				values.Append(v)
			}
			last, lastIndex = v, k
		}
		indices.Append(lastIndex)
	}
	idx, dict := indices.NewArray(), values.NewArray()
	defer idx.Release()
	defer dict.Release()
	return array.NewDictionaryArray(dictionaryType, idx, dict)
}

var (
	timestampUTC = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	wordType     = arrow.StructOf(
		arrow.Field{Name: "word", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "start_ms", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "end_ms", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "confidence", Type: arrow.PrimitiveTypes.Float32},
	)
)

func str(name string, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: nullable}
}

// ConversationSchema is the conversations table.
var ConversationSchema = arrow.NewSchema([]arrow.Field{
	str("conversation_id", false), str("run_id", false), str("org_id", false), str("upload_id", true),
	str("media_type", false), str("file_name", false),
	{Name: "arrived_on", Type: timestampUTC}, {Name: "interaction_date", Type: timestampUTC, Nullable: true},
	str("hierarchy_node_id", true), str("agent_id", true), str("agent_code", true), str("client_call_id", true),
	str("call_direction", true), {Name: "locale_id", Type: arrow.PrimitiveTypes.Int32},
	{Name: "call_duration_millis", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "chat_message_count", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	str("extended_metadata", false), str("transcript_mode", false), str("transcript_engine", true), str("transcript_model", true),
}, nil)

// SegmentSchema is the transcript_segments table.
var SegmentSchema = arrow.NewSchema([]arrow.Field{
	str("conversation_id", false), str("run_id", false), str("org_id", false),
	{Name: "segment_index", Type: arrow.PrimitiveTypes.Int32}, str("speaker", false),
	{Name: "start_ms", Type: arrow.PrimitiveTypes.Int64}, {Name: "end_ms", Type: arrow.PrimitiveTypes.Int64},
	str("text", false), {Name: "confidence", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "words", Type: arrow.ListOf(wordType)},
}, nil)

var evidenceType = arrow.StructOf(
	arrow.Field{Name: "turn", Type: arrow.PrimitiveTypes.Int32},
	arrow.Field{Name: "start_ms", Type: arrow.PrimitiveTypes.Int64},
	arrow.Field{Name: "end_ms", Type: arrow.PrimitiveTypes.Int64},
	arrow.Field{Name: "text", Type: arrow.BinaryTypes.String},
)

// ClassifierResultSchema is the classifier_results table.
var ClassifierResultSchema = arrow.NewSchema([]arrow.Field{
	str("conversation_id", false), str("run_id", false), str("org_id", false), str("classifier_id", false),
	{Name: "classifier_version", Type: arrow.PrimitiveTypes.Int32}, str("classifier_type", false), str("category_name", false),
	str("result", false), str("reasoning", true), {Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "evidence", Type: arrow.ListOf(evidenceType)},
}, nil)

// ModelResultSchema is the model_results table.
var ModelResultSchema = arrow.NewSchema([]arrow.Field{
	str("conversation_id", false), str("run_id", false), str("org_id", false), str("event_type", false),
	{Name: "event_time", Type: timestampUTC}, str("model_id", false), {Name: "model_version", Type: arrow.PrimitiveTypes.Int32},
	{Name: "result", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}, str("text_result", true),
}, nil)

func classifierResultRecord(rows []ClassifierResult) arrow.RecordBatch {
	b := array.NewRecordBuilder(buffers, ClassifierResultSchema)
	defer b.Release()
	b.Reserve(len(rows)) // one allocation per column instead of doublings
	evidence := b.Field(10).(*array.ListBuilder)
	ev := evidence.ValueBuilder().(*array.StructBuilder)
	text := make([]int, 9)
	var evidences, evidenceText int
	for _, r := range rows {
		for i, s := range [...]string{r.ConversationID, r.RunID, r.OrgID, r.ClassifierID, 5: r.Type, r.Category, r.Result, deref(r.Reasoning)} {
			text[i] += len(s)
		}
		evidences += len(r.Evidence)
		for _, e := range r.Evidence {
			evidenceText += len(e.Text)
		}
	}
	reserveText(b.Field, text)
	ev.Reserve(evidences)
	reserveText(ev.FieldBuilder, []int{3: evidenceText})
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.ConversationID)
		b.Field(1).(*array.StringBuilder).Append(r.RunID)
		b.Field(2).(*array.StringBuilder).Append(r.OrgID)
		b.Field(3).(*array.StringBuilder).Append(r.ClassifierID)
		b.Field(4).(*array.Int32Builder).Append(r.Version)
		b.Field(5).(*array.StringBuilder).Append(r.Type)
		b.Field(6).(*array.StringBuilder).Append(r.Category)
		b.Field(7).(*array.StringBuilder).Append(r.Result)
		appendStr(b.Field(8).(*array.StringBuilder), r.Reasoning)
		if r.Score == nil {
			b.Field(9).AppendNull()
		} else {
			b.Field(9).(*array.Float64Builder).Append(*r.Score)
		}
		evidence.Append(true)
		for _, e := range r.Evidence {
			ev.Append(true)
			ev.FieldBuilder(0).(*array.Int32Builder).Append(e.Turn)
			ev.FieldBuilder(1).(*array.Int64Builder).Append(e.StartMs)
			ev.FieldBuilder(2).(*array.Int64Builder).Append(e.EndMs)
			ev.FieldBuilder(3).(*array.StringBuilder).Append(e.Text)
		}
	}
	return b.NewRecordBatch()
}

func modelResultRecord(rows []ModelResult) arrow.RecordBatch {
	b := array.NewRecordBuilder(buffers, ModelResultSchema)
	defer b.Release()
	b.Reserve(len(rows)) // one allocation per column instead of doublings
	text := make([]int, 9)
	for _, r := range rows {
		for i, s := range [...]string{r.ConversationID, r.RunID, r.OrgID, r.EventType, 5: r.ModelID, 8: deref(r.TextResult)} {
			text[i] += len(s)
		}
	}
	reserveText(b.Field, text)
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.ConversationID)
		b.Field(1).(*array.StringBuilder).Append(r.RunID)
		b.Field(2).(*array.StringBuilder).Append(r.OrgID)
		b.Field(3).(*array.StringBuilder).Append(r.EventType)
		appendTime(b.Field(4).(*array.TimestampBuilder), &r.EventTime)
		b.Field(5).(*array.StringBuilder).Append(r.ModelID)
		b.Field(6).(*array.Int32Builder).Append(r.Version)
		if r.Result == nil {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.BooleanBuilder).Append(*r.Result)
		}
		appendStr(b.Field(8).(*array.StringBuilder), r.TextResult)
	}
	return b.NewRecordBatch()
}

// reserveText sizes string columns' data before their rows go in (one
// allocation each instead of doublings, which copy): bytes[i] is the
// length of column i's strings together, 0 for a column of another type.
func reserveText(field func(int) array.Builder, bytes []int) {
	for i, n := range bytes {
		if n > 0 {
			field(i).(*array.StringBuilder).ReserveData(n)
		}
	}
}

// deref is an optional string's value, "" for none.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func appendStr(b *array.StringBuilder, s *string) {
	if s == nil {
		b.AppendNull()
	} else {
		b.Append(*s)
	}
}

func appendTime(b *array.TimestampBuilder, t *time.Time) {
	if t == nil {
		b.AppendNull()
	} else {
		b.Append(arrow.Timestamp(t.UnixMicro()))
	}
}

func conversationRecord(rows []Conversation) arrow.RecordBatch {
	b := array.NewRecordBuilder(buffers, ConversationSchema)
	defer b.Release()
	b.Reserve(len(rows)) // one allocation per column instead of doublings
	text := make([]int, 20)
	for _, r := range rows {
		for i, s := range [...]string{r.ID, r.RunID, r.OrgID, deref(r.UploadID), r.MediaType, r.FileName, 8: deref(r.HierarchyNodeID),
			deref(r.AgentID), deref(r.AgentCode), deref(r.ClientCallID), deref(r.CallDirection), 16: r.ExtendedMetadata, r.TranscriptMode,
			deref(r.TranscriptEngine), deref(r.TranscriptModel)} {
			text[i] += len(s)
		}
	}
	reserveText(b.Field, text)
	f := func(i int) array.Builder { return b.Field(i) }
	for _, r := range rows {
		f(0).(*array.StringBuilder).Append(r.ID)
		f(1).(*array.StringBuilder).Append(r.RunID)
		f(2).(*array.StringBuilder).Append(r.OrgID)
		appendStr(f(3).(*array.StringBuilder), r.UploadID)
		f(4).(*array.StringBuilder).Append(r.MediaType)
		f(5).(*array.StringBuilder).Append(r.FileName)
		appendTime(f(6).(*array.TimestampBuilder), &r.ArrivedOn)
		appendTime(f(7).(*array.TimestampBuilder), r.InteractionDate)
		appendStr(f(8).(*array.StringBuilder), r.HierarchyNodeID)
		appendStr(f(9).(*array.StringBuilder), r.AgentID)
		appendStr(f(10).(*array.StringBuilder), r.AgentCode)
		appendStr(f(11).(*array.StringBuilder), r.ClientCallID)
		appendStr(f(12).(*array.StringBuilder), r.CallDirection)
		f(13).(*array.Int32Builder).Append(r.LocaleID)
		if r.CallDurationMillis == nil {
			f(14).AppendNull()
		} else {
			f(14).(*array.Int64Builder).Append(*r.CallDurationMillis)
		}
		if r.ChatMessageCount == nil {
			f(15).AppendNull()
		} else {
			f(15).(*array.Int32Builder).Append(*r.ChatMessageCount)
		}
		f(16).(*array.StringBuilder).Append(r.ExtendedMetadata)
		f(17).(*array.StringBuilder).Append(r.TranscriptMode)
		appendStr(f(18).(*array.StringBuilder), r.TranscriptEngine)
		appendStr(f(19).(*array.StringBuilder), r.TranscriptModel)
	}
	return b.NewRecordBatch()
}

func segmentRecord(rows []Segment) arrow.RecordBatch {
	b := array.NewRecordBuilder(buffers, SegmentSchema)
	defer b.Release()
	b.Reserve(len(rows)) // one allocation per column instead of doublings
	// And for the strings' bytes, which are most of a transcript's.
	var ids, runs, orgs, speakers, texts, nWords int
	for _, r := range rows {
		ids, runs, orgs, speakers, texts = ids+len(r.ConversationID), runs+len(r.RunID), orgs+len(r.OrgID), speakers+len(r.Speaker), texts+len(r.Text)
		nWords += len(r.Words)
	}
	reserveText(b.Field, []int{0: ids, 1: runs, 2: orgs, 4: speakers, 7: texts})
	words := b.Field(9).(*array.ListBuilder)
	word := words.ValueBuilder().(*array.StructBuilder)
	word.Reserve(nWords)
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.ConversationID)
		b.Field(1).(*array.StringBuilder).Append(r.RunID)
		b.Field(2).(*array.StringBuilder).Append(r.OrgID)
		b.Field(3).(*array.Int32Builder).Append(r.Index)
		b.Field(4).(*array.StringBuilder).Append(r.Speaker)
		b.Field(5).(*array.Int64Builder).Append(r.StartMs)
		b.Field(6).(*array.Int64Builder).Append(r.EndMs)
		b.Field(7).(*array.StringBuilder).Append(r.Text)
		if r.Confidence == nil {
			b.Field(8).AppendNull()
		} else {
			b.Field(8).(*array.Float32Builder).Append(*r.Confidence)
		}
		words.Append(true)
		for _, wd := range r.Words {
			word.Append(true)
			word.FieldBuilder(0).(*array.StringBuilder).Append(wd.Word)
			word.FieldBuilder(1).(*array.Int64Builder).Append(wd.StartMs)
			word.FieldBuilder(2).(*array.Int64Builder).Append(wd.EndMs)
			word.FieldBuilder(3).(*array.Float32Builder).Append(wd.Confidence)
		}
	}
	return b.NewRecordBatch()
}
