// Package llm is the LLM Model classifier engine: a prompt and the labels
// it may answer, sent with the conversation's transcript to an
// OpenAI-compatible chat-completions endpoint the operator configures
// (OpenAI, a local Ollama or vLLM), asking for structured output
// {"result": label, "reasoning": text} through a JSON schema.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Endpoint is the operator's LLM service.
type Endpoint struct {
	// BaseURL is the API root the paths hang from, e.g.
	// https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama).
	BaseURL string
	Model   string
	APIKey  string // from the environment; "" for local servers
	// Timeout bounds one attempt; Retries is how many more attempts a
	// network error, 429 or 5xx gets (with exponential backoff).
	Timeout time.Duration
	Retries int
	// Concurrency is how many requests one organization may have in
	// flight at once, so a large reclassification cannot starve the
	// others.
	Concurrency int
	HTTP        *http.Client
}

// Engines compiles LLM Model definitions against an endpoint.
type Engines struct {
	Endpoint Endpoint
	mu       sync.Mutex
	slots    map[string]chan struct{} // per organization
}

// New returns the engines of an endpoint, or nil when none is configured.
func New(e Endpoint) *Engines {
	if e.BaseURL == "" || e.Model == "" {
		return nil
	}
	if e.Timeout <= 0 {
		e.Timeout = 60 * time.Second
	}
	if e.Concurrency <= 0 {
		e.Concurrency = 4
	}
	if e.HTTP == nil {
		e.HTTP = &http.Client{}
	}
	e.BaseURL = strings.TrimSuffix(e.BaseURL, "/")
	return &Engines{Endpoint: e, slots: map[string]chan struct{}{}}
}

func (e *Engines) slot(org string) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.slots[org]
	if !ok {
		s = make(chan struct{}, e.Endpoint.Concurrency)
		e.slots[org] = s
	}
	return s
}

// Compile validates a definition: {"prompt": "...", "labels": [...]}; no
// labels means a yes/no question answered "true" or "false".
func (e *Engines) Compile(orgID string, raw []byte) (analysis.Engine, error) {
	def, err := analysis.Decode(raw, "definition")
	if err != nil {
		return nil, err
	}
	if err := def.Allow("prompt", "labels"); err != nil {
		return nil, err
	}
	prompt, err := def.String("prompt", "")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, analysis.Invalid("is required: the question to ask of each conversation", "definition", "prompt")
	}
	labels, err := def.Strings("labels", false)
	if err != nil {
		return nil, err
	}
	boolean := len(labels) == 0
	if boolean {
		labels = []string{"true", "false"}
	}
	if len(labels) < 2 {
		return nil, analysis.Invalid("needs at least two labels", "definition", "labels")
	}
	for i, l := range labels {
		if slices.IndexFunc(labels[:i], func(o string) bool { return strings.EqualFold(o, l) }) >= 0 {
			return nil, analysis.Invalid("repeats a label", "definition", "labels", i)
		}
	}
	return &classifier{engines: e, org: orgID, prompt: prompt, labels: labels, boolean: boolean}, nil
}

type classifier struct {
	engines *Engines
	org     string
	prompt  string
	labels  []string
	boolean bool
}

const systemPrompt = "You classify customer-service conversations. Read the transcript and answer the question with one of the allowed labels, and a short reasoning. Answer only with the requested JSON."

// Evaluate asks the endpoint about one conversation.
func (c *classifier) Evaluate(ctx context.Context, conv *analysis.Conversation) (analysis.Result, error) {
	var transcript strings.Builder
	for _, t := range conv.Turns {
		fmt.Fprintf(&transcript, "%s: %s\n", t.Speaker, t.Text)
	}
	body, _ := json.Marshal(request{
		Model:       c.engines.Endpoint.Model,
		Temperature: 0,
		Messages: []message{{Role: "system", Content: systemPrompt},
			{Role: "user", Content: fmt.Sprintf("Question: %s\nAllowed labels: %s\n\nTranscript:\n%s", c.prompt, strings.Join(c.labels, ", "), transcript.String())}},
		ResponseFormat: responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "classification", Strict: true, Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"result":    map[string]any{"type": "string", "enum": c.labels},
				"reasoning": map[string]any{"type": "string"},
			},
			"required":             []string{"result", "reasoning"},
			"additionalProperties": false,
		}}},
	})
	answer, err := c.engines.complete(ctx, c.org, body)
	if err != nil {
		return analysis.Result{}, err
	}
	var out struct {
		Result    string `json:"result"`
		Reasoning string `json:"reasoning"`
	}
	if err := json.Unmarshal([]byte(answer), &out); err != nil {
		return analysis.Result{}, fmt.Errorf("the model's answer is not the requested JSON: %.200q", answer)
	}
	i := slices.IndexFunc(c.labels, func(l string) bool { return strings.EqualFold(l, strings.TrimSpace(out.Result)) })
	if i < 0 {
		return analysis.Result{}, fmt.Errorf("the model answered %q, not one of %s", out.Result, strings.Join(c.labels, ", "))
	}
	if c.boolean {
		res := analysis.BoolResult(c.labels[i] == "true", nil)
		res.Reasoning = out.Reasoning
		return res, nil
	}
	return analysis.Result{Value: c.labels[i], Reasoning: out.Reasoning}, nil
}

// The wire format of /chat/completions.
type request struct {
	Model          string         `json:"model"`
	Messages       []message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat responseFormat `json:"response_format"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string         `json:"name"`
	Strict bool           `json:"strict"`
	Schema map[string]any `json:"schema"`
}

type response struct {
	Choices []struct {
		Message message `json:"message"`
	} `json:"choices"`
}

// errRetry marks a failure worth another attempt.
type errRetry struct {
	err   error
	after time.Duration // the server's Retry-After, if it said
}

func (e errRetry) Error() string { return e.err.Error() }

// complete posts a request within the organization's concurrency limit,
// retrying network errors, 429 and 5xx with exponential backoff.
func (e *Engines) complete(ctx context.Context, org string, body []byte) (string, error) {
	slot := e.slot(org)
	select {
	case slot <- struct{}{}:
		defer func() { <-slot }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	var err error
	for attempt := 0; attempt <= e.Endpoint.Retries; attempt++ {
		var content string
		content, err = e.attempt(ctx, body)
		var retry errRetry
		if err == nil || !errors.As(err, &retry) {
			return content, err
		}
		if attempt == e.Endpoint.Retries {
			break
		}
		wait := retry.after
		if wait == 0 {
			// 0.5 s, 1 s, 2 s, … with jitter, at most 30 s.
			wait = min(time.Duration(float64(500*time.Millisecond)*float64(int(1)<<attempt)*(0.75+rand.Float64()/2)), 30*time.Second)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", fmt.Errorf("the LLM endpoint failed %d times: %w", e.Endpoint.Retries+1, err)
}

func (e *Engines) attempt(ctx context.Context, body []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Endpoint.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Endpoint.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.Endpoint.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.Endpoint.APIKey)
	}
	resp, err := e.Endpoint.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", errRetry{err: fmt.Errorf("no answer within %s", e.Endpoint.Timeout)}
		}
		return "", errRetry{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", errRetry{err: err}
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return "", errRetry{err: fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, data), after: min(time.Duration(secs)*time.Second, time.Minute)}
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("the LLM endpoint refused the request: HTTP %d: %.300s", resp.StatusCode, data)
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil || len(r.Choices) == 0 {
		return "", fmt.Errorf("the LLM endpoint's answer has no choices: %.200s", data)
	}
	return r.Choices[0].Message.Content, nil
}
