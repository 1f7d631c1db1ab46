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

// readyz is GET /readyz: the catalog and object storage both answer.
func (s *Server) readyz(c *gin.Context) error {
	checks := map[string]Pinger{"catalog": s.deps.Catalog, "storage": s.deps.Storage}
	results := gin.H{}
	ready := true
	for name, dep := range checks {
		ctx, cancel := context.WithTimeout(c.Request.Context(), readyTimeout)
		err := dep.Ping(ctx)
		cancel()
		if err != nil {
			ready = false
			s.deps.Logger.Warn("readiness check failed", "check", name, "err", err)
			results[name] = "unavailable"
		} else {
			results[name] = "ok"
		}
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	c.JSON(status, gin.H{"status": word, "checks": results})
	return nil
}
