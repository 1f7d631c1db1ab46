// Package asr is speech recognition: an Engine makes Recognizers, one per
// worker, and a Recognizer turns one utterance of 16 kHz mono signed 16-bit
// audio into timed words. The default engine is CMU PocketSphinx
// (pipeline/asr/sphinx); sherpa-onnx is optional, behind a build tag.
package asr

import "errors"

// SampleRate is the rate every engine receives audio at.
const SampleRate = 16000

// Word is one recognized word, its times relative to the utterance start.
type Word struct {
	Text       string
	StartMs    int64
	EndMs      int64
	Confidence float32 // posterior probability, 0..1
}

// Model names what a Recognizer is loaded with. Empty paths mean the
// engine's default.
type Model struct {
	// Dir is the acoustic model (PocketSphinx) or model directory
	// (sherpa-onnx).
	Dir string
	// LanguageModel is an ARPA or binary n-gram model (PocketSphinx).
	LanguageModel string
	// Dictionary is a pronunciation dictionary (PocketSphinx).
	Dictionary string
	// Language is the spoken language for multilingual models (Whisper:
	// "es"); "" is English.
	Language string
}

// Recognizer decodes utterances, one at a time: it is not safe for
// concurrent use (one per worker).
type Recognizer interface {
	// Recognize decodes one utterance (a new stream each call).
	Recognize(pcm []int16) ([]Word, error)
	// Name is the engine and the model, as transcripts record them.
	Name() (engine, model string)
	Close()
}

// Engine makes recognizers.
type Engine interface {
	New(m Model) (Recognizer, error)
}

// ErrNotConfigured: the engine cannot run without model files the
// operator has not given.
var ErrNotConfigured = errors.New("speech recognition is not configured")
