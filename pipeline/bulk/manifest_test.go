package bulk

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManifest(t *testing.T) {
	cases := []struct {
		name, file, content string
		items               []string // FileName|Text|metadata
		rejected            []int    // lines
	}{
		{"csv", "manifest.csv", "FileName,UploadType,ExtendedMetadataValues.queue,AgentCode\n" +
			"a/x.tar,Chat,billing,\nb.json,,,A1\n../up.tar,Chat,,\n/abs.tar,Chat,,\nshort,row\n",
			[]string{
				`a/x.tar|false|{"ExtendedMetadataValues":{"queue":"billing"},"FileName":"a/x.tar","UploadType":"Chat"}`,
				`b.json|true|{"AgentCode":"A1","FilePath":"b.json"}`,
			}, []int{4, 5, 6}},
		{"jsonl", "manifest.jsonl", `{"FileName":"c.zip","UploadType":"Chat"}` + "\n\n" + `not json` + "\n" + `{"fileName":"d.json_chat","uploadType":"Chat","Id":"x"}` + "\n" + `{"UploadType":"Chat"}`,
			[]string{
				`c.zip|false|{"FileName":"c.zip","UploadType":"Chat"}`,
				`d.json_chat|true|{"FilePath":"d.json_chat","Id":"x"}`,
			}, []int{3, 5}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644)
		items, rejected, err := ReadManifest(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.FileName+"|"+map[bool]string{true: "true", false: "false"}[it.Text]+"|"+string(it.Metadata))
			if it.Path != filepath.Join(dir, filepath.FromSlash(it.FileName)) {
				t.Errorf("%s: path %s", c.name, it.Path)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.items, "\n") {
			t.Errorf("%s items:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.items, "\n"))
		}
		var lines []int
		for _, r := range rejected {
			lines = append(lines, r.Line)
		}
		if len(lines) != len(c.rejected) {
			t.Errorf("%s rejected lines %v, want %v (%+v)", c.name, lines, c.rejected, rejected)
		}
	}
	if _, _, err := ReadManifest(t.TempDir()); err == nil || !strings.Contains(err.Error(), "manifest.jsonl or manifest.csv") {
		t.Errorf("no manifest: %v", err)
	}
}

// FuzzManifest: any CSV or JSONL manifest gives items whose files stay
// inside the folder and whose metadata is a JSON object; nothing panics.
func FuzzManifest(f *testing.F) {
	f.Add("FileName,UploadType\na.tar,Chat\n", false)
	f.Add(`{"FileName":"a.json"}`+"\n"+`{"FileName":"../b.tar"}`, true)
	f.Add("FileName\n\"unterminated\n", false)
	f.Fuzz(func(t *testing.T, content string, jsonl bool) {
		var rows []map[string]any
		if jsonl {
			rows, _, _ = readJSONL(strings.NewReader(content))
		} else {
			rows, _, _ = readCSV(strings.NewReader(content))
		}
		items, _ := toItems("/base", rows)
		for _, it := range items {
			rel, err := filepath.Rel("/base", it.Path)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Fatalf("item %q escapes the folder: %s", it.FileName, it.Path)
			}
			var m map[string]any
			if json.Unmarshal(it.Metadata, &m) != nil || m == nil {
				t.Fatalf("metadata %s is not an object", it.Metadata)
			}
		}
	})
}
