package pipeline

import (
	"errors"
	"regexp"
	"strings"

	"github.com/earshot/earshot/pipeline/audio"
)

// localPath is an absolute path of this machine inside an error's text (a
// temporary file, the data directory), with the ": " that may follow it.
var localPath = regexp.MustCompile(`(^|[\s"'(=])(/[^\s"':]+)(: )?`)

// ClientReason is an error's text as a client reads it in an upload's
// processFailures: this machine's file paths left out, and a failure that
// is Earshot's own (ourFault, the audio tools) told as such, without its
// internal chain. The operator's log keeps the whole error.
func ClientReason(err error) string {
	var tool *audio.ToolError
	if errors.As(err, new(fault)) || errors.As(err, &tool) {
		return InternalReason
	}
	out := localPath.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := localPath.FindStringSubmatch(m)
		switch {
		case sub[3] == "":
			return sub[1] + "a file"
		case sub[1] == "": // "PATH: what went wrong" opens the text
			return ""
		}
		return ": " // "open PATH: what" → "open: what"
	})
	return strings.ReplaceAll(out, ":: ", ": ")
}

// InternalReason is what a client reads when processing its upload failed
// for a reason of Earshot's own (a panic, storage, the speech engine, the
// audio tools): the details are for the operator, in the log.
const InternalReason = "Processing failed inside Earshot; the operator's log has the details."

// fault marks a failure that is Earshot's, not the upload's.
type fault struct{ err error }

func (f fault) Error() string { return f.err.Error() }
func (f fault) Unwrap() error { return f.err }

// ourFault marks err as Earshot's own failure (see ClientReason).
func ourFault(err error) error { return fault{err} }
