package sphinx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadMix(t *testing.T) {
	dir := t.TempDir()
	general := filepath.Join(dir, "general.lm.bin")
	os.WriteFile(filepath.Join(dir, "domain.lm.bin"), nil, 0o644)
	os.WriteFile(general, nil, 0o644)
	path := filepath.Join(dir, "m"+MixSuffix)
	if err := WriteMix(path, []Component{{Weight: 0.6, Path: "domain.lm.bin"}, {Weight: 0.4, Path: "en-us"}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMix(path, general)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Component{0.6, filepath.Join(dir, "domain.lm.bin")}) || got[1] != (Component{0.4, general}) {
		t.Fatalf("%+v", got)
	}
	for _, tc := range []struct{ file, want string }{
		{"0.5 domain.lm.bin\n0.4 en-us\n", "weights adding up to 1"},
		{"1 domain.lm.bin\n", "two models or more"},
		{"half domain.lm.bin\n0.5 en-us\n", "line 1: want a weight"},
		{"0.5 missing.lm.bin\n0.5 en-us\n", "line 1: stat"},
		{"# a comment\n\n0.5\n0.5 en-us\n", "line 3: want a weight"},
	} {
		os.WriteFile(path, []byte(tc.file), 0o644)
		if _, err := ReadMix(path, general); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}
