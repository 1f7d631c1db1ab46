package api

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/warehouse/catalog"
)

func readCorpus(t *testing.T) []corpus.Dialogue {
	dialogues, err := corpus.Read(corpus.Dev, 0)
	if err != nil {
		t.Skipf("%v (the corpus lives in ../shared/corpus beside the checkout)", err)
	}
	return dialogues
}

// End to end over real customer-service dialogues: archives (tar, gzip tar,
// zip) built from the corpus are uploaded through the API, the ingest job
// runs, and every transcript read back through the API matches its
// dialogue turn by turn. The tar is two tars one after the other and the
// .tar.gz two gzip members: every chat of both halves is read.
func TestCorpusEndToEnd(t *testing.T) {
	t.Parallel()
	dialogues := readCorpus(t)
	e := newTestEnv(t, Options{RatePerSec: 0})
	tok := e.token(t)

	// Three archives, a third of the dialogues each, in the three containers.
	want := map[string][]string{} // chat file name → transcript lines
	parts := [3]map[string][]byte{{}, {}, {}}
	for i, d := range dialogues {
		var msgs []map[string]string
		var lines []string
		for _, turn := range d.Turns {
			msgs = append(msgs, map[string]string{"participant": turn.Participant(), "text": turn.Text})
			lines = append(lines, "00:00:00 "+turn.Participant()+": "+turn.Text)
		}
		body, _ := json.Marshal(map[string]any{"messages": msgs})
		name := fmt.Sprintf("dialogues/%s.json", d.ID)
		parts[i%3][name] = body
		want[[]string{"sgd.tar", "sgd.tar.gz", "sgd.zip"}[i%3]+"/"+name] = lines
	}
	halves := func(files map[string][]byte) (a, b map[string][]byte) {
		a, b = map[string][]byte{}, map[string][]byte{}
		for i, name := range sortedKeys(files) {
			[]map[string][]byte{a, b}[i%2][name] = files[name]
		}
		return a, b
	}
	tarA, tarB := halves(parts[0])
	gzA, gzB := halves(parts[1])
	archives := map[string][]byte{"sgd.tar": append(tarBytes(tarA, false), tarBytes(tarB, false)...),
		"sgd.tar.gz": append(tarBytes(gzA, true), tarBytes(gzB, true)...), "sgd.zip": zipBytes(parts[2])}
	for name, data := range archives {
		mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", name, "UploadType", "Chat"), file(name, string(data))), 200)
	}

	run := e.runIngest(t)
	if run.Counts["conversations"] != int64(len(dialogues)) || run.Counts["conversations_failed"] != 0 {
		t.Fatalf("ingest run %+v for %d dialogues", run, len(dialogues))
	}

	chats, err := e.cat.Interactions.Interactions(context.Background(), e.org.ID, catalog.InteractionFilter{MediaType: "ProcessedChat", Limit: 100000})
	if err != nil || len(chats) != len(dialogues) {
		t.Fatalf("%d chat records, %v", len(chats), err)
	}
	byID := map[string]string{}
	var ids []string
	for _, c := range chats {
		byID[c.ID] = c.FileName
		ids = append(ids, c.ID)
	}
	checked := 0
	for start := 0; start < len(ids); start += 100 {
		end := min(start+100, len(ids))
		r := mustStatus(t, e.jsonReq("POST", "/Conversations/Transcriptions", tok, map[string]any{"conversationIds": ids[start:end]}), 200)
		var body struct {
			Transcriptions []struct {
				ConversationID string
				Transcriptions []struct{ Transcription []string }
			}
			Errors []any
		}
		json.Unmarshal(r.Body.Bytes(), &body)
		if len(body.Errors) != 0 {
			t.Fatalf("errors: %v", body.Errors)
		}
		for _, tr := range body.Transcriptions {
			got := tr.Transcriptions[0].Transcription
			exp := want[byID[tr.ConversationID]]
			if len(got) != len(exp) {
				t.Fatalf("%s: %d lines, want %d", byID[tr.ConversationID], len(got), len(exp))
			}
			for i := range got {
				if got[i] != exp[i] {
					t.Fatalf("%s turn %d:\n got %q\nwant %q", byID[tr.ConversationID], i, got[i], exp[i])
				}
			}
			checked++
		}
	}
	if checked != len(dialogues) {
		t.Fatalf("checked %d of %d", checked, len(dialogues))
	}
	t.Logf("%d dialogues uploaded in 3 archives, ingested and read back turn by turn", checked)
}

func tarBytes(files map[string][]byte, gz bool) []byte {
	var buf bytes.Buffer
	var tw *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(&buf)
	}
	for _, name := range sortedKeys(files) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write(files[name])
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

func zipBytes(files map[string][]byte) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		f, _ := w.Create(name)
		f.Write(files[name])
	}
	w.Close()
	return buf.Bytes()
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
