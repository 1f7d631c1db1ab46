package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// formPart is one part of a multipart upload; a part with a file name is a
// file part.
type formPart struct {
	name, fileName, content string
}

func multipartBody(t testing.TB, parts ...formPart) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var fw io.Writer
		var err error
		if p.fileName != "" {
			fw, err = w.CreateFormFile(p.name, p.fileName)
		} else {
			fw, err = w.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, p.content)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func (e *testEnv) upload(path, token string, parts ...formPart) response {
	body, ct := multipartBody(e.t, parts...)
	h := bearer(token)
	h.Set("Content-Type", ct)
	return e.do("POST", path, body, h)
}

func meta(kv ...any) formPart {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	data, _ := json.Marshal(m)
	return formPart{name: "metadata", content: string(data)}
}

func file(name, content string) formPart {
	return formPart{name: "file", fileName: name, content: content}
}

// stagedKeys lists what is staged in the bucket.
func (e *testEnv) stagedKeys(t *testing.T) []string {
	var keys []string
	for o, err := range e.bucket.List(context.Background(), "staging/") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

func (e *testEnv) records(t *testing.T) []catalog.Interaction {
	list, err := e.cat.Interactions.Interactions(context.Background(), e.org.ID, catalog.InteractionFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

const wavBytes = "RIFF\x24\x00\x00\x00WAVEfmt fake audio for staging"

func TestMediaUploadStagesAndRecords(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	for _, order := range []string{"metadata first", "file first"} {
		t.Run(order, func(t *testing.T) {
			name := strings.ReplaceAll(order, " ", "-") + "/call 1.wav"
			parts := []formPart{meta("FileName", name, "UploadType", "Audio", "ClientCallId", "tel-1"), file("call 1.WAV", wavBytes)}
			if order == "file first" {
				parts[0], parts[1] = parts[1], parts[0]
			}
			r := mustStatus(t, e.upload("/Media/Upload", tok, parts...), 200)
			res := r.json(t)
			if res["fileName"] != name || res["fileSizeKb"] != float64(1) {
				t.Fatalf("result %v", res)
			}
			it, err := e.cat.Interactions.Interaction(context.Background(), e.org.ID, res["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(wavBytes))
			wantKey := fmt.Sprintf("staging/%s/%s/%s/%s", e.org.ID, it.ArrivedOn.Format("2006/01/02"), it.ID, name)
			if it.Status != "Processing" || it.MediaType != "Audio" || *it.StagedKey != wantKey || it.FileSizeBytes != int64(len(wavBytes)) ||
				*it.SHA256 != hex.EncodeToString(sum[:]) || *it.ClientCallID != "tel-1" || it.LocaleID != 1033 || *it.OrigFileName != "call 1.WAV" {
				t.Fatalf("record %+v", it)
			}
			rc, err := e.bucket.Get(context.Background(), wantKey)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(rc)
			rc.Close()
			if string(data) != wavBytes {
				t.Fatal("staged content differs")
			}
		})
	}
}

func TestMediaUploadSentences(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "taken.wav", "UploadType", "Audio"), file("taken.wav", wavBytes)), 200)
	staged := len(e.stagedKeys(t))
	ok := meta("FileName", "a.wav", "UploadType", "Audio")
	cases := []struct {
		name     string
		parts    []formPart
		sentence string
		field    string
	}{
		{"no metadata", []formPart{file("a.wav", wavBytes)}, uploadmeta.SentenceNoMetadata, ""},
		{"metadata not JSON", []formPart{{name: "metadata", content: "FileName=a.wav"}, file("a.wav", wavBytes)}, uploadmeta.SentenceUnparsable, ""},
		{"no upload type", []formPart{meta("FileName", "a.wav"), file("a.wav", wavBytes)}, uploadmeta.SentenceUnparsable, ""},
		{"bad call direction", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "CallDirection", "Up"), file("a.wav", wavBytes)}, uploadmeta.SentenceInvalidData, "CallDirection"},
		{"bad date", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "InteractionDate", "03/10/2025"), file("a.wav", wavBytes)}, uploadmeta.SentenceInvalidData, "InteractionDate"},
		{"huge metadata", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "Name", strings.Repeat("x", 70000)), file("a.wav", wavBytes)}, uploadmeta.SentenceInvalidData, "metadata"},
		{"no file name", []formPart{meta("UploadType", "Audio"), file("a.wav", wavBytes)}, uploadmeta.SentenceFileName, ""},
		{"no extension", []formPart{meta("FileName", "call", "UploadType", "Audio"), file("call", wavBytes)}, uploadmeta.SentenceFileName, ""},
		{"escaping name", []formPart{meta("FileName", "../../etc/a.wav", "UploadType", "Audio"), file("a.wav", wavBytes)}, uploadmeta.SentenceFileName, ""},
		{"extension not allowed", []formPart{meta("FileName", "a.exe", "UploadType", "Audio"), file("a.exe", wavBytes)}, uploadmeta.SentenceExtension, ""},
		{"lying extension, metadata first", []formPart{ok, file("a.mp3", wavBytes)}, uploadmeta.SentenceExtMismatch, ""},
		{"lying extension, file first", []formPart{file("a.txt", wavBytes), ok}, uploadmeta.SentenceExtMismatch, ""},
		{"duplicate", []formPart{meta("FileName", "taken.wav", "UploadType", "Audio"), file("taken.wav", wavBytes)}, uploadmeta.SentenceDuplicate, ""},
		{"locale", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "LocaleId", 1036), file("a.wav", wavBytes)}, uploadmeta.SentenceLocale, ""},
		{"unknown hierarchy id", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "HierarchyId", "01a1fe85-79a6-78a0-a477-b0835648ac35"), file("a.wav", wavBytes)}, uploadmeta.SentenceHierarchy, ""},
		{"unknown hierarchy code", []formPart{meta("FileName", "a.wav", "UploadType", "Audio", "HierarchyCode", "NOPE"), file("a.wav", wavBytes)}, uploadmeta.SentenceHierarchy, ""},
		{"file and signedUrl", []formPart{ok, file("a.wav", wavBytes), {name: "signedUrl", content: "https://example.com/a.wav"}}, uploadmeta.SentenceFileOrURL, ""},
		{"neither file nor signedUrl", []formPart{ok}, uploadmeta.SentenceFileOrURL, ""},
		{"two files", []formPart{ok, file("a.wav", wavBytes), file("b.wav", wavBytes)}, uploadmeta.SentenceFileOrURL, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.upload("/Media/Upload", tok, c.parts...)
			if r.Code != 400 {
				t.Fatalf("status %d: %s", r.Code, r.Body)
			}
			body := r.json(t)
			if body["detail"] != c.sentence {
				t.Fatalf("detail %q, want %q", body["detail"], c.sentence)
			}
			if c.field != "" {
				if errs, _ := body["errors"].(map[string]any); errs[c.field] == nil {
					t.Fatalf("errors do not name %s: %s", c.field, r.Body)
				}
			}
		})
	}
	// Not multipart at all.
	h := bearer(tok)
	h.Set("Content-Type", "application/json")
	if r := e.do("POST", "/Media/Upload", strings.NewReader(`{}`), h); r.Code != 400 || r.json(t)["detail"] != uploadmeta.SentenceNoMetadata {
		t.Fatalf("JSON body: %d %s", r.Code, r.Body)
	}
	if got := len(e.stagedKeys(t)); got != staged || len(e.records(t)) != 1 {
		t.Fatalf("refused uploads left %d staged objects and %d records", got-staged, len(e.records(t))-1)
	}
	golden(t, "upload_duplicate", e.upload("/Media/Upload", tok, meta("FileName", "taken.wav", "UploadType", "Audio"), file("taken.wav", wavBytes)).Body.Bytes())
}

