package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline/analysis"
)

// server speaks /chat/completions: answer decides each reply from the
// request (and the attempt number).
func server(t *testing.T, answer func(req request, attempt int64, w http.ResponseWriter)) (*httptest.Server, *atomic.Int64) {
	var attempts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "wrong request "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("body: %v", err)
		}
		answer(req, attempts.Add(1), w)
	}))
	t.Cleanup(srv.Close)
	return srv, &attempts
}

func reply(w http.ResponseWriter, content string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

var conv = &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Agent", Text: "How can I help?"}, {Speaker: "Customer", Text: "I want to cancel."}}}

func compile(t *testing.T, e *Engines, def string) analysis.Engine {
	t.Helper()
	c, err := e.Compile("org-a", []byte(def))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLabelsAndStructuredOutput(t *testing.T) {
	srv, _ := server(t, func(req request, _ int64, w http.ResponseWriter) {
		schema := req.ResponseFormat.JSONSchema.Schema["properties"].(map[string]any)["result"].(map[string]any)
		if req.Model != "m" || req.ResponseFormat.Type != "json_schema" || len(req.Messages) != 2 ||
			!strings.Contains(req.Messages[1].Content, "Customer: I want to cancel.") || len(schema["enum"].([]any)) < 2 {
			t.Errorf("request %+v", req)
		}
		if strings.Contains(req.Messages[1].Content, "Churn, Stay") {
			reply(w, `{"result":"churn","reasoning":"asked to cancel"}`)
		} else {
			reply(w, `{"result":"true","reasoning":"asked to cancel"}`)
		}
	})
	e := New(Endpoint{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: "k"})
	res, err := compile(t, e, `{"prompt":"Does the customer want to cancel?"}`).Evaluate(context.Background(), conv)
	if err != nil || res.Value != "true" || !*res.Bool || res.Reasoning != "asked to cancel" {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = compile(t, e, `{"prompt":"Will they churn?","labels":["Churn","Stay"]}`).Evaluate(context.Background(), conv)
	if err != nil || res.Value != "Churn" || res.Bool != nil {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestFailures(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  func(req request, attempt int64, w http.ResponseWriter)
		want    string
		retries int
		tries   int64
	}{
		{"a label it was not given", func(_ request, _ int64, w http.ResponseWriter) { reply(w, `{"result":"maybe","reasoning":""}`) },
			`answered "maybe", not one of true, false`, 0, 1},
		{"not JSON", func(_ request, _ int64, w http.ResponseWriter) { reply(w, "Yes, they do.") }, "not the requested JSON", 0, 1},
		{"5xx, then an answer", func(_ request, n int64, w http.ResponseWriter) {
			if n < 3 {
				http.Error(w, "busy", http.StatusBadGateway)
				return
			}
			reply(w, `{"result":"false","reasoning":"no"}`)
		}, "", 2, 3},
		{"429 with Retry-After, every time", func(_ request, _ int64, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, "failed 2 times: HTTP 429", 1, 2},
		{"400 is not retried", func(_ request, _ int64, w http.ResponseWriter) { http.Error(w, "bad model", http.StatusBadRequest) },
			"refused the request: HTTP 400", 3, 1},
		{"too slow", func(_ request, _ int64, w http.ResponseWriter) { time.Sleep(300 * time.Millisecond); reply(w, `{}`) },
			"no answer within 50ms", 1, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, attempts := server(t, tt.answer)
			e := New(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k", Retries: tt.retries, Timeout: 50 * time.Millisecond})
			if tt.name == "5xx, then an answer" {
				e.Endpoint.Timeout = time.Second
			}
			_, err := compile(t, e, `{"prompt":"Cancel?"}`).Evaluate(context.Background(), conv)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if attempts.Load() != tt.tries {
				t.Fatalf("%d attempts, want %d", attempts.Load(), tt.tries)
			}
		})
	}
}

// One organization never has more requests in flight than its limit; the
// others are not held up by it.
func TestConcurrencyPerOrganization(t *testing.T) {
	var inFlight, peak atomic.Int64
	srv, _ := server(t, func(_ request, _ int64, w http.ResponseWriter) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(30 * time.Millisecond)
		reply(w, `{"result":"true","reasoning":""}`)
	})
	e := New(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k", Concurrency: 2})
	a := compile(t, e, `{"prompt":"Cancel?"}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.Evaluate(context.Background(), conv); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() != 2 {
		t.Fatalf("peak %d requests in flight, limit 2", peak.Load())
	}
}

func TestCompileErrors(t *testing.T) {
	e := New(Endpoint{BaseURL: "http://x/v1", Model: "m"})
	for _, tt := range []struct{ def, path string }{
		{`{}`, "definition.prompt"},
		{`{"prompt":" "}`, "definition.prompt"},
		{`{"prompt":"x","labels":["only"]}`, "definition.labels"},
		{`{"prompt":"x","labels":["A","a"]}`, "definition.labels[1]"},
		{`{"prompt":"x","model":"gpt"}`, "definition.model"},
	} {
		_, err := e.Compile("o", []byte(tt.def))
		var de *analysis.DefinitionError
		if !errors.As(err, &de) || de.Path != tt.path {
			t.Errorf("%s: %v, want %s", tt.def, err, tt.path)
		}
	}
	if New(Endpoint{}) != nil {
		t.Fatal("engines without an endpoint")
	}
}
