package catalog

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strconv"
)

// anyOf is the condition "column is one of a list", the list bound as one
// parameter (see list).
func anyOf(column string) string { return column + " IN (SELECT value FROM json_each(?))" }

// anyIntOf is anyOf for an integer column: the list's values (intList)
// are read as integers on either engine.
func anyIntOf(column string) string {
	return column + " IN (SELECT CAST(value AS INTEGER) FROM json_each(?))"
}

// listParam is a list of strings bound as one parameter, for anyOf:
// SQLite reads it as a JSON array (Value), PostgreSQL's driver binds it as
// a text[] (rewritingConn.CheckNamedValue).
type listParam []string

// Value is the list's JSON array ([] for none), as a list column's.
func (l listParam) Value() (driver.Value, error) { return strList(l).Value() }

// list is a list of strings as one bound parameter, for anyOf.
func list(values []string) listParam { return listParam(values) }

// intList is a list of integers as one bound parameter, for anyIntOf:
// their decimal texts, which either engine casts back.
func intList(values []int) listParam {
	out := make(listParam, len(values))
	for i, v := range values {
		out[i] = strconv.Itoa(v)
	}
	return out
}

// strList is a list column: a JSON array of strings in the catalog, never
// NULL (an empty list is []).
type strList []string

// Value writes the list as its JSON array.
func (l strList) Value() (driver.Value, error) {
	if l == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan reads a JSON array of strings (NULL reads as empty).
func (l *strList) Scan(src any) error {
	*l = []string{}
	var raw []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		raw = []byte(v)
	case []byte:
		raw = v
	default:
		return fmt.Errorf("a list column holds %T, want JSON text", src)
	}
	return json.Unmarshal(raw, (*[]string)(l))
}

// queryAll is a query's rows, each read by scan; an empty list, not nil,
// when there are none.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryPairs maps the first text column of a query's rows to the second.
func queryPairs(ctx context.Context, q querier, query string, args ...any) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// queryStrings is the one text column of a query's rows.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	return queryAll(ctx, q, func(s scanner) (v string, err error) { return v, s.Scan(&v) }, query, args...)
}

// rawJSON reads a JSON text column as it is (NULL reads as an empty
// object).
type rawJSON json.RawMessage

// Scan keeps a copy of the column's text: a driver may reuse its buffer.
func (j *rawJSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = rawJSON("{}")
	case string:
		*j = rawJSON(v)
	case []byte:
		*j = rawJSON(append([]byte(nil), v...))
	default:
		return fmt.Errorf("a JSON column holds %T, want JSON text", src)
	}
	return nil
}