func TestMediaUploadTooLarge(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{MaxUploadBytes: 1000})
	tok := e.token(t)
	for _, order := range []string{"metadata first", "file first"} {
		parts := []formPart{meta("FileName", "big.wav", "UploadType", "Audio"), file("big.wav", strings.Repeat("x", 5000))}
		if order == "file first" {
			parts[0], parts[1] = parts[1], parts[0]
		}
		if r := e.upload("/Media/Upload", tok, parts...); r.Code != 413 {
			t.Fatalf("%s: status %d: %s", order, r.Code, r.Body)
		}
	}
	if len(e.stagedKeys(t)) != 0 || len(e.records(t)) != 0 {
		t.Fatal("an upload over the limit left data behind")
	}
}

// An upload cut off mid-stream leaves no record and no staged object.
func TestMediaUploadCutOff(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	body, ct := multipartBody(t, meta("FileName", "cut.wav", "UploadType", "Audio"), file("cut.wav", strings.Repeat("a", 200_000)))
	cut := body.Bytes()[:body.Len()/2]
	h := bearer(tok)
	h.Set("Content-Type", ct)
	r := e.do("POST", "/Media/Upload", bytes.NewReader(cut), h)
	if r.Code != 400 || !strings.Contains(r.Body.String(), "cut off") {
		t.Fatalf("status %d: %s", r.Code, r.Body)
	}
	if len(e.stagedKeys(t)) != 0 || len(e.records(t)) != 0 {
		t.Fatal("a cut-off upload left data behind")
	}
}

