package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

// healthz is GET /healthz: the process is up and serving.
func (s *Server) healthz(c *gin.Context) error {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
	return nil
}

// readyz is GET /readyz: the catalog and object storage both answer, and
// the data's disk has room (when Space is set): "unavailable" or "low"
// otherwise, the reason in the log.
func (s *Server) readyz(c *gin.Context) error {
	checks := map[string]Pinger{"catalog": s.deps.Catalog, "storage": s.deps.Storage}
	if s.deps.Space != nil {
		checks["space"] = s.deps.Space
	}
	results := gin.H{}
	ready := true
	for name, dep := range checks {
		ctx, cancel := context.WithTimeout(c.Request.Context(), readyTimeout)
		err := dep.Ping(ctx)
		cancel()
		switch {
		case err == nil:
			results[name] = "ok"
		case name == "space":
			results[name] = "low"
		default:
			results[name] = "unavailable"
		}
		if err != nil {
			ready = false
			s.deps.Logger.Warn("readiness check failed", "check", name, "err", err)
		}
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	c.JSON(status, gin.H{"status": word, "checks": results})
	return nil
}
