package sherpa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/pipeline/asr"
)

// Up to the point where a real model is needed: without a model directory,
// and with a downloaded model whose encoder is not an ONNX model (an HTML
// error page saved as the file), the engine reports a configuration error
// before the ONNX runtime sees the files (it aborts the process on files it
// cannot parse); a build without the library says so.
func TestEngineWithoutModel(t *testing.T) {
	if _, err := (Engine{}).New(asr.Model{}); !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), "--asr-sherpa-model") {
		t.Fatalf("no model dir: %v", err)
	}
	dir := modelDir(t, "tiny.en-encoder.onnx", "tiny.en-decoder.onnx", "tiny.en-tokens.txt")
	os.WriteFile(filepath.Join(dir, "tiny.en-encoder.onnx"), []byte("<html>Not Found</html>"), 0o600)
	if _, err := (Engine{ModelDir: dir}).New(asr.Model{}); !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), "tiny.en-encoder.onnx: not a complete ONNX model") {
		t.Fatalf("broken encoder: %v", err)
	}
	if !Built {
		dir := modelDir(t, "tiny.en-encoder.onnx", "tiny.en-decoder.onnx", "tiny.en-tokens.txt")
		if _, err := (Engine{ModelDir: dir}).New(asr.Model{}); !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), "TAGS=sherpa") {
			t.Fatalf("build without sherpa: %v", err)
		}
	}
}
