package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/sherpa"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
)

const (
	engineSphinx = "pocketsphinx"
	engineSherpa = "sherpa-onnx"
)

// speechEngine is the configured speech-recognition engine; a sherpa-onnx
// choice is checked here (model files present and well formed, library
// built in) so that a mistake stops the start, not the first call.
func (c *Config) speechEngine() (asr.Engine, error) {
	switch c.ASREngine {
	case engineSphinx, "":
		if c.ASRTelephoneModel != "" {
			if _, err := os.Stat(filepath.Join(c.ASRTelephoneModel, "mdef")); err != nil {
				return nil, fmt.Errorf("--asr-telephone-model %s: not a PocketSphinx acoustic model (it has no mdef; earshot asr adapt makes one)", c.ASRTelephoneModel)
			}
		}
		return sphinx.Engine{ModelDir: c.ASRModelDir}, nil
	case engineSherpa:
		if c.ASRTelephoneModel != "" {
			return nil, errors.New("--asr-telephone-model is a PocketSphinx model: it needs --asr-engine pocketsphinx")
		}
		if _, err := sherpa.Find(c.ASRSherpaModel); err != nil {
			return nil, fmt.Errorf("--asr-engine sherpa-onnx: %w", err)
		}
		if !sherpa.Built {
			return nil, fmt.Errorf("--asr-engine sherpa-onnx: %w: this earshot was built without sherpa-onnx (build it with: make build TAGS=sherpa)", asr.ErrNotConfigured)
		}
		return sherpa.Engine{ModelDir: c.ASRSherpaModel, Threads: c.ASRSherpaThreads}, nil
	}
	return nil, fmt.Errorf("--asr-engine %q: want %s or %s", c.ASREngine, engineSphinx, engineSherpa)
}
