package api

import (
	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/timing"
)

// stepsKey holds a request's timing.Steps in its gin context.
const stepsKey = "earshot.steps"

// timed records the steps of a results page (the lake query, the catalog
// check, the fetch, the JSON) for its Server-Timing header.
func timed(c *gin.Context) {
	ctx, steps := timing.With(c.Request.Context())
	c.Request = c.Request.WithContext(ctx)
	c.Set(stepsKey, steps)
	c.Next()
}

// writeServerTiming sets the Server-Timing header of a timed request,
// before its body is written.
func writeServerTiming(c *gin.Context) {
	if steps, ok := c.Get(stepsKey); ok {
		if h := steps.(*timing.Steps).Header(); h != "" {
			c.Header("Server-Timing", h)
		}
	}
}
