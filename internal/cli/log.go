package cli

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// newLogger writes records of level and above to w: as text lines when
// format is text, or auto and w is a terminal (a person reads them), as
// JSON lines otherwise (a log collector reads them).
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "text" || format == "auto" && isTerminal(w) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
