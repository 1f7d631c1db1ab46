package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelledFile writes n labelled conversations: hotel stays, flights, both,
// and neither.
func labelledFile(t *testing.T, n int) string {
	t.Helper()
	kinds := []struct {
		text   string
		labels string
	}{
		{"I need a hotel room for %d nights, is there a suite with a late check in", `["Hotels"]`},
		{"book a flight to city %d, one way, a window seat and the airline with the earliest departure", `["Flights"]`},
		{"a flight to city %d and then a hotel room near the airport for two nights", `["Flights", "Hotels"]`},
		{"what is the weather like in city %d tomorrow, will it rain", `[]`},
	}
	var b strings.Builder
	for i := range n {
		k := kinds[i%len(kinds)]
		fmt.Fprintf(&b, `{"text": %q, "labels": %s}`+"\n", fmt.Sprintf(k.text, i), k.labels)
	}
	path := filepath.Join(t.TempDir(), "labelled.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// chatArchive is a tar of chats, one a text, named by index.
func chatArchive(texts ...string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i, text := range texts {
		body, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"participant": "Agent", "text": "How can I help?"}, {"participant": "Customer", "text": text}}})
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("chats/%04d.json", i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		w.Write(body)
	}
	w.Close()
	return buf.Bytes()
}

// TestTrainCommandBesideServer: admin classifiers train, run while the
// server serves, installs one classifier per label with its
// cross-validated figures; the next ingest uses them and /ModelResults
// shows their results; training again makes new versions; a bad file is
// refused naming its line.
func TestTrainCommandBesideServer(t *testing.T) {
	data := t.TempDir()
	addr, stop := startServe(t, "--data", data, "--schedule-ingest", "off")
	defer stop()
	file := labelledFile(t, 80)

	out, err := run(t, "admin", "--data", data, "classifiers", "train", "default", "--labels", file, "--folds", "4")
	if err != nil {
		t.Fatal(err)
	}
	var installed []struct {
		ID, Name, ClassifierType string
		Version                  int
		Evaluation               struct {
			Folds, Examples, Positives int
			F1                         float64
		}
	}
	if err := json.Unmarshal([]byte(out), &installed); err != nil || len(installed) != 2 {
		t.Fatalf("train printed %s (%v)", out, err)
	}
	ids := map[string]string{}
	for _, c := range installed {
		ids[c.Name] = c.ID
		if c.ClassifierType != "Core AI Model" || c.Version != 1 || c.Evaluation.Folds != 4 || c.Evaluation.Examples != 80 || c.Evaluation.Positives != 40 || c.Evaluation.F1 < 0.95 {
			t.Errorf("installed %+v", c)
		}
	}
	if ids["Flights"] == "" || ids["Hotels"] == "" {
		t.Fatalf("installed %s", out)
	}

	var creds map[string]string
	raw, _ := os.ReadFile(filepath.Join(data, "credentials.json"))
	json.Unmarshal(raw, &creds)
	bearer := "Bearer " + fetchToken(t, addr, creds["client_id"], creds["client_secret"])["access_token"].(string)
	get := func(path string, into any) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("Authorization", bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, err, resp.Status)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(into)
	}
	var listed []struct{ ID, Name, ClassifierType, CategoryName string }
	get("/Conversations/Classifiers?ClassifierTypes=Core%20AI%20Model", &listed)
	found := 0
	for _, c := range listed {
		if ids[c.Name] == c.ID && c.CategoryName == "Topics" {
			found++
		}
	}
	if found != 2 {
		t.Fatalf("classifiers listed %+v", listed)
	}

	if err := uploadChats(addr, bearer, "day.tar",
		chatArchive("Is there a hotel room with a suite for three nights?", "I want a one way flight with a window seat", "Will it rain tomorrow?")); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "jobs", "run", "ingest", "--data", data); err != nil || !strings.Contains(out, `"conversations": 3`) {
		t.Fatalf("ingest: %v %s", err, out)
	}

	var items []struct {
		ConversationID string
		ModelResults   []struct {
			ModelID string
			Result  *bool
		}
	}
	get("/ModelResults?modelIds="+ids["Hotels"]+","+ids["Flights"], &items)
	if len(items) != 3 {
		t.Fatalf("%d results", len(items))
	}
	var got []string
	for _, it := range items {
		var labels []string
		for _, r := range it.ModelResults {
			if r.Result != nil && *r.Result {
				for name, id := range ids {
					if id == r.ModelID {
						labels = append(labels, name)
					}
				}
			}
		}
		got = append(got, strings.Join(labels, "+"))
	}
	joined := "|" + strings.Join(got, "|") + "|"
	for _, want := range []string{"|Hotels|", "|Flights|", "||"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("results by conversation %q, want a %q", got, want)
		}
	}

	out, err = run(t, "admin", "--data", data, "classifiers", "train", "default", "--labels", file, "--folds", "4")
	if err != nil || strings.Count(out, `"version": 2`) != 2 {
		t.Fatalf("retrain: %v %s", err, out)
	}

	// The same file mined into phrase rules: the explainable alternative,
	// installed the same way (a new version of each).
	out, err = run(t, "admin", "--data", data, "classifiers", "mine", "default", "--labels", file)
	if err != nil || strings.Count(out, `"version": 3`) != 2 || strings.Count(out, `"classifierType": "Classifier"`) != 2 {
		t.Fatalf("mine: %v %s", err, out)
	}
	var hotels struct{ Definition json.RawMessage }
	get("/Conversations/Classifiers/"+ids["Hotels"], &hotels)
	if !strings.Contains(string(hotels.Definition), `"phrases"`) || !strings.Contains(string(hotels.Definition), "hotel") {
		t.Fatalf("mined Hotels %s", hotels.Definition)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"text": "a hotel", "labels": ["Hotels"]}`+"\n"+`{"text": "a flight"}`+"\n"), 0o644)
	if _, err := run(t, "admin", "--data", data, "classifiers", "train", "default", "--labels", bad); err == nil || !strings.Contains(err.Error(), "line 2: give labels") {
		t.Fatalf("a bad file: %v", err)
	}
	oneClass := filepath.Join(t.TempDir(), "one.jsonl")
	os.WriteFile(oneClass, bytes.Repeat([]byte(`{"text": "a hotel", "labels": ["Hotels"]}`+"\n"), 10), 0o644)
	if _, err := run(t, "admin", "--data", data, "classifiers", "train", "default", "--labels", oneClass); err == nil || !strings.Contains(err.Error(), `every conversation has label "Hotels"`) {
		t.Fatalf("one class: %v", err)
	}
}
