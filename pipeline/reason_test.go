package pipeline

import (
	"errors"
	"fmt"
	"testing"

	"github.com/earshot/earshot/pipeline/audio"
)

func TestClientReason(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"the file is not readable audio: /tmp/earshot-call-2521302281.wav: Invalid data found when processing input",
			"the file is not readable audio: Invalid data found when processing input"},
		{"open /var/lib/earshot/bucket/staging/o/2025/x.wav: no such file or directory", "open: no such file or directory"},
		{"read from /tmp/earshot-123/part.parquet failed", "read from a file failed"},
		{`cannot stat "/tmp/x.wav"`, `cannot stat "a file"`},
		{"/tmp/a.wav: bad header", "bad header"},
		{"chats/0001.json: unexpected end of JSON input", "chats/0001.json: unexpected end of JSON input"},
		{"fetching https://example.com/a/b.zip: 404", "fetching https://example.com/a/b.zip: 404"},
		{"the audio is 3h long; the limit is 4h", "the audio is 3h long; the limit is 4h"},
		{"a 1/2 share", "a 1/2 share"},
	} {
		if got := ClientReason(errors.New(c.err)); got != c.want {
			t.Errorf("%q\n got %q\nwant %q", c.err, got, c.want)
		}
	}
	// Earshot's own failures read as such, however deep in the chain.
	for _, err := range []error{
		ourFault(errors.New("the staged file cannot be read: open /data/bucket/staging/x: input/output error")),
		fmt.Errorf("the archive cannot be processed: %w", ourFault(errors.New("write /tmp/earshot-zip-1: no space left on device"))),
		&audio.ToolError{Err: errors.New("ffmpeg is not installed (install the ffmpeg package)")},
		fmt.Errorf("channel 1: %w", &audio.ToolError{Err: errors.New("fork/exec /usr/bin/ffmpeg: resource temporarily unavailable")}),
	} {
		if got := ClientReason(err); got != InternalReason {
			t.Errorf("%q\n got %q\nwant the internal reason", err, got)
		}
	}
}
