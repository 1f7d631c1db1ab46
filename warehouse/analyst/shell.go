package analyst

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/earshot/earshot/sql/views"
)

// Shell reads statements from in, each ended by ";", and prints their
// results; an error is printed and the session goes on. ".tables" lists
// the views, ".quit" (or end of input) ends it. prompt says whether to
// prompt (a terminal).
func Shell(ctx context.Context, db *sql.DB, in io.Reader, out io.Writer, format string, prompt bool) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 64<<10), 4<<20)
	var stmt strings.Builder
	ask := func() {
		if !prompt {
			return
		}
		if stmt.Len() == 0 {
			fmt.Fprint(out, "earshot> ")
		} else {
			fmt.Fprint(out, "      -> ")
		}
	}
	if prompt {
		fmt.Fprintln(out, `Read-only SQL over the lake. End statements with ";". .tables lists the views, .quit ends.`)
	}
	ask()
	for scanner.Scan() {
		line := scanner.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case stmt.Len() == 0 && (trimmed == ".quit" || trimmed == ".exit"):
			return nil
		case stmt.Len() == 0 && trimmed == ".tables":
			fmt.Fprintln(out, strings.Join(views.Order, "\n"))
		case stmt.Len() == 0 && trimmed == "":
		default:
			stmt.WriteString(line + "\n")
			if strings.HasSuffix(trimmed, ";") {
				if err := Run(ctx, db, out, stmt.String(), format); err != nil {
					fmt.Fprintln(out, "Error:", err)
				}
				stmt.Reset()
			}
		}
		ask()
	}
	if rest := strings.TrimSpace(stmt.String()); rest != "" {
		if err := Run(ctx, db, out, rest, format); err != nil {
			fmt.Fprintln(out, "Error:", err)
		}
	}
	return scanner.Err()
}

// Run runs one query and prints its rows.
func Run(ctx context.Context, db *sql.DB, out io.Writer, query, format string) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return Write(out, rows, format)
}
