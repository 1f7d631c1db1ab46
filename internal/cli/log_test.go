package cli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// Logs are JSON lines for a collector and text lines for a person: auto
// picks JSON when the output is no terminal.
func TestLogFormats(t *testing.T) {
	t.Parallel()
	for format, isJSON := range map[string]bool{"auto": true, "json": true, "text": false} {
		var out bytes.Buffer
		newLogger(&out, slog.LevelInfo, format).Info("job finished", "job", "ingest")
		newLogger(&out, slog.LevelInfo, format).Debug("job started", "job", "ingest")
		line := strings.TrimSpace(out.String())
		if strings.Contains(line, "\n") {
			t.Errorf("%s: a debug record below the level was written: %s", format, line)
		}
		if got := json.Valid([]byte(line)); got != isJSON {
			t.Errorf("%s: %q is JSON: %v, want %v", format, line, got, isJSON)
		}
		if !strings.Contains(line, "job finished") {
			t.Errorf("%s: %q", format, line)
		}
	}
}
