//go:build !sherpa

package sherpa

import (
	"fmt"

	"github.com/earshot/earshot/pipeline/asr"
)

// Built reports whether sherpa-onnx is compiled in.
const Built = false

// Engine is sherpa-onnx; this build does not have it.
type Engine struct {
	ModelDir string
	Threads  int
}

// New reports that the engine is not in this build, after checking the
// model files so that both mistakes are reported at once.
func (e Engine) New(m asr.Model) (asr.Recognizer, error) {
	if m.Dir == "" {
		m.Dir = e.ModelDir
	}
	if _, err := Find(m.Dir); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: this earshot was built without sherpa-onnx (build it with: make build TAGS=sherpa)", asr.ErrNotConfigured)
}
