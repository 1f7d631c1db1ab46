package console

import (
	"strings"
	"testing"
)

// The phrases editor writes a rule it can read back; a definition that
// says more is the JSON editor's.
func TestPhrasesEditor(t *testing.T) {
	t.Parallel()
	def := phrasesDefinition("where is my parcel\n\n  my parcel never came  \n", "Customer")
	phrases, speaker, ok := simplePhrases(def)
	if !ok || strings.Join(phrases, "|") != "where is my parcel|my parcel never came" || speaker != "Customer" {
		t.Errorf("%s read back: %v %q %v", def, phrases, speaker, ok)
	}
	if _, speaker, ok := simplePhrases(phrasesDefinition("hello", "Any")); !ok || speaker != "Any" {
		t.Errorf("any speaker: %q %v", speaker, ok)
	}
	for _, more := range []string{`{"operator":"ANY","groups":[{"rules":[{"phrases":["a"]}]}]}`, `{"groups":[{"rules":[{"phrases":["a"],"negate":true}]}]}`,
		`{"groups":[{"rules":[{"phrases":["a"]},{"phrases":["b"]}]}]}`, `{"groups":[]}`, `not json`} {
		if _, _, ok := simplePhrases(more); ok {
			t.Errorf("%s: read as phrases alone", more)
		}
	}
}