// Twenty simultaneous uploads of one FileName through real HTTP: exactly
// one 200, nineteen duplicate sentences, one record, one staged object.
func TestMediaUploadConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{RatePerSec: 0})
	tok := e.token(t)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	const n = 20
	var wg sync.WaitGroup
	codes := make([]int, n)
	details := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, ct := multipartBody(t, meta("FileName", "same.wav", "UploadType", "Audio"), file("same.wav", wavBytes+fmt.Sprint(i)))
			req, _ := http.NewRequest("POST", srv.URL+"/Media/Upload", body)
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var p map[string]any
			json.NewDecoder(resp.Body).Decode(&p)
			codes[i] = resp.StatusCode
			details[i], _ = p["detail"].(string)
		}()
	}
	wg.Wait()
	ok, dup := 0, 0
	for i := range n {
		switch {
		case codes[i] == 200:
			ok++
		case codes[i] == 400 && details[i] == uploadmeta.SentenceDuplicate:
			dup++
		default:
			t.Errorf("upload %d: %d %q", i, codes[i], details[i])
		}
	}
	if ok != 1 || dup != n-1 {
		t.Fatalf("%d succeeded, %d duplicates", ok, dup)
	}
	if got := e.stagedKeys(t); len(got) != 1 || len(e.records(t)) != 1 {
		t.Fatalf("%d staged objects, %d records", len(got), len(e.records(t)))
	}
}

func TestMediaUploadResolvesAgentAndHierarchy(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	r := mustStatus(t, e.upload("/Media/Upload", tok,
		meta("FileName", "chats/batch.zip", "UploadType", "Chat", "AgentCode", "a100", "HierarchyCode", "bos",
			"ApplyHierarchyToAgent", true, "LocaleId", "2058", "CallDirection", "outbound", "InteractionDate", "2025-10-03T17:56:09.8683110-04:00",
			"ExtendedMetadata", []any{map[string]any{"Key": "queue", "Value": "old"}}, "ExtendedMetadataValues", map[string]any{"queue": "billing", "tier": 2}),
		file("batch.zip", "PK\x03\x04 fake zip")), 200)
	id := r.json(t)["id"].(string)
	item := mustStatus(t, e.jsonReq("GET", "/Metadata?Id="+id, tok, nil), 200)
	golden(t, "metadata_item", item.Body.Bytes())
	var items []map[string]any
	json.Unmarshal(item.Body.Bytes(), &items)
	got := items[0]
	if got["agentId"] != f.agent || got["organizationStructureMemberId"] != f.site || got["agentName"] != "bo Ng" ||
		got["localeId"] != float64(2058) || got["callDirection"] != "Outbound" || got["timestamp"] != "2025-10-03T21:56:09.868Z" {
		t.Fatalf("item %v", got)
	}
	agent := e.jsonReq("GET", "/Agent/"+f.agent, tok, nil).json(t)
	if fmt.Sprint(agent["osms"]) != fmt.Sprint([]any{f.team, f.site}) {
		t.Fatalf("ApplyHierarchyToAgent: agent osms %v", agent["osms"])
	}
	// An unknown AgentCode is kept without a link.
	r = mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "x.wav", "UploadType", "Audio", "AgentCode", "NEW-7"), file("x.wav", wavBytes)), 200)
	it, _ := e.cat.Interactions.Interaction(context.Background(), e.org.ID, r.json(t)["id"].(string))
	if it.AgentID != nil || *it.AgentCode != "NEW-7" {
		t.Fatalf("unknown agent code: %+v", it)
	}
}

