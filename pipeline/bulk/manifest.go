// Package bulk loads a folder of recordings and chat archives through
// Earshot's own upload API — the same validation, staging and jobs as any
// client — for nightly bulk ingestion (earshot ingest).
package bulk

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Item is one file to upload with its metadata.
type Item struct {
	Line     int    // manifest line, for messages
	FileName string // the FileName key: also the file's path in the folder
	Path     string // the local file
	Metadata []byte // the metadata form field, a JSON object
	Text     bool   // a single conversation (.json, .json_chat): POST /TextMedia/Upload
}

// Manifest names: the first one found in the folder is read.
var Manifests = []string{"manifest.jsonl", "manifest.csv"}

// ReadManifest reads dir's manifest: manifest.jsonl (one metadata object a
// line) or manifest.csv (a header of metadata keys; ExtendedMetadataValues.KEY
// columns become ExtendedMetadataValues entries). Every row's FileName is
// also the file's path relative to dir. A row that cannot be read is
// returned as a rejection, not an error: the rest still loads.
func ReadManifest(dir string) ([]Item, []Rejection, error) {
	for _, name := range Manifests {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		var rows []map[string]any
		var rejected []Rejection
		if strings.HasSuffix(name, ".jsonl") {
			rows, rejected, err = readJSONL(f)
		} else {
			rows, rejected, err = readCSV(f)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		items, more := toItems(dir, rows)
		return items, append(rejected, more...), nil
	}
	return nil, nil, fmt.Errorf("no %s in %s", strings.Join(Manifests, " or "), dir)
}

func readJSONL(r io.Reader) ([]map[string]any, []Rejection, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var rows []map[string]any
	var rejected []Rejection
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			rows = append(rows, nil)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
			rejected = append(rejected, Rejection{Line: line, Reason: "not a JSON object"})
			m = nil
		}
		rows = append(rows, m)
	}
	return rows, rejected, sc.Err()
}

func readCSV(r io.Reader) ([]map[string]any, []Rejection, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("no header: %w", err)
	}
	var rows []map[string]any
	var rejected []Rejection
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, rejected, nil
		}
		if err != nil || len(rec) != len(header) {
			rejected = append(rejected, Rejection{Line: line, Reason: fmt.Sprintf("want %d columns", len(header))})
			rows = append(rows, nil)
			continue
		}
		m := map[string]any{}
		ext := map[string]any{}
		for i, key := range header {
			key = strings.TrimSpace(key)
			if rec[i] == "" {
				continue
			}
			if k, ok := strings.CutPrefix(key, "ExtendedMetadataValues."); ok {
				ext[k] = rec[i]
				continue
			}
			m[key] = rec[i]
		}
		if len(ext) > 0 {
			m["ExtendedMetadataValues"] = ext
		}
		rows = append(rows, m)
	}
}

func toItems(dir string, rows []map[string]any) ([]Item, []Rejection) {
	var items []Item
	var rejected []Rejection
	for i, m := range rows {
		line := i + 1
		if m == nil {
			continue
		}
		name, _ := lookup(m, "FileName").(string)
		if name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) {
			rejected = append(rejected, Rejection{Line: line, FileName: name, Reason: "FileName must name a file inside the folder"})
			continue
		}
		ext := strings.ToLower(filepath.Ext(name))
		item := Item{Line: line, FileName: name, Path: filepath.Join(dir, filepath.FromSlash(name))}
		if ext == ".json" || ext == ".json_chat" {
			item.Text = true
			delete(m, keyOf(m, "FileName"))
			delete(m, keyOf(m, "UploadType"))
			m["FilePath"] = name
		}
		item.Metadata, _ = json.Marshal(m)
		items = append(items, item)
	}
	return items, rejected
}

func keyOf(m map[string]any, key string) string {
	for k := range m {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return key
}

func lookup(m map[string]any, key string) any { return m[keyOf(m, key)] }
