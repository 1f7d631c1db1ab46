package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/app/window"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// jobView is a job run as GET /Jobs/{id} shows it.
type jobView struct {
	ID        string           `json:"id"`
	Job       string           `json:"job"`
	Status    string           `json:"status"` // running, succeeded, failed
	StartedOn dates.Timestamp  `json:"startedOn"`
	EndedOn   *dates.Timestamp `json:"endedOn"`
	Counts    map[string]int64 `json:"counts"`
	Error     *string          `json:"error"`
}

func newJobView(r catalog.JobRun) jobView {
	return jobView{ID: r.ID, Job: r.Job, Status: r.Status, StartedOn: dates.Timestamp(r.StartedOn), EndedOn: dates.Ptr(r.EndedOn),
		Counts: r.Counts, Error: r.Error}
}

// dateRange reads a body's startDate and endDate (a date-only end is the
// end of that day), both required, the end not before the start and at
// most window.Filtered after it.
func dateRange(body *reqbody.Object) (from, to time.Time, ok bool) {
	f, t := body.Date("startDate"), body.EndDate("endDate")
	for name, v := range map[string]*time.Time{"startDate": f, "endDate": t} {
		if v == nil && !body.Has(name) {
			body.Fail(name, "is required.")
		}
	}
	switch {
	case f == nil || t == nil:
		return from, to, false
	case t.Before(*f):
		body.Fail("endDate", "must not be before startDate.")
	case t.Sub(*f) > window.Filtered:
		body.Fail("endDate", "must be at most "+window.Days(window.Filtered)+" days after startDate.")
	default:
		return *f, *t, true
	}
	return from, to, false
}

// classifierRange reads the {id} path and the {startDate, endDate} body
// of a Test or a Reclassify, or the problem to answer.
func classifierRange(c *gin.Context) (id string, from, to time.Time, err error) {
	id, body, err := readUpdate(c)
	if err != nil {
		return id, from, to, err
	}
	from, to, _ = dateRange(body)
	if p := body.Problem(); p != nil {
		return id, from, to, p
	}
	return id, from, to, nil
}

// reclassify is POST /Conversations/Classifiers/{id}/Reclassify
// {startDate, endDate}: a reclassify job over conversations that arrived
// in the range (at most 31 days); 202 with the job's id, progress at
// GET /Jobs/{id}.
func (s *classifiersAPI) reclassify(c *gin.Context) error {
	id, from, to, err := classifierRange(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	run, err := s.authoring.Reclassify(ctx, actorOf(ctx), id, from, to)
	return s.jobStarted(c, run, err)
}

// jobStarted answers the start of a job: 202 with its id, 429 when the
// bounds on evaluations refused it.
func (s *classifiersAPI) jobStarted(c *gin.Context, run catalog.JobRun, err error) error {
	if errors.Is(err, pipeline.ErrNoSlot) {
		return noEvaluationSlot()
	}
	if err != nil {
		return missing(err, classifierNotFound)
	}
	c.Header("Location", "/Jobs/"+run.ID)
	c.JSON(http.StatusAccepted, gin.H{"jobId": run.ID, "status": run.Status})
	return nil
}

// getJob is GET /Jobs/{id}: a job started for the caller's organization.
func (s *classifiersAPI) getJob(c *gin.Context) error {
	return getByID(c, s.deps.JobRuns.OrgJobRun, newJobView, "No job with this id exists in your organization.")
}

// noEvaluationSlot answers a dry run, reclassification or training
// refused by the bounds on evaluations.
func noEvaluationSlot() *problem.Problem {
	return tooMany(evaluationRetrySeconds, "Your organization already has a classifier dry run, reclassification or training running, or the server "+
		"is running as many as it may; retry after "+strconv.Itoa(evaluationRetrySeconds)+" seconds.")
}

// evaluationRetrySeconds is the Retry-After of a refused evaluation: long
// enough for a dry run to finish.
const evaluationRetrySeconds = 10
