package console

import (
	"strings"
	"unicode"

	"github.com/earshot/earshot/warehouse/catalog"
)

// statusNames are the words a person reads for the statuses whose
// contract names say little to them.
var statusNames = map[string]string{
	catalog.StatusReadyToSample:   "Processed",
	catalog.StatusSampled:         "Sampled for QA",
	catalog.StatusFailedToProcess: "Could not be processed",
	// Job runs' statuses.
	"running": "Running", "succeeded": "Succeeded", "failed": "Failed",
}

// statusLabel is a status as a person reads it: its name above, else its
// contract name in words ("NotStarted" reads "Not started").
func statusLabel(status string) string {
	if name, ok := statusNames[status]; ok {
		return name
	}
	var b strings.Builder
	for i, r := range status {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
