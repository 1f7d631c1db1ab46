package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Span is a stretch of a recording.
type Span struct{ Start, End time.Duration }

// Silence writes the recording at in to out (its format from out's
// extension, every channel kept) with the spans silenced.
func Silence(ctx context.Context, in, out string, spans []Span) error {
	if len(spans) == 0 {
		return errors.New("nothing to silence")
	}
	between := make([]string, len(spans))
	for i, s := range spans {
		between[i] = fmt.Sprintf("between(t,%.3f,%.3f)", s.Start.Seconds(), s.End.Seconds())
	}
	filter := "volume=volume=0:enable='" + strings.Join(between, "+") + "'"
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", in, "-vn", "-sn", "-dn", "-af", filter, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return &ToolError{errors.New("ffmpeg is not installed (install the ffmpeg package)")}
		}
		return &ToolError{fmt.Errorf("ffmpeg could not silence the recording: %s", firstLine(stderr.String(), err))}
	}
	return nil
}
