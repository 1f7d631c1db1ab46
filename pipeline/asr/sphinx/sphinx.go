// Package sphinx is the PocketSphinx speech-recognition engine, through
// cgo (libpocketsphinx and libsphinxbase, found through pkg-config). The
// default model is the pocketsphinx-en-us package's.
package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

static ps_decoder_t *earshot_ps_new(int argc, char **argv, cmd_ln_t **out) {
	cmd_ln_t *config = cmd_ln_parse_r(NULL, ps_args(), argc, argv, FALSE);
	if (config == NULL) return NULL;
	ps_decoder_t *ps = ps_init(config);
	if (ps == NULL) { cmd_ln_free_r(config); return NULL; }
	*out = config;
	return ps;
}

static void earshot_ps_quiet(void) { err_set_logfp(NULL); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/earshot/earshot/pipeline/asr"
)

// msPerFrame: PocketSphinx's feature frames are 10 ms apart.
const msPerFrame = 10

// DefaultModelDir is where pocketsphinx-en-us installs its model, as
// pkg-config reports it (Debian: /usr/share/pocketsphinx/model); asked
// once per process.
var DefaultModelDir = sync.OnceValue(func() string {
	if out, err := exec.Command("pkg-config", "--variable=modeldir", "pocketsphinx").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" {
			return dir
		}
	}
	return "/usr/share/pocketsphinx/model"
})

// Engine makes PocketSphinx decoders; a Model's empty paths take the
// en-us model under ModelDir.
type Engine struct {
	ModelDir string // "" for DefaultModelDir()
}

var quietOnce sync.Once

// quiet turns off sphinxbase's logging to stderr, once per process.
func quiet() { quietOnce.Do(func() { C.earshot_ps_quiet() }) }

// enUS is a file of the en-us model under ModelDir.
func (e Engine) enUS(name string) string {
	base := e.ModelDir
	if base == "" {
		base = DefaultModelDir()
	}
	return filepath.Join(base, "en-us", name)
}

// AcousticModel is the en-us acoustic model's directory.
func (e Engine) AcousticModel() string { return e.enUS("en-us") }

// Dictionary is the en-us model's pronunciation dictionary.
func (e Engine) Dictionary() string { return e.enUS("cmudict-en-us.dict") }

// New loads a decoder (about a second for the default model).
func (e Engine) New(m asr.Model) (asr.Recognizer, error) {
	quiet()
	if m.Dir == "" {
		m.Dir = e.AcousticModel()
	}
	general := e.enUS("en-us.lm.bin")
	if m.LanguageModel == "" {
		m.LanguageModel = general
	}
	var components []Component
	lm := m.LanguageModel
	if strings.HasSuffix(m.LanguageModel, MixSuffix) {
		var err error
		if components, err = ReadMix(m.LanguageModel, general); err != nil {
			return nil, err
		}
		lm = components[0].Path // the decoder starts on it; the mix replaces it
	}
	if m.Dictionary == "" {
		m.Dictionary = e.Dictionary()
	}
	for what, path := range map[string]string{"acoustic model": m.Dir, "language model": m.LanguageModel, "dictionary": m.Dictionary} {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("pocketsphinx %s: %w", what, err)
		}
	}
	args := []string{"-hmm", m.Dir, "-lm", lm, "-dict", m.Dictionary, "-samprate", "16000", "-logfn", os.DevNull}
	argv := make([]*C.char, len(args))
	for i, a := range args {
		argv[i] = C.CString(a)
		defer C.free(unsafe.Pointer(argv[i]))
	}
	var config *C.cmd_ln_t
	ps := C.earshot_ps_new(C.int(len(args)), &argv[0], &config)
	if ps == nil {
		return nil, errors.New("pocketsphinx could not load its model (check the model, language model and dictionary paths)")
	}
	d := &Decoder{ps: ps, config: config, model: modelName(m)}
	if components != nil {
		if err := mix(ps, config, components); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// modelName is the model as transcripts record it: the language model's
// file name (the acoustic model is en-us unless configured).
func modelName(m asr.Model) string {
	return filepath.Base(m.Dir) + "+" + filepath.Base(m.LanguageModel)
}

// Decoder is one PocketSphinx decoder.
type Decoder struct {
	ps     *C.ps_decoder_t
	config *C.cmd_ln_t
	model  string
}

// Name reports the engine and model.
func (d *Decoder) Name() (string, string) { return "pocketsphinx", d.model }

// Recognize decodes one utterance.
func (d *Decoder) Recognize(pcm []int16) ([]asr.Word, error) {
	if len(pcm) == 0 {
		return nil, nil
	}
	if C.ps_start_utt(d.ps) < 0 {
		return nil, errors.New("pocketsphinx: cannot start an utterance")
	}
	if C.ps_process_raw(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), C.FALSE, C.TRUE) < 0 {
		C.ps_end_utt(d.ps)
		return nil, errors.New("pocketsphinx: cannot decode the audio")
	}
	if C.ps_end_utt(d.ps) < 0 {
		return nil, errors.New("pocketsphinx: cannot end the utterance")
	}
	lmath := C.ps_get_logmath(d.ps)
	var words []asr.Word
	for seg := C.ps_seg_iter(d.ps); seg != nil; seg = C.ps_seg_next(seg) {
		text := C.GoString(C.ps_seg_word(seg))
		word, ok := spoken(text)
		if !ok {
			continue
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		var ascr, lscr, lback C.int32
		prob := C.ps_seg_prob(seg, &ascr, &lscr, &lback)
		conf := float32(C.logmath_exp(lmath, prob))
		words = append(words, asr.Word{Text: word, StartMs: int64(sf) * msPerFrame, EndMs: int64(ef+1) * msPerFrame, Confidence: min(max(conf, 0), 1)})
	}
	return words, nil
}

// spoken drops fillers (<s>, </s>, <sil>, [NOISE], ++GARBAGE++) and the
// alternate-pronunciation suffix of a dictionary word ("read(2)").
func spoken(w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "+") {
		return "", false
	}
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return w, true
}

// Close frees the decoder.
func (d *Decoder) Close() {
	if d.ps != nil {
		C.ps_free(d.ps)
		C.cmd_ln_free_r(d.config)
		d.ps, d.config = nil, nil
	}
}
