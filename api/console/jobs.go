package console

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Jobs reads an organization's job runs (catalog.JobStore): the
// re-classifications and trainings its authors start.
type Jobs interface {
	OrgJobRun(ctx context.Context, orgID, id string) (catalog.JobRun, error)
}

// jobNames are the jobs an author starts, as people name them.
var jobNames = map[string]string{"reclassify": "Re-classification", "train": "Training"}

// count is one of a run's counts.
type count struct {
	Name  string
	Value int64
}

// job shows one of the organization's job runs, as GET /Jobs/{id} does:
// its status and counts, the page renewed every few seconds while it runs.
func (c *Console) job(ctx *gin.Context) {
	v := viewerFrom(ctx)
	run, err := c.Jobs.OrgJobRun(ctx.Request.Context(), v.OrgID, ctx.Param("id"))
	if c.stopped(ctx, v, err) {
		return
	}
	name := jobNames[run.Job]
	if name == "" {
		name = statusLabel(run.Job)
	}
	data := struct {
		page
		ID, Name, Status, Started, Ended, Error string
		Running                                 bool
		Counts                                  []count
	}{page: page{Title: name, Page: "classifiers", Viewer: v}, ID: run.ID, Name: name, Status: statusLabel(run.Status),
		Started: run.StartedOn.UTC().Format(time.DateTime), Running: run.EndedOn == nil, Error: deref(run.Error)}
	if run.EndedOn != nil {
		data.Ended = run.EndedOn.UTC().Format(time.DateTime)
	}
	for _, k := range slices.Sorted(maps.Keys(run.Counts)) {
		data.Counts = append(data.Counts, count{k, run.Counts[k]})
	}
	c.render(ctx, http.StatusOK, "job", data)
}
