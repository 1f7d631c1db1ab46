package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// hostileValues are what attackers and broken clients send, in every
// parameter and field.
var hostileValues = []string{
	strings.Repeat("A", 100_000), strings.Repeat("9", 1001), "' OR 1=1 --", `"; DROP TABLE interactions; --`,
	"\xff\xfe\xfd", "%00", "\x00", "-1", "0", "99999999999999999999999999", "1e309", "NaN", "null", "true",
	"[]", "{}", "../../../etc/passwd", "00000000-0000-0000-0000-000000000000", "<script>alert(1)</script>",
	"2025-13-45", "9999-12-31T23:59:59Z", "0001-01-01", ",,,", "a,b,c", " ", "ŉ̸̖ͣ",
}

// hostileBodies are request bodies that are not what any operation takes.
var hostileBodies = []string{
	"", "{", "[]", `"x"`, "123", `{"a":1}{"b":2}`, "null", strings.Repeat("[", 100_000), `{"x":"` + "\xff\xfe" + `"}`,
	`{"startDate":1e999}`, `{"pageSize":-99999999999999999999}`,
}

// operation is one documented operation with the names it reads.
type operation struct {
	method, path string   // path in the document's {name} form
	query        []string // query parameter names
	fields       []string // JSON body properties
	multipart    bool
}