func TestMediaUploadSignedURL(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/calls/1.wav", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, wavBytes) })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	store := httptest.NewTLSServer(mux)
	defer store.Close()
	loopback := netip.MustParseAddrPort(strings.TrimPrefix(store.URL, "https://")).Addr()

	// A deployment that trusts this one store (as tests must: it is on loopback).
	e := newTestEnv(t, Options{}, func(d *Deps) {
		d.SignedURLs = signedurl.New(signedurl.Options{Allow: []netip.Prefix{netip.PrefixFrom(loopback, 32)},
			TLS: store.Client().Transport.(*http.Transport).TLSClientConfig})
	})
	tok := e.token(t)
	r := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "remote.wav", "UploadType", "Audio"),
		formPart{name: "signedUrl", content: store.URL + "/calls/1.wav"}), 200)
	it, _ := e.cat.Interactions.Interaction(context.Background(), e.org.ID, r.json(t)["id"].(string))
	if it.Source != "signedUrl" || it.FileSizeBytes != int64(len(wavBytes)) {
		t.Fatalf("record %+v", it)
	}
	r = e.upload("/Media/Upload", tok, meta("FileName", "meta.wav", "UploadType", "Audio"), formPart{name: "signedUrl", content: store.URL + "/to-metadata"})
	if r.Code != 400 || !strings.Contains(r.json(t)["detail"].(string), "forbidden address") {
		t.Fatalf("redirect to metadata: %d %s", r.Code, r.Body)
	}

	// The default deployment refuses loopback, private and metadata addresses.
	strict := newTestEnv(t, Options{})
	stok := strict.token(t)
	for _, u := range []string{store.URL + "/calls/1.wav", "https://10.0.0.1/a.wav", "https://169.254.169.254/a.wav", "http://example.com/a.wav"} {
		r := strict.upload("/Media/Upload", stok, meta("FileName", "s.wav", "UploadType", "Audio"), formPart{name: "signedUrl", content: u})
		if r.Code != 400 || r.json(t)["errors"].(map[string]any)["signedUrl"] == nil {
			t.Errorf("%s: %d %s", u, r.Code, r.Body)
		}
	}
	if len(strict.stagedKeys(t)) != 0 || len(strict.records(t)) != 0 {
		t.Fatal("a refused signedUrl left data behind")
	}
}

// A signedUrl's file over the size limit is a 413 whether its length is
// declared or not; a download slower than the time limit is a 400 that
// says so. Neither leaves anything behind.
func TestSignedURLLimits(t *testing.T) {
	t.Parallel()
	const limit = 1000
	big := strings.Repeat("x", 3*limit)
	mux := http.NewServeMux()
	mux.HandleFunc("/declared.wav", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, big) })
	mux.HandleFunc("/chunked.wav", func(w http.ResponseWriter, _ *http.Request) {
		for range 3 {
			io.WriteString(w, big[:limit])
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
	})
	mux.HandleFunc("/slow.wav", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "RIFF")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	store := httptest.NewTLSServer(mux)
	defer store.Close()
	loopback := netip.MustParseAddrPort(strings.TrimPrefix(store.URL, "https://")).Addr()
	e := newTestEnv(t, Options{MaxUploadBytes: limit}, func(d *Deps) {
		d.SignedURLs = signedurl.New(signedurl.Options{Allow: []netip.Prefix{netip.PrefixFrom(loopback, 32)}, MaxBytes: limit,
			Timeout: 300 * time.Millisecond, TLS: store.Client().Transport.(*http.Transport).TLSClientConfig})
	})
	tok := e.token(t)
	for path, want := range map[string]struct {
		status int
		detail string
	}{
		"/declared.wav": {413, "The upload is larger than the limit of 1000 bytes."},
		"/chunked.wav":  {413, "The upload is larger than the limit of 1000 bytes."},
		"/slow.wav":     {400, "The signedUrl download did not complete (it took longer than the limit of 300ms)"},
	} {
		r := e.upload("/Media/Upload", tok, meta("FileName", "x"+strings.TrimPrefix(path, "/"), "UploadType", "Audio"),
			formPart{name: "signedUrl", content: store.URL + path})
		if r.Code != want.status || !strings.HasPrefix(r.json(t)["detail"].(string), want.detail) {
			t.Errorf("%s: %d %s", path, r.Code, r.Body)
		}
	}
	if len(e.stagedKeys(t)) != 0 || len(e.records(t)) != 0 {
		t.Fatal("a failed signedUrl left data behind")
	}
}

