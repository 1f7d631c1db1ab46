package lake

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/earshot/earshot/warehouse/blob"
)

func benchConversations(n int) []Conversation {
	rows := make([]Conversation, n)
	day := time.Date(2025, 10, 3, 0, 0, 0, 0, time.UTC)
	code := "A-100"
	for i := range rows {
		rows[i] = Conversation{ID: fmt.Sprintf("01a1fe85-79a6-78a0-a477-%012d", i), RunID: "01a1fe85-0000-7000-8000-000000000001",
			OrgID: "01a1fe85-79a6-78a0-a477-b0835648ac35", MediaType: "ProcessedChat", FileName: fmt.Sprintf("archive.tar/chats/%d.json", i),
			ArrivedOn: day.Add(time.Duration(i) * time.Millisecond), AgentCode: &code, LocaleID: 1033,
			ExtendedMetadata: `{"queue":"billing"}`, TranscriptMode: "chat"}
	}
	return rows
}

// BenchmarkParquetWriters is the measurement behind the choice of writer:
// 200,000 conversation rows to one zstd Parquet file through arrow-go's
// pqarrow (what Earshot uses), beside DuckDB's appender plus COPY, the
// other candidate DESIGN.md names. Time and file size compare directly;
// allocations count only Go's heap (DuckDB's C++ memory is not in them).
func BenchmarkParquetWriters(b *testing.B) {
	rows := benchConversations(200_000)
	b.Run("pqarrow", func(b *testing.B) {
		b.ReportAllocs()
		var size int
		for b.Loop() {
			var buf bytes.Buffer
			rec := conversationRecord(rows)
			if err := writeParquet(&buf, rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
			size = buf.Len()
		}
		b.ReportMetric(float64(size)/(1<<20), "file-MiB")
	})
	b.Run("baseline-duckdb-appender-copy", func(b *testing.B) {
		ctx := context.Background()
		db, err := sql.Open("duckdb", "")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		out := filepath.Join(b.TempDir(), "out.parquet")
		b.ReportAllocs()
		var size int64
		for b.Loop() {
			db.Exec(`DROP TABLE IF EXISTS conv; CREATE TABLE conv (conversation_id VARCHAR, run_id VARCHAR, org_id VARCHAR,
				upload_id VARCHAR, media_type VARCHAR, file_name VARCHAR, arrived_on TIMESTAMPTZ, interaction_date TIMESTAMPTZ,
				hierarchy_node_id VARCHAR, agent_id VARCHAR, agent_code VARCHAR, client_call_id VARCHAR, call_direction VARCHAR,
				locale_id INTEGER, call_duration_millis BIGINT, chat_message_count INTEGER, extended_metadata VARCHAR,
				transcript_mode VARCHAR, transcript_engine VARCHAR, transcript_model VARCHAR)`)
			conn, err := db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			err = conn.Raw(func(dc any) error {
				app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "conv")
				if err != nil {
					return err
				}
				for _, r := range rows {
					if err := app.AppendRow(r.ID, r.RunID, r.OrgID, nil, r.MediaType, r.FileName, r.ArrivedOn, nil, nil, nil,
						*r.AgentCode, nil, nil, r.LocaleID, nil, nil, r.ExtendedMetadata, r.TranscriptMode, nil, nil); err != nil {
						return err
					}
				}
				return app.Close()
			})
			conn.Close()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.Exec(`COPY (SELECT * FROM conv ORDER BY conversation_id) TO '` + out + `' (FORMAT parquet, COMPRESSION zstd)`); err != nil {
				b.Fatal(err)
			}
			st, _ := os.Stat(out)
			size = st.Size()
		}
		b.ReportMetric(float64(size)/(1<<20), "file-MiB")
	})
}

// slowPutter is a bucket whose every put is a round trip of a few
// milliseconds before it stores (an object store's).
type slowPutter struct {
	Putter
	roundTrip time.Duration
}

func (p slowPutter) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error) {
	time.Sleep(p.roundTrip) // the modelled network, not a wait for a condition
	return p.Putter.Put(ctx, key, r, opts)
}

// BenchmarkWriteToRemoteBucket writes an ingest batch (2,000 chats of ten
// turns and ten classifiers, over two days) with two encoders through a
// bucket of 20 ms round trips, beside the baseline of the same batch to a
// local bucket: what the bucket's latency adds to a batch's write.
func BenchmarkWriteToRemoteBucket(b *testing.B) {
	day := time.Date(2025, 10, 1, 9, 0, 0, 0, time.UTC)
	var batch Batch
	for i := range 2000 {
		id, arrived := fmt.Sprintf("c%05d", i), day.Add(time.Duration(i%2)*24*time.Hour)
		batch.Conversations = append(batch.Conversations, Conversation{ID: id, RunID: "r", OrgID: "o", ArrivedOn: arrived, MediaType: "ProcessedChat"})
		for j := range 10 {
			batch.Segments = append(batch.Segments, Segment{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: arrived, Index: int32(j), Speaker: "Agent", Text: "hello there"})
			batch.ClassifierResults = append(batch.ClassifierResults, ClassifierResult{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: arrived,
				ClassifierID: fmt.Sprintf("k%02d", j), Version: 1, Type: "Classifier", Category: "Topics", Result: "true"})
			batch.ModelResults = append(batch.ModelResults, ModelResult{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: arrived,
				EventType: "ModelResults", EventTime: arrived, ModelID: fmt.Sprintf("m%02d", j), Version: 1, Result: ptr(true)})
		}
	}
	for _, c := range []struct {
		name      string
		roundTrip time.Duration
	}{{"bucket-20ms-round-trip", 20 * time.Millisecond}, {"baseline-local-bucket", 0}} {
		b.Run(c.name, func(b *testing.B) {
			bucket, err := blob.OpenLocal(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			w := &Writer{Bucket: slowPutter{Putter: bucket, roundTrip: c.roundTrip}, Workers: 2}
			for b.Loop() {
				files, err := w.Write(context.Background(), "r", batch)
				if err != nil || len(files) != 8 {
					b.Fatalf("%d files: %v", len(files), err)
				}
			}
		})
	}
}
