package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/timing"
)

// stepsKey holds a request's timing.Steps in its gin context.
const stepsKey = "earshot.steps"

// receivedKey holds when the request reached the router, in its gin
// context: a timed page's "auth" step is the time from then to its own.
const receivedKey = "earshot.received"

// timed records the steps of a results page (the lake query, the catalog
// check, the fetch, the JSON) for its Server-Timing header.
func timed(c *gin.Context) {
	ctx, steps := timing.With(c.Request.Context())
	if received, ok := c.Get(receivedKey); ok {
		steps.Add("auth", time.Since(received.(time.Time))) // and the middleware before it
	}
	c.Request = c.Request.WithContext(ctx)
	c.Set(stepsKey, steps)
	c.Next()
}

// writeServerTiming sets the Server-Timing header of a timed request,
// before its body is written.
func writeServerTiming(c *gin.Context) {
	if steps, ok := c.Get(stepsKey); ok {
		if received, ok := c.Get(receivedKey); ok {
			// The whole time before the body, steps or not: what the server
			// spent on the page between its named steps shows beside them.
			steps.(*timing.Steps).Add("total", time.Since(received.(time.Time)))
		}
		if h := steps.(*timing.Steps).Header(); h != "" {
			c.Header("Server-Timing", h)
		}
	}
}