func TestTextMediaUpload(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	conv := `{"messages":[{"participant":"Agent","text":"Thanks for calling."},{"participant":"Customer","text":"My card was declined."}]}`
	r := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("Id", "01a1fe85-79a6-78a0-a477-b0835648ac35", "TimeStamp", "2025-10-03"), file("c.json", conv)), 200)
	if r.json(t)["id"] != "01a1fe85-79a6-78a0-a477-b0835648ac35" || r.json(t)["fileName"] != "01a1fe85-79a6-78a0-a477-b0835648ac35.json" {
		t.Fatalf("result %s", r.Body)
	}
	own, _ := e.cat.Interactions.InternalIDs(context.Background(), e.org.ID, []string{"01a1fe85-79a6-78a0-a477-b0835648ac35"})
	it, _ := e.cat.Interactions.Interaction(context.Background(), e.org.ID, own["01a1fe85-79a6-78a0-a477-b0835648ac35"])
	if *it.ChatMessageCount != 2 || it.MediaType != "Chat" || it.Source != "text" || it.Public() != "01a1fe85-79a6-78a0-a477-b0835648ac35" {
		t.Fatalf("record %+v", it)
	}
	ccai := `{"entries":[{"text":"Hi","role":"AGENT","user_id":1,"start_timestamp_usec":1759528346000000}]}`
	mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("FilePath", "ccai/1.json_chat"), file("1.json_chat", ccai)), 200)

	cases := []struct {
		name   string
		parts  []formPart
		detail string
	}{
		{"not a chat", []formPart{meta(), file("x.json", `{"turns":[]}`)}, "The file is not a conversation Earshot can read"},
		{"broken JSON", []formPart{meta(), file("x.json", `{"messages":[`)}, "The file is not a conversation Earshot can read"},
		{"wrong extension", []formPart{meta(), file("x.txt", conv)}, uploadmeta.SentenceExtension},
		{"no metadata", []formPart{file("x.json", conv)}, uploadmeta.SentenceNoMetadata},
		{"id taken", []formPart{meta("Id", "01a1fe85-79a6-78a0-a477-b0835648ac35"), file("x.json", conv)}, "An interaction with this Id already exists."},
		{"path taken", []formPart{meta("FilePath", "ccai/1.json_chat"), file("1.json_chat", conv)}, uploadmeta.SentenceDuplicate},
		{"bad id", []formPart{meta("Id", "seven"), file("x.json", conv)}, uploadmeta.SentenceInvalidData},
	}
	for _, c := range cases {
		r := e.upload("/TextMedia/Upload", tok, c.parts...)
		if r.Code != 400 || !strings.HasPrefix(r.json(t)["detail"].(string), c.detail) {
			t.Errorf("%s: %d %s", c.name, r.Code, r.Body)
		}
	}
	if n := len(e.records(t)); n != 2 || len(e.stagedKeys(t)) != 2 {
		t.Fatalf("%d records, %d staged", n, len(e.stagedKeys(t)))
	}
}

// A client-chosen Id is the conversation's id in the API, but cursors walk
// in arrival order whatever the ids (CONTRACT §4): an Id that sorts first
// or last takes its place by arrival, and works as a cursor.
func TestChosenIDsKeepArrivalOrder(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	conv := `{"messages":[{"participant":"Customer","text":"Hello."}]}`
	var arrived []string
	for i, id := range []string{"", "00000000-0000-4000-8000-000000000001", "", "ffffffff-ffff-4fff-bfff-ffffffffffff", ""} {
		parts := []formPart{meta("FilePath", fmt.Sprintf("order/%d.json", i)), file("c.json", conv)}
		if id != "" {
			parts[0] = meta("FilePath", fmt.Sprintf("order/%d.json", i), "Id", id)
		}
		r := mustStatus(t, e.upload("/TextMedia/Upload", tok, parts...), 200)
		got := r.json(t)["id"].(string)
		if id != "" && got != id {
			t.Fatalf("chosen id %s answered as %s", id, got)
		}
		arrived = append(arrived, got)
	}
	walk := func(q string) []string {
		return idsOf(t, mustStatus(t, e.jsonReq("GET", "/Metadata"+q, tok, nil), 200))
	}
	if got := walk("?PageSize=100"); !slices.Equal(got, arrived) {
		t.Fatalf("order %v, arrival %v", got, arrived)
	}
	for i, id := range arrived {
		if got := walk("?PageSize=100&LastId=" + id); !slices.Equal(got, arrived[i+1:]) {
			t.Errorf("after %s: %v, want %v", id, got, arrived[i+1:])
		}
		if got := walk("?Id=" + id); len(got) != 1 || got[0] != id {
			t.Errorf("Id=%s: %v", id, got)
		}
	}
	if r := e.jsonReq("PATCH", "/Metadata/"+arrived[1], tok, map[string]any{"clientCallId": "x"}); r.Code != 200 || r.json(t)["id"] != arrived[1] {
		t.Errorf("PATCH by a chosen id: %d %s", r.Code, r.Body)
	}
}

