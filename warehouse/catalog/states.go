package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/mattn/go-sqlite3"
)

// ConversationState is what the catalog alone knows of a conversation
// whose rows are in the lake: its status (which sampling moves) and the run
// whose lake rows are current.
//
// Its values are held, not pointed to: a page reads a thousand states, and
// keeps the lake row's client call id and interaction date where they are
// the same (nearly always).
type ConversationState struct {
	Status          string
	LakeRunID       sql.NullString
	ClientCallID    sql.NullString
	InteractionDate sql.NullTime // as last patched, in UTC
}

// ConversationStates reads the states of conversations of an organization.
// The ids of one page are close together (UUIDv7): when they are most of
// their range, the range is read in one index scan and the few others
// dropped here; when they are sparse in it (a page filtered by hierarchy)
// each is looked up by its key.
func (c *InteractionStore) ConversationStates(ctx context.Context, orgID string, ids []string, sparse bool) (map[string]ConversationState, error) {
	out := make(map[string]ConversationState, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var where string
	var args []any
	var wanted map[string]bool // a dense read's ids, to drop the others
	if sparse {
		where, args = anyOf("id")+` AND org_id = ?`, []any{list(ids), orgID}
	} else {
		lo, hi := idRange(ids)
		where, args = `org_id = ? AND id BETWEEN ? AND ?`, []any{orgID, lo, hi}
		wanted = make(map[string]bool, len(ids))
		for _, id := range ids {
			wanted[id] = true
		}
	}
	read := c.statesPacked
	if c.postgres {
		read = c.statesByRow
	}
	err := read(ctx, where, args, func(id string, s ConversationState) {
		if sparse || wanted[id] {
			out[id] = s
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// statesByRow reads the states of the interactions where selects, a row
// each: pgx reads PostgreSQL's rows in its binary form, faster than
// PostgreSQL builds them into one JSON value.
func (c *InteractionStore) statesByRow(ctx context.Context, where string, args []any, each func(string, ConversationState)) error {
	rows, err := c.db.QueryContext(ctx, `SELECT id, status, lake_run_id, client_call_id, interaction_date FROM interactions WHERE `+where, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s ConversationState
		if err := rows.Scan(&id, &s.Status, &s.LakeRunID, &s.ClientCallID, &s.InteractionDate); err != nil {
			return err
		}
		s.InteractionDate.Time = s.InteractionDate.Time.UTC()
		each(id, s)
	}
	return rows.Err()
}

// statesPacked reads the states of the interactions where selects from
// SQLite as one text: a record of id, status, lake run, interaction date
// and client call id a conversation, the fields and records parted by the
// ASCII unit and record separators. The first four are the catalog's own
// values (ids, a status, a time as the driver writes it), which never hold
// a control character; the client call id comes as a JSON string, in
// which one is escaped, and is empty where it is NULL. A page's thousand
// states cross the driver as one value instead of a thousand rows of five
// columns, each converted on its own, and are cut from it here without a
// copy of each field.
func (c *InteractionStore) statesPacked(ctx context.Context, where string, args []any, each func(string, ConversationState)) error {
	var packed sql.NullString
	err := c.db.QueryRowContext(ctx, `SELECT group_concat(id || char(31) || status || char(31) || coalesce(lake_run_id, '') || char(31) ||
		coalesce(interaction_date, '') || char(31) || iif(client_call_id IS NULL, '', json_quote(client_call_id)), char(30))
		FROM interactions WHERE `+where, args...).Scan(&packed)
	if err != nil || !packed.Valid { // no rows: NULL
		return err
	}
	for record := range strings.SplitSeq(packed.String, "\x1e") {
		var f [5]string
		rest := record
		for i := range f[:4] {
			f[i], rest, _ = strings.Cut(rest, "\x1f")
		}
		f[4] = rest
		s := ConversationState{Status: f[1], LakeRunID: sql.NullString{String: f[2], Valid: f[2] != ""}}
		if f[3] != "" {
			when, err := storedTime(f[3])
			if err != nil {
				return fmt.Errorf("conversation %s: interaction date: %w", f[0], err)
			}
			s.InteractionDate = sql.NullTime{Time: when, Valid: true}
		}
		if f[4] != "" {
			call, err := jsonString(f[4])
			if err != nil {
				return fmt.Errorf("conversation %s: client call id: %w", f[0], err)
			}
			s.ClientCallID = sql.NullString{String: call, Valid: true}
		}
		each(f[0], s)
	}
	return nil
}

// jsonString reads a JSON string: without a decoder where it holds no
// escape (nearly always).
func jsonString(quoted string) (string, error) {
	if inner, ok := strings.CutPrefix(quoted, `"`); ok && strings.HasSuffix(inner, `"`) && !strings.ContainsRune(inner, '\\') {
		return inner[:len(inner)-1], nil
	}
	var s string
	err := json.Unmarshal([]byte(quoted), &s)
	return s, err
}

// storedTime reads a time SQLite stored, as its text: as the driver reads
// a timestamp column (the forms it knows, in UTC).
func storedTime(text string) (time.Time, error) {
	if t, ok := utcStoredTime(text); ok {
		return t, nil
	}
	return driverStoredTime(text)
}

// driverStoredTime reads a stored time as the driver reads a timestamp
// column: each of the forms it knows in turn.
func driverStoredTime(text string) (time.Time, error) {
	text = strings.TrimSuffix(text, "Z")
	for _, layout := range sqlite3.SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(layout, text, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time the catalog writes", text)
}

// utcStoredTime reads the form the driver writes a UTC time in
// ("2006-01-02 15:04:05.999999999+00:00"), digit by digit: a page reads a
// thousand, and time.ParseInLocation matches its layout anew for each.
// ok is false for any other form, which storedTime then reads as the
// driver does.
func utcStoredTime(text string) (t time.Time, ok bool) {
	s, ok := strings.CutSuffix(text, "+00:00")
	if !ok || len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	var nsec int
	if frac := s[19:]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		if nsec, ok = digits(frac[1:]); !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Month() != time.Month(month) || t.Day() != day { // a day the month does not have
		return time.Time{}, false
	}
	return t, true
}

// digits reads a run of decimal digits (no sign).
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int(c)
	}
	return n, true
}

// idRange is the smallest and largest of ids (not empty).
func idRange(ids []string) (lo, hi string) {
	lo, hi = ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	return lo, hi
}
