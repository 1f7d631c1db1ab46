package api

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
)

const requestIDHeader = "X-Request-Id"

// requestID echoes a well-formed X-Request-Id or makes one; problem bodies
// carry it as traceId and the access log records it.
func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(requestIDHeader)
		if !validRequestID(id) {
			id = uuid.Must(uuid.NewV7()).String()
		}
		c.Set(problem.TraceIDKey, id)
		c.Set(receivedKey, time.Now())
		c.Header(requestIDHeader, id)
		c.Next()
	}
}

// validRequestID accepts 1 to 128 visible ASCII characters without quotes
// or backslashes, so an echoed id can never break a header or a log line.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// accessLog writes one structured line per request and feeds the HTTP
// metrics.
func accessLog(log *slog.Logger, m *httpMetrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		elapsed := time.Since(start)
		route := c.FullPath()
		if route == "" {
			route = "unmatched" // keeps the metric's cardinality bounded
		}
		m.observe(route, c.Request.Method, c.Writer.Status(), elapsed)
		attrs := []any{
			"method", c.Request.Method, "path", c.Request.URL.Path, "route", route,
			"status", c.Writer.Status(), "duration_ms", float64(elapsed.Microseconds()) / 1000,
			"bytes", c.Writer.Size(), "request_id", c.GetString(problem.TraceIDKey), "remote", c.ClientIP(),
		}
		if p, ok := tenant.From(c.Request.Context()); ok {
			attrs = append(attrs, "client_id", p.ClientID, "org", p.OrgID)
		}
		log.Info("request", attrs...)
	}
}

// recovery turns a handler panic into a 500 problem; the server keeps serving.
func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				log.Error("handler panic", "panic", fmt.Sprint(r), "request_id", c.GetString(problem.TraceIDKey), "stack", string(debug.Stack()))
				problem.Write(c, problem.New(http.StatusInternalServerError,
					"The server failed while handling this request; report the traceId to the operator."))
			}
		}()
		c.Next()
	}
}

// drainAfterRefusal lets a client that is still sending an upload read the
// refusal it was sent early (bad metadata, too large): the server reads and
// drops the rest of the body, for a while, before the connection closes.
// Closing a connection with unread data makes the kernel reset it, and a
// reset can destroy the answer before the client reads it (curl sends large
// bodies after "Expect: 100-continue", which the server grants as soon as
// the metadata is read).
func drainAfterRefusal(c *gin.Context) {
	c.Next()
	if c.Writer.Status() < http.StatusBadRequest {
		return
	}
	c.Writer.Flush() // the answer first
	rc := http.NewResponseController(c.Writer)
	rc.SetReadDeadline(time.Now().Add(drainTime))
	io.Copy(io.Discard, c.Request.Body)
}

// drainTime bounds how long a refused upload's body is read and dropped.
const drainTime = 30 * time.Second