// Existence never leaks across organizations (CONTRACT §1): choosing an
// id another organization has (chosen or Earshot's) is accepted, and the
// same id twice in one organization is refused.
func TestChosenIDsAreScopedByOrganization(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	conv := `{"messages":[{"participant":"Customer","text":"Hello."}]}`
	chosen := "01a1fe85-79a6-78a0-a477-b0835648ac35"
	mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("Id", chosen), file("c.json", conv)), 200)
	generated := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("FilePath", "g.json"), file("c.json", conv)), 200).json(t)["id"].(string)

	other, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	otherTok, err := e.tokens.IssueForOperator(other.ID, oauth.Scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{chosen, generated} {
		r := e.upload("/TextMedia/Upload", otherTok, meta("Id", id), file("c.json", conv))
		if r.Code != 200 || r.json(t)["id"] != id {
			t.Errorf("another organization choosing %s: %d %s", id, r.Code, r.Body)
		}
	}
	for _, id := range []string{chosen, generated} {
		r := e.upload("/TextMedia/Upload", tok, meta("Id", id, "FilePath", "again-"+id+".json"), file("c.json", conv))
		if r.Code != 400 || r.json(t)["detail"] != "An interaction with this Id already exists." {
			t.Errorf("the same organization choosing its %s again: %d %s", id, r.Code, r.Body)
		}
	}
	// Each organization sees its own conversation under the shared id.
	for _, c := range []struct{ tok, org string }{{tok, e.org.ID}, {otherTok, other.ID}} {
		var items []map[string]any
		json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Metadata?Id="+chosen, c.tok, nil), 200).Body.Bytes(), &items)
		if len(items) != 1 || items[0]["organizationId"] != c.org || items[0]["id"] != chosen {
			t.Errorf("org %s: %v", c.org, items)
		}
	}
}

// racingInteractions answers the early duplicate check with "free", as it
// would for two uploads that check at the same moment: the insert must decide.
type racingInteractions struct{ InteractionStore }

func (racingInteractions) FileNameOwner(context.Context, string, string) (string, error) {
	return "", nil
}

// failingStorage loses every write.
type failingStorage struct{ Storage }

func (failingStorage) Put(context.Context, string, io.Reader, blob.PutOptions) (blob.ObjectInfo, error) {
	return blob.ObjectInfo{}, errors.New("bucket unavailable")
}

func TestUploadFailuresLeaveNothing(t *testing.T) {
	t.Parallel()
	t.Run("the insert loses the race: the staged object is removed", func(t *testing.T) {
		e := newTestEnv(t, Options{}, func(d *Deps) { d.Interactions = racingInteractions{d.Interactions} })
		tok := e.token(t)
		for _, path := range []string{"/Media/Upload", "/TextMedia/Upload"} {
			parts := []formPart{meta("FileName", "twice.wav", "UploadType", "Audio"), file("twice.wav", wavBytes)}
			if path == "/TextMedia/Upload" {
				parts = []formPart{meta("FilePath", "twice.json"), file("twice.json", `{"messages":[{"participant":"Agent","text":"hi"}]}`)}
			}
			mustStatus(t, e.upload(path, tok, parts...), 200)
			r := e.upload(path, tok, parts...)
			if r.Code != 400 || r.json(t)["detail"] != uploadmeta.SentenceDuplicate {
				t.Fatalf("%s second upload: %d %s", path, r.Code, r.Body)
			}
		}
		if len(e.stagedKeys(t)) != 2 || len(e.records(t)) != 2 {
			t.Fatalf("%d staged objects, %d records; want 2 and 2", len(e.stagedKeys(t)), len(e.records(t)))
		}
	})
	t.Run("staging fails: no record", func(t *testing.T) {
		e := newTestEnv(t, Options{}, func(d *Deps) { d.Storage = failingStorage{d.Storage} })
		tok := e.token(t)
		if r := e.upload("/Media/Upload", tok, meta("FileName", "lost.wav", "UploadType", "Audio"), file("lost.wav", wavBytes)); r.Code != 500 {
			t.Fatalf("status %d: %s", r.Code, r.Body)
		}
		if len(e.records(t)) != 0 {
			t.Fatal("a record was written for a file that was not stored")
		}
	})
}
