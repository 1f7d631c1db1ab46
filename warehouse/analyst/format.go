package analyst

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Formats of query output.
var Formats = []string{"table", "csv", "json"}

// Write prints rows in a format: an aligned table, CSV with a header, or a
// JSON array of objects with the columns in order.
func Write(w io.Writer, rows *sql.Rows, format string) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	var records [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, t := range types {
			if d, ok := vals[i].(time.Time); ok && t.DatabaseTypeName() == "DATE" {
				vals[i] = d.Format(time.DateOnly) // a day, not a midnight
			}
		}
		records = append(records, vals)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	switch format {
	case "csv":
		return writeCSV(w, cols, records)
	case "json":
		return writeJSON(w, cols, records)
	case "table", "":
		return writeTable(w, cols, records)
	}
	return fmt.Errorf("unknown format %q: use table, csv or json", format)
}

// text is a value as a table or CSV cell.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case []byte:
		return string(v)
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05.999999Z07:00")
	case []any, map[string]any:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return fmt.Sprint(v)
}

func writeCSV(w io.Writer, cols []string, records [][]any) error {
	cw := csv.NewWriter(w)
	cw.Write(cols)
	for _, r := range records {
		cells := make([]string, len(r))
		for i, v := range r {
			if v != nil {
				cells[i] = text(v) // NULL is an empty cell
			}
		}
		cw.Write(cells)
	}
	cw.Flush()
	return cw.Error()
}

func writeJSON(w io.Writer, cols []string, records [][]any) error {
	var b strings.Builder
	b.WriteString("[")
	for ri, r := range records {
		if ri > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for i, v := range r {
			if i > 0 {
				b.WriteString(", ")
			}
			name, _ := json.Marshal(cols[i])
			val, err := json.Marshal(v)
			if err != nil {
				val, _ = json.Marshal(text(v))
			}
			b.Write(name)
			b.WriteString(": ")
			b.Write(val)
		}
		b.WriteString("}")
	}
	if len(records) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// maxCell keeps one long value (a transcript, a definition) from
// stretching every row of a table.
const maxCell = 60

func writeTable(w io.Writer, cols []string, records [][]any) error {
	cells := make([][]string, len(records))
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c)
	}
	for ri, r := range records {
		cells[ri] = make([]string, len(r))
		for i, v := range r {
			s := strings.ReplaceAll(text(v), "\n", " ")
			if utf8.RuneCountInString(s) > maxCell {
				s = string([]rune(s)[:maxCell-1]) + "…"
			}
			cells[ri][i] = s
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" │ ")
			}
			b.WriteString(v)
			if i < len(vals)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)))
			}
		}
		b.WriteString("\n")
	}
	line(cols)
	rule := make([]string, len(cols))
	for i := range cols {
		rule[i] = strings.Repeat("─", widths[i])
	}
	b.WriteString(strings.Join(rule, "─┼─") + "\n")
	for _, r := range cells {
		line(r)
	}
	fmt.Fprintf(&b, "(%d row%s)\n", len(records), map[bool]string{true: "", false: "s"}[len(records) == 1])
	_, err := io.WriteString(w, b.String())
	return err
}
