package lakedb

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// ReadPartition loads the current rows of a partition's files (the
// partition's table, its arrival date), by the lake's rule (lake/current.go):
// runs names each conversation's current run (from the catalog).
func (d *DB) ReadPartition(ctx context.Context, p catalog.Partition, runs map[string]string) (lake.Batch, error) {
	var b lake.Batch
	files, err := d.Files(ctx, p.Paths)
	if err != nil {
		return b, err
	}
	from := `read_parquet(` + files + `, hive_partitioning = false) l`
	db := d.db
	switch p.Table {
	case lake.TableConversations:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.upload_id, l.media_type, l.file_name,
			l.arrived_on, l.interaction_date, l.hierarchy_node_id, l.agent_id, l.agent_code, l.client_call_id, l.call_direction,
			l.locale_id, l.call_duration_millis, l.chat_message_count, l.extended_metadata, l.transcript_mode,
			l.transcript_engine, l.transcript_model FROM `+from)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			var c lake.Conversation
			if err := rows.Scan(&c.ID, &c.RunID, &c.OrgID, &c.UploadID, &c.MediaType, &c.FileName, &c.ArrivedOn, &c.InteractionDate,
				&c.HierarchyNodeID, &c.AgentID, &c.AgentCode, &c.ClientCallID, &c.CallDirection, &c.LocaleID, &c.CallDurationMillis,
				&c.ChatMessageCount, &c.ExtendedMetadata, &c.TranscriptMode, &c.TranscriptEngine, &c.TranscriptModel); err != nil {
				return b, err
			}
			if lake.IsCurrent(runs, c.ID, c.RunID) {
				c.ArrivedOn = c.ArrivedOn.UTC()
				b.Conversations = append(b.Conversations, c)
			}
		}
		return b, rows.Err()
	case lake.TableSegments:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.segment_index, l.speaker, l.start_ms,
			l.end_ms, l.text, l.confidence, l.words FROM `+from)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			s := lake.Segment{ArrivedOn: p.Date}
			var words []any
			if err := rows.Scan(&s.ConversationID, &s.RunID, &s.OrgID, &s.Index, &s.Speaker, &s.StartMs, &s.EndMs, &s.Text,
				&s.Confidence, &words); err != nil {
				return b, err
			}
			if lake.IsCurrent(runs, s.ConversationID, s.RunID) {
				s.Words = lake.ListWords(words)
				b.Segments = append(b.Segments, s)
			}
		}
		return b, rows.Err()
	case lake.TableClassifierResults:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.classifier_id, l.classifier_version,
			l.classifier_type, l.category_name, l.result, l.reasoning, l.score, l.evidence FROM `+from)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		var cands lake.Candidates[lake.ClassifierResult]
		for rows.Next() {
			r := lake.ClassifierResult{ArrivedOn: p.Date}
			var evidence []any
			if err := rows.Scan(&r.ConversationID, &r.RunID, &r.OrgID, &r.ClassifierID, &r.Version, &r.Type, &r.Category, &r.Result,
				&r.Reasoning, &r.Score, &evidence); err != nil {
				return b, err
			}
			for _, e := range evidence {
				m, _ := e.(map[string]any)
				var ev lake.Evidence
				ev.Turn, _ = m["turn"].(int32)
				ev.StartMs, _ = m["start_ms"].(int64)
				ev.EndMs, _ = m["end_ms"].(int64)
				ev.Text, _ = m["text"].(string)
				r.Evidence = append(r.Evidence, ev)
			}
			cands.Add(r.ConversationID, r.RunID, r.ClassifierID, r)
		}
		b.ClassifierResults = flatten(cands.Current(runs))
		return b, rows.Err()
	case lake.TableModelResults:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.event_type, l.event_time, l.model_id,
			l.model_version, l.result, l.text_result FROM `+from)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		var cands lake.Candidates[lake.ModelResult]
		for rows.Next() {
			r := lake.ModelResult{ArrivedOn: p.Date}
			if err := rows.Scan(&r.ConversationID, &r.RunID, &r.OrgID, &r.EventType, &r.EventTime, &r.ModelID, &r.Version,
				&r.Result, &r.TextResult); err != nil {
				return b, err
			}
			r.EventTime = r.EventTime.UTC()
			cands.Add(r.ConversationID, r.RunID, r.ModelID, r)
		}
		b.ModelResults = flatten(cands.Current(runs))
		return b, rows.Err()
	}
	return b, fmt.Errorf("unknown lake table %q", p.Table)
}

// flatten is every conversation's rows (the writer sorts them).
func flatten[T any](byConversation map[string][]T) []T {
	var out []T
	for _, rows := range byConversation {
		out = append(out, rows...)
	}
	return out
}