func documentedOperations(t *testing.T) []operation {
	doc, err := openapi3.NewLoader().LoadFromData(openAPIJSON())
	if err != nil {
		t.Fatal(err)
	}
	var ops []operation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := operation{method: method, path: path}
			for _, p := range append(item.Parameters, op.Parameters...) {
				if p.Value != nil && p.Value.In == "query" {
					o.query = append(o.query, p.Value.Name)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for ct, mt := range op.RequestBody.Value.Content {
					o.multipart = o.multipart || ct == "multipart/form-data"
					if ct == "application/json" && mt.Schema != nil && mt.Schema.Value != nil {
						for name := range mt.Schema.Value.Properties {
							o.fields = append(o.fields, name)
						}
					}
				}
			}
			sort.Strings(o.fields)
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

// lockedBuffer is a log both the server's goroutines and the test read.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Every documented operation, with hostile values in every path parameter,
// query parameter (also twice) and body field, and hostile bodies: no
// answer is a 5xx and nothing panics. Path parameters are also real ids of
// the organization's objects, so that bodies reach the handlers' checks.
func TestHostileRequestsGetNoServerError(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	e := newTestEnv(t, Options{}, func(d *Deps) {
		d.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	classifier := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Cancellation", "Classifier", "Topics", cancelDefinition)), http.StatusCreated).id(t)
	upload := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "h.wav", "UploadType", "Audio"), file("h.wav", wavBytes)), 200).id(t)
	realIDs := map[string]string{"/User/": f.user, "/Hierarchy/": f.team, "/Agent/": f.agent, "/Conversations/Classifiers/": classifier,
		"/Metadata/": upload, "/Conversations/Transcriptions/": upload, "/Jobs/": upload}
	pathParam := regexp.MustCompile(`\{[^}]+\}`)

	requests, failures := 0, 0
	send := func(method, target string, body []byte, contentType string) {
		requests++
		req := httptest.NewRequest(method, "/", bytes.NewReader(body))
		req.URL.Opaque = "" // the target may hold bytes a URL parser would refuse: set it raw
		req.RequestURI = target
		if u, err := url.ParseRequestURI(target); err == nil {
			req.URL = u
		} else {
			return // not a request an HTTP server could receive
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 && failures < 20 {
			failures++
			body := rec.Body.String()
			if len(body) > 300 {
				body = body[:300]
			}
			short := target
			if len(short) > 200 {
				short = short[:200] + "…"
			}
			t.Errorf("%s %s → %d %s", method, short, rec.Code, body)
		}
	}
	for _, op := range documentedOperations(t) {
		if op.path == "/connect/token" || op.multipart {
			continue // below, with their own shapes
		}
		realPath := op.path
		for prefix, id := range realIDs {
			if strings.HasPrefix(op.path, prefix) {
				realPath = pathParam.ReplaceAllString(op.path, id)
			}
		}
		for _, v := range hostileValues {
			escaped := url.QueryEscape(v)
			// The value as every path parameter.
			send(op.method, pathParam.ReplaceAllString(op.path, url.PathEscape(v)), []byte("{}"), "application/json")
			// As every query parameter, then each twice.
			var q, twice []string
			for _, name := range op.query {
				q = append(q, name+"="+escaped)
				twice = append(twice, name+"=1&"+name+"="+escaped)
			}
			if len(q) > 0 {
				send(op.method, realPath+"?"+strings.Join(q, "&"), nil, "")
				send(op.method, realPath+"?"+strings.Join(twice, "&"), nil, "")
			}
			// As every body field: a string, then a list and an object of it.
			if len(op.fields) > 0 {
				for _, shape := range []func(string) any{
					func(s string) any { return s },
					func(s string) any { return []string{s, s} },
					func(s string) any { return map[string]any{"x": s} },
				} {
					body := map[string]any{}
					for _, name := range op.fields {
						body[name] = shape(v)
					}
					raw, _ := json.Marshal(body)
					send(op.method, realPath, raw, "application/json")
				}
			}
		}
		if op.method != http.MethodGet && op.method != http.MethodDelete {
			for _, body := range hostileBodies {
				send(op.method, realPath, []byte(body), "application/json")
				send(op.method, realPath, []byte(body), "text/plain")
			}
		}
	}
	// Uploads: every metadata key, the metadata itself and the file name.
	metadataKeys := []string{"AgentCode", "AgentFirstName", "AgentLastName", "ApplyHierarchyToAgent", "CallDirection", "ClientCallId",
		"Email", "ExtendedMetadata", "ExtendedMetadataValues", "FileName", "FilePath", "HierarchyCode", "HierarchyId", "Id",
		"InteractionDate", "LocaleId", "Name", "Phone", "TimeStamp", "UploadType", "SignedUrl"}
	chatFile := `{"messages":[{"participant":"Agent","text":"Hello"}]}`
	for _, path := range []string{"/Media/Upload", "/TextMedia/Upload"} {
		fileName, content := "h.wav", wavBytes
		if path == "/TextMedia/Upload" {
			fileName, content = "h.json", chatFile
		}
		for _, v := range hostileValues {
			for _, key := range metadataKeys {
				raw, _ := json.Marshal(map[string]any{key: v})
				body, ct := multipartBody(t, formPart{name: "metadata", content: string(raw)}, formPart{name: "file", fileName: fileName, content: content})
				send("POST", path, body.Bytes(), ct)
			}
			for _, parts := range [][]formPart{
				{{name: "metadata", content: v}, {name: "file", fileName: fileName, content: content}},
				{{name: "metadata", content: `{}`}, {name: "file", fileName: v, content: content}},
				{{name: "metadata", content: `{}`}, {name: "file", fileName: fileName, content: v}},
			} {
				body, ct := multipartBody(t, parts...)
				send("POST", path, body.Bytes(), ct)
			}
		}
		for _, body := range hostileBodies {
			send("POST", path, []byte(body), "multipart/form-data; boundary=x")
		}
	}
	// The token endpoint: every form field (a few values: each wrong secret
	// costs a hash check).
	for _, v := range []string{hostileValues[0], "\xff\xfe\xfd", "' OR 1=1 --", "\x00"} {
		for _, key := range []string{"grant_type", "client_id", "client_secret", "scope"} {
			form := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.clientID}, "client_secret": {"wrong"}}
			form.Set(key, v)
			send("POST", "/connect/token", []byte(form.Encode()), "application/x-www-form-urlencoded")
		}
	}

	if requests < 1000 {
		t.Fatalf("only %d requests sent", requests)
	}
	if strings.Contains(log.String(), "handler panic") {
		t.Errorf("a handler panicked:\n%.3000s", log.String())
	}
	t.Logf("%d hostile requests", requests)
}
