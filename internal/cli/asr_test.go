package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestASRLanguageModelCommand(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "t.txt")
	os.WriteFile(text, []byte("Book a table at Gochi for 2.\nIs Gochi in Saratoga?\n"), 0o600)
	var out bytes.Buffer
	cmd := Root()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"asr", "lm", "--out", filepath.Join(dir, "m"), "--name", "acme", text})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 sentences, 11 words, vocabulary 10", "acme.lm.mix --dictionary " + filepath.Join(dir, "m", "acme.dict")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cmd = Root()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"asr", "lm", "--out", dir, filepath.Join(dir, "missing.txt")})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("missing file: %v", err)
	}
}
