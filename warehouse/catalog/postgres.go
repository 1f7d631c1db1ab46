package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The catalog's SQL is written once, in the forms SQLite reads (ADR 0003).
// On PostgreSQL a driver of its own rewrites each statement's text once
// (cached): placeholders ? become $1, $2, …, and the few SQLite functions
// the stores use become PostgreSQL's. Everything else is the same text.

// postgresDriverName is pgx behind the rewriting.
const postgresDriverName = "earshot-postgres"

func init() { sql.Register(postgresDriverName, rewritingDriver{stdlib.GetDefaultDriver()}) }

// sqliteForms are SQLite spellings the stores use and their PostgreSQL
// equivalents, applied before the placeholders are numbered. A list bound
// as one parameter (anyOf's listParam) is read by unnest from a text[] on
// PostgreSQL (CheckNamedValue binds it so): the planner counts the values
// of the array a statement is planned with, where it took
// json_array_elements_text for a hundred values whatever the list, and
// read a whole table for two uploads' chats.
var sqliteForms = strings.NewReplacer(
	"json_each(?)", "unnest(CAST(? AS text[])) AS value", // its column is value, as json_each's
	"json_each(osms)", "json_array_elements_text(CAST(osms AS json))",
	"json_group_array(code)", "CAST(json_agg(code) AS text)",
	"json_insert(osms, '$[#]', ?)", "CAST(CAST(osms AS jsonb) || to_jsonb(CAST(? AS text)) AS text)",
)

var rewritten sync.Map // SQLite text → PostgreSQL text

// toPostgres is a statement's PostgreSQL text.
func toPostgres(query string) string {
	if v, ok := rewritten.Load(query); ok {
		return v.(string)
	}
	q := sqliteForms.Replace(query)
	var b strings.Builder
	n := 0
	inString := false
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case ch == '\'':
			inString = !inString
		case ch == '?' && !inString:
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(ch)
	}
	out := b.String()
	rewritten.Store(query, out)
	return out
}

type rewritingDriver struct{ driver.Driver }

func (d rewritingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return rewritingConn{c}, nil
}

// rewritingConn passes every statement through toPostgres; the rest is
// pgx's connection.
type rewritingConn struct{ driver.Conn }

func (c rewritingConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(toPostgres(query))
}

func (c rewritingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, toPostgres(query))
}

func (c rewritingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, toPostgres(query), args)
}

func (c rewritingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 1 {
		if in, ok := args[0].Value.(copyIn); ok {
			return c.copyFrom(ctx, in)
		}
	}
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, toPostgres(query), args)
}

// copyIn is rows to insert into a table, the one argument of a statement
// "COPY table FROM STDIN" (insertMany): the driver sends them by
// PostgreSQL's copy protocol, in the connection's transaction, where a
// multi-row INSERT would have the server parse and plan a statement of
// as many parameters as values, and each count of rows a statement of its
// own (its text kept by toPostgres, and prepared on the connection).
type copyIn struct {
	Table   string
	Columns []string
	Rows    [][]any
}

// copyFrom sends in's rows by the copy protocol; rows affected are the
// rows copied.
func (c rewritingConn) copyFrom(ctx context.Context, in copyIn) (driver.Result, error) {
	n, err := c.Conn.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{in.Table}, in.Columns, pgx.CopyFromRows(in.Rows))
	return driver.RowsAffected(n), err
}

func (c rewritingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c rewritingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c rewritingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// CheckNamedValue binds a list parameter (listParam, which SQLite reads
// as a JSON array) as its strings, which pgx sends as a text[] (an empty
// one for none, not NULL); any other value as pgx does.
func (c rewritingConn) CheckNamedValue(v *driver.NamedValue) error {
	if l, ok := v.Value.(listParam); ok {
		if l == nil {
			l = listParam{}
		}
		v.Value = []string(l)
		return nil
	}
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(v)
}

// pgCode is a PostgreSQL error's SQLSTATE, "" for other errors.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
