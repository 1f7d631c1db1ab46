package sherpa

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/earshot/earshot/pipeline/asr"
)

func modelDir(t *testing.T, files ...string) string {
	dir := filepath.Join(t.TempDir(), "model-x")
	os.Mkdir(dir, 0o755)
	for _, f := range files {
		data := []byte("x")
		if strings.HasSuffix(f, ".onnx") {
			data = tinyModel
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o600)
	}
	return dir
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string
		kind    Kind
		encoder string
		joiner  string
		err     string
	}{
		{name: "zipformer", files: []string{"encoder-epoch-99-avg-1.onnx", "encoder-epoch-99-avg-1.int8.onnx", "decoder-epoch-99-avg-1.onnx", "joiner-epoch-99-avg-1.onnx", "tokens.txt", "README.md"},
			kind: Transducer, encoder: "encoder-epoch-99-avg-1.int8.onnx", joiner: "joiner-epoch-99-avg-1.onnx"},
		{name: "whisper", files: []string{"tiny.en-encoder.onnx", "tiny.en-decoder.onnx", "tiny.en-tokens.txt"}, kind: Whisper, encoder: "tiny.en-encoder.onnx"},
		{name: "no tokens", files: []string{"encoder.onnx", "decoder.onnx"}, err: "missing tokens.txt"},
		{name: "empty", files: nil, err: "missing a decoder .onnx, an encoder .onnx, tokens.txt"},
		{name: "truncated download", files: []string{"encoder.onnx", "decoder.onnx", "joiner.onnx", "tokens.txt"}, err: "not a complete ONNX model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := modelDir(t, tc.files...)
			if tc.name == "truncated download" {
				os.WriteFile(filepath.Join(dir, "joiner.onnx"), tinyModel[:9], 0o600)
			}
			f, err := Find(dir)
			if tc.err != "" {
				if !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), dir) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || f.Kind != tc.kind || filepath.Base(f.Encoder) != tc.encoder || f.Name != "model-x" {
				t.Fatalf("%+v %v", f, err)
			}
			if tc.joiner != "" && filepath.Base(f.Joiner) != tc.joiner {
				t.Fatalf("joiner %s", f.Joiner)
			}
		})
	}
	for _, dir := range []string{"", "/nonexistent/model"} {
		if _, err := Find(dir); !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), "sherpa-onnx") {
			t.Errorf("Find(%q): %v", dir, err)
		}
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		tokens []string
		starts []float32
		ms     int64
		want   []asr.Word
	}{
		{name: "sentencepiece", text: "HELLO WORLD", tokens: []string{"▁HE", "LLO", "▁WOR", "LD"}, starts: []float32{0.1, 0.3, 0.6, 0.8}, ms: 1200,
			want: []asr.Word{{Text: "hello", StartMs: 100, EndMs: 600, Confidence: 1}, {Text: "world", StartMs: 600, EndMs: 1200, Confidence: 1}}},
		{name: "spaces", text: " yes please", tokens: []string{" yes", " ple", "ase"}, starts: []float32{0, 0.5, 0.7}, ms: 1000,
			want: []asr.Word{{Text: "yes", StartMs: 0, EndMs: 500, Confidence: 1}, {Text: "please", StartMs: 500, EndMs: 1000, Confidence: 1}}},
		{name: "whisper without timestamps", text: " Hi there.", ms: 1000,
			want: []asr.Word{{Text: "Hi", StartMs: 0, EndMs: 300, Confidence: 1}, {Text: "there.", StartMs: 300, EndMs: 1000, Confidence: 1}}},
		{name: "nothing", text: "", ms: 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := words(tc.text, tc.tokens, tc.starts, tc.ms); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
