package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>

// earshot_ps_mix makes the decoder's search an interpolation of language
// models (sphinxbase's model sets): p(w|h) is the weighted sum of each
// model's. The set owns the models it is made of; the search keeps its own
// reference to the set.
static int earshot_ps_mix(ps_decoder_t *ps, cmd_ln_t *config, int n, char **paths, char **names, float32 *weights) {
	logmath_t *lmath = ps_get_logmath(ps);
	ngram_model_t **lms = calloc(n, sizeof *lms);
	for (int i = 0; i < n; i++) {
		lms[i] = ngram_model_read(config, paths[i], NGRAM_AUTO, lmath);
		if (lms[i] == NULL) {
			for (int k = 0; k < i; k++) ngram_model_free(lms[k]);
			free(lms);
			return -1 - i;
		}
	}
	ngram_model_t *set = ngram_model_set_init(config, lms, names, weights, n);
	free(lms);
	if (set == NULL) return -100;
	int rv = ps_set_lm(ps, "mix", set);
	ngram_model_free(set);
	if (rv < 0) return -101;
	return ps_set_search(ps, "mix") < 0 ? -102 : 0;
}
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"
)

// A mix file names language models to interpolate, a line each: a weight
// and a model's path (relative to the file), or "en-us" for the en-us
// model's general one. `earshot asr lm` writes one beside a domain model:
//
//	# Earshot language-model mix: WEIGHT MODEL a line
//	0.5 support.lm.bin
//	0.5 en-us
//
// An organization's language model may be a mix file (its name ends in
// MixSuffix); its dictionary must then pronounce the words of every model.
const MixSuffix = ".lm.mix"

// Component is one model of a mix.
type Component struct {
	Weight float64
	Path   string // absolute
}

// ReadMix reads a mix file; "en-us" stands for generalLM.
func ReadMix(path, generalLM string) ([]Component, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Component
	sum := 0.0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		weight, model, ok := strings.Cut(text, " ")
		w, err := strconv.ParseFloat(weight, 64)
		if !ok || err != nil || w <= 0 || w > 1 {
			return nil, fmt.Errorf("%s line %d: want a weight above 0 and at most 1, a space and a model's path", path, line)
		}
		model = strings.TrimSpace(model)
		switch {
		case model == "en-us":
			model = generalLM
		case !filepath.IsAbs(model):
			model = filepath.Join(filepath.Dir(path), model)
		}
		if _, err := os.Stat(model); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out = append(out, Component{Weight: w, Path: model})
		sum += w
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < 2 || sum < 0.999 || sum > 1.001 {
		return nil, fmt.Errorf("%s: a mix needs two models or more, their weights adding up to 1", path)
	}
	return out, nil
}

// WriteMix writes a mix file.
func WriteMix(path string, components []Component) error {
	var b strings.Builder
	b.WriteString("# Earshot language-model mix: WEIGHT MODEL a line (a path relative to this file, or en-us)\n")
	for _, c := range components {
		fmt.Fprintf(&b, "%g %s\n", c.Weight, c.Path)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// mix makes the decoder's search the interpolation of the components.
func mix(ps *C.ps_decoder_t, config *C.cmd_ln_t, components []Component) error {
	n := len(components)
	paths := make([]*C.char, n)
	names := make([]*C.char, n)
	weights := make([]C.float32, n)
	for i, c := range components {
		paths[i], names[i] = C.CString(c.Path), C.CString(fmt.Sprintf("lm%d", i))
		defer C.free(unsafe.Pointer(paths[i]))
		defer C.free(unsafe.Pointer(names[i]))
		weights[i] = C.float32(c.Weight)
	}
	switch rv := C.earshot_ps_mix(ps, config, C.int(n), &paths[0], &names[0], &weights[0]); {
	case rv == 0:
		return nil
	case rv > -100:
		return fmt.Errorf("pocketsphinx cannot read the language model %s", components[-1-rv].Path)
	default:
		return fmt.Errorf("pocketsphinx cannot interpolate the language models (%d)", rv)
	}
}
