// Package sherpa is the optional sherpa-onnx speech-recognition engine
// (github.com/k2-fsa/sherpa-onnx-go-linux), compiled in with the build tag
// "sherpa": Whisper or Zipformer/Parakeet transducer models in ONNX form
// that the operator downloads and points Earshot at. Without the tag the
// engine reports that it was not built in.
//
// The model files are found and checked here, without the library, so a
// misconfiguration is reported at start-up in every build.
package sherpa

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/asr"
)

// Kind is the family of a model directory.
type Kind string

const (
	Whisper    Kind = "whisper"
	Transducer Kind = "transducer" // Zipformer, Parakeet (NeMo) transducers
)

// Files are a model's files, found in its directory.
type Files struct {
	Dir                      string
	Kind                     Kind
	Encoder, Decoder, Joiner string
	Tokens                   string
	// Name is how transcripts record the model: the directory's name.
	Name string
}

// Find identifies the model in dir: a transducer (encoder, decoder and
// joiner .onnx files and tokens.txt, as sherpa-onnx's Zipformer and
// Parakeet releases ship them) or Whisper (NAME-encoder.onnx,
// NAME-decoder.onnx, NAME-tokens.txt). Quantized (int8) files are
// preferred when both are present. The .onnx files' structure is checked
// (see checkONNX). Errors wrap asr.ErrNotConfigured and say what is
// missing or broken.
func Find(dir string) (Files, error) {
	if dir == "" {
		return Files{}, fmt.Errorf("%w: the sherpa-onnx engine needs a model directory (--asr-sherpa-model): Whisper or Zipformer ONNX files from the sherpa-onnx releases", asr.ErrNotConfigured)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Files{}, fmt.Errorf("%w: sherpa-onnx model directory: %v", asr.ErrNotConfigured, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	pick := func(part, ext string) string {
		var found []string
		for _, n := range names {
			if strings.Contains(n, part) && strings.HasSuffix(n, ext) {
				found = append(found, n)
			}
		}
		if len(found) == 0 {
			return ""
		}
		// int8 first, then the shortest (plainest) name.
		slices.SortFunc(found, func(a, b string) int {
			if ai, bi := strings.Contains(a, "int8"), strings.Contains(b, "int8"); ai != bi {
				if ai {
					return -1
				}
				return 1
			}
			return len(a) - len(b)
		})
		return filepath.Join(dir, found[0])
	}
	f := Files{Dir: dir, Name: filepath.Base(filepath.Clean(dir)),
		Encoder: pick("encoder", ".onnx"), Decoder: pick("decoder", ".onnx"), Joiner: pick("joiner", ".onnx"), Tokens: pick("tokens", ".txt")}
	switch {
	case f.Encoder == "" || f.Decoder == "" || f.Tokens == "":
		var missing []string
		for what, path := range map[string]string{"an encoder .onnx": f.Encoder, "a decoder .onnx": f.Decoder, "tokens.txt": f.Tokens} {
			if path == "" {
				missing = append(missing, what)
			}
		}
		slices.Sort(missing)
		return Files{}, fmt.Errorf("%w: no sherpa-onnx model in %s: missing %s", asr.ErrNotConfigured, dir, strings.Join(missing, ", "))
	case f.Joiner != "":
		f.Kind = Transducer
	default:
		f.Kind = Whisper
	}
	for _, path := range []string{f.Encoder, f.Decoder, f.Joiner} {
		if path == "" {
			continue
		}
		if err := checkONNXFile(path); err != nil {
			return Files{}, fmt.Errorf("%w: sherpa-onnx model file %v", asr.ErrNotConfigured, err)
		}
	}
	return f, nil
}

// pieceStart marks a word's first piece in sentencepiece tokens.
const pieceStart = "▁"

// words turns a result's tokens and their start times (seconds) into
// words: a token opening with "▁" or a space starts a word, which ends
// where the next one starts (the last at the utterance end). Without
// timestamps (Whisper), the text's words share the utterance in
// proportion to their length.
func words(text string, tokens []string, starts []float32, utteranceMs int64) []asr.Word {
	var out []asr.Word
	if len(tokens) > 0 && len(starts) == len(tokens) {
		for i, tok := range tokens {
			at := int64(starts[i] * 1000)
			piece := strings.TrimLeft(tok, " ")
			isStart := strings.HasPrefix(tok, " ") || strings.HasPrefix(piece, pieceStart) || len(out) == 0
			piece = strings.TrimPrefix(piece, pieceStart)
			if isStart {
				if len(out) > 0 {
					out[len(out)-1].EndMs = max(at, out[len(out)-1].StartMs)
				}
				out = append(out, asr.Word{StartMs: at, Confidence: 1})
			}
			out[len(out)-1].Text += strings.ToLower(piece)
		}
		if len(out) > 0 {
			out[len(out)-1].EndMs = max(utteranceMs, out[len(out)-1].StartMs)
		}
		return slices.DeleteFunc(out, func(w asr.Word) bool { return w.Text == "" })
	}
	fields := strings.Fields(text)
	chars := 0
	for _, f := range fields {
		chars += len(f) + 1
	}
	at := int64(0)
	for _, f := range fields {
		length := utteranceMs * int64(len(f)+1) / int64(chars)
		out = append(out, asr.Word{Text: f, StartMs: at, EndMs: at + length, Confidence: 1})
		at += length
	}
	return out
}
