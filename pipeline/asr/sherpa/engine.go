//go:build sherpa

package sherpa

import (
	"fmt"

	sherpa "github.com/k2-fsa/sherpa-onnx-go-linux"

	"github.com/earshot/earshot/pipeline/asr"
)

// Built reports whether sherpa-onnx is compiled in.
const Built = true

// Engine makes sherpa-onnx recognizers from the model directory (or a
// Model's Dir).
type Engine struct {
	ModelDir string
	Threads  int // ONNX runtime threads per recognizer (default 1: one recognizer per worker)
}

// New loads the model.
func (e Engine) New(m asr.Model) (asr.Recognizer, error) {
	if m.Dir == "" {
		m.Dir = e.ModelDir
	}
	files, err := Find(m.Dir)
	if err != nil {
		return nil, err
	}
	cfg := sherpa.OfflineRecognizerConfig{DecodingMethod: "greedy_search"}
	cfg.FeatConfig.SampleRate = asr.SampleRate
	cfg.FeatConfig.FeatureDim = 80
	cfg.ModelConfig.Tokens = files.Tokens
	cfg.ModelConfig.NumThreads = max(e.Threads, 1)
	cfg.ModelConfig.Provider = "cpu"
	switch files.Kind {
	case Transducer:
		cfg.ModelConfig.Transducer = sherpa.OfflineTransducerModelConfig{Encoder: files.Encoder, Decoder: files.Decoder, Joiner: files.Joiner}
	case Whisper:
		lang := m.Language
		if lang == "" {
			lang = "en"
		}
		cfg.ModelConfig.Whisper = sherpa.OfflineWhisperModelConfig{Encoder: files.Encoder, Decoder: files.Decoder, Language: lang, Task: "transcribe", TailPaddings: -1}
	}
	rec := sherpa.NewOfflineRecognizer(&cfg)
	if rec == nil {
		return nil, fmt.Errorf("sherpa-onnx could not load the %s model in %s (are the files complete and of one model?)", files.Kind, files.Dir)
	}
	return &Recognizer{rec: rec, model: files.Name}, nil
}

// Recognizer is one loaded sherpa-onnx model.
type Recognizer struct {
	rec   *sherpa.OfflineRecognizer
	model string
}

// Name reports the engine and model.
func (r *Recognizer) Name() (string, string) { return "sherpa-onnx", r.model }

// Recognize decodes one utterance in a new stream.
func (r *Recognizer) Recognize(pcm []int16) ([]asr.Word, error) {
	if len(pcm) == 0 {
		return nil, nil
	}
	samples := make([]float32, len(pcm))
	for i, s := range pcm {
		samples[i] = float32(s) / 32768
	}
	stream := sherpa.NewOfflineStream(r.rec)
	defer sherpa.DeleteOfflineStream(stream)
	stream.AcceptWaveform(asr.SampleRate, samples)
	r.rec.Decode(stream)
	res := stream.GetResult()
	return words(res.Text, res.Tokens, res.Timestamps, int64(len(pcm))*1000/asr.SampleRate), nil
}

// Close frees the model.
func (r *Recognizer) Close() {
	if r.rec != nil {
		sherpa.DeleteOfflineRecognizer(r.rec)
		r.rec = nil
	}
}
