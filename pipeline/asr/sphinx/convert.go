package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/logmath.h>

static int earshot_lm_convert(const char *from, const char *to) {
	logmath_t *lmath = logmath_init(1.0001, 0, 0);
	ngram_model_t *lm = ngram_model_read(NULL, from, NGRAM_ARPA, lmath);
	if (lm == NULL) { logmath_free(lmath); return -1; }
	int rv = ngram_model_write(lm, to, NGRAM_BIN);
	ngram_model_free(lm);
	logmath_free(lmath);
	return rv < 0 ? -2 : 0;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ConvertLM writes an ARPA language model in PocketSphinx's binary format,
// which a decoder loads in a fraction of the time and memory.
func ConvertLM(arpa, bin string) error {
	quiet()
	from, to := C.CString(arpa), C.CString(bin)
	defer C.free(unsafe.Pointer(from))
	defer C.free(unsafe.Pointer(to))
	switch C.earshot_lm_convert(from, to) {
	case -1:
		return fmt.Errorf("pocketsphinx cannot read the ARPA language model %s", arpa)
	case -2:
		return fmt.Errorf("pocketsphinx cannot write the binary language model %s", bin)
	}
	return nil
}
