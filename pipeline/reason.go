package pipeline

import (
	"regexp"
	"strings"
)

// localPath is an absolute path of this machine inside an error's text (a
// temporary file, the data directory), with the ": " that may follow it.
var localPath = regexp.MustCompile(`(^|[\s"'(=])(/[^\s"':]+)(: )?`)

// ClientReason is an error's text as a client reads it in an upload's
// processFailures: this machine's file paths left out (the operator's log
// keeps the whole error).
func ClientReason(err error) string {
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

// CrashReason is what a client reads when processing its upload panicked:
// the panic is for the operator, in the log.
const CrashReason = "Processing failed inside Earshot; the operator's log has the details."
