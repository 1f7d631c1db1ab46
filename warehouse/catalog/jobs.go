package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// JobStore records job runs.
type JobStore struct{ handle }

// JobRun is one run of a job.
type JobRun struct {
	ID        string           `json:"id"`
	Job       string           `json:"job"`
	Owner     string           `json:"owner"`
	StartedOn time.Time        `json:"startedOn"`
	EndedOn   *time.Time       `json:"endedOn"`
	Status    string           `json:"status"`
	Counts    map[string]int64 `json:"counts"`
	Error     *string          `json:"error"`
	// OrgID and Params are set for jobs started for one organization with
	// parameters (reclassify).
	OrgID  *string         `json:"orgId,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ReclassifyParams are what a reclassification is asked to do (a reclassify
// run's Params): one classifier's current version over the conversations
// that arrived in [From, To].
type ReclassifyParams struct {
	ClassifierID string    `json:"classifierId"`
	From         time.Time `json:"startDate"`
	To           time.Time `json:"endDate"`
}

// TrainParams are a training run's: the labelled conversations as the
// request gave them (trained.ParseLabelled reads each), whether the
// organization's human reviews of the labels' classifiers are examples
// too, and the settings.
type TrainParams struct {
	Examples     []json.RawMessage `json:"examples"`
	FromReviews  bool              `json:"fromReviews"`
	CategoryName string            `json:"categoryName"`
	// Inactive installs the classifiers inactive: ingest leaves them out
	// until they are activated (after their figures were looked at).
	Inactive bool   `json:"inactive"`
	Seed     uint64 `json:"seed"`
	Folds    int    `json:"folds"`
}

// StartJobRun records the start of a run.
func (c *JobStore) StartJobRun(ctx context.Context, job, owner string) (JobRun, error) {
	r := JobRun{ID: NewID(), Job: job, Owner: owner, StartedOn: now(), Status: "running", Counts: map[string]int64{}}
	_, err := c.exec(ctx, `INSERT INTO job_runs (id, job, owner, started_on, status, counts) VALUES (?, ?, ?, ?, ?, '{}')`,
		r.ID, r.Job, r.Owner, r.StartedOn, r.Status)
	return r, err
}

// StartJobRunFor records the start of a run for an organization, with its
// parameters.
func (c *JobStore) StartJobRunFor(ctx context.Context, job, owner, orgID string, params json.RawMessage) (JobRun, error) {
	r := JobRun{ID: NewID(), Job: job, Owner: owner, StartedOn: now(), Status: "running", Counts: map[string]int64{},
		OrgID: &orgID, Params: params}
	_, err := c.exec(ctx, `INSERT INTO job_runs (id, job, owner, started_on, status, counts, org_id, params)
		VALUES (?, ?, ?, ?, ?, '{}', ?, ?)`, r.ID, r.Job, r.Owner, r.StartedOn, r.Status, orgID, string(params))
	return r, err
}

// Heartbeat records that owner (a process running jobs) is alive now.
func (c *JobStore) Heartbeat(ctx context.Context, owner string) error {
	_, err := c.exec(ctx, `INSERT INTO process_heartbeats (owner, beat_on) VALUES (?, ?)
		ON CONFLICT (owner) DO UPDATE SET beat_on = excluded.beat_on`, owner, now())
	return err
}

// FailInterruptedRuns marks as failed the runs still "running" that
// started before since and whose owner has not beaten since then (its
// process stopped in the middle: a server killed during a
// reclassification), on any host; it forgets heartbeats a day old. It
// returns how many runs it marked.
func (c *JobStore) FailInterruptedRuns(ctx context.Context, since time.Time) (int64, error) {
	var n int64
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE job_runs SET status = 'failed', ended_on = ?,
			error = 'interrupted: the process running it stopped; start it again'
			WHERE status = 'running' AND started_on < ?
			  AND owner NOT IN (SELECT owner FROM process_heartbeats WHERE beat_on >= ?)`, now(), stamp(since), stamp(since))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM process_heartbeats WHERE beat_on < ?`, stamp(since).Add(-24*time.Hour))
		return err
	})
	return n, err
}

// UpdateJobRunCounts records a running job's counts so far (its progress).
func (c *JobStore) UpdateJobRunCounts(ctx context.Context, id string, counts map[string]int64) error {
	data, _ := json.Marshal(counts)
	_, err := c.exec(ctx, `UPDATE job_runs SET counts = ? WHERE id = ? AND status = 'running'`, string(data), id)
	return err
}

// OrgJobRun is a run started for the organization (another's answers
// ErrNotFound).
func (c *JobStore) OrgJobRun(ctx context.Context, orgID, id string) (JobRun, error) {
	runs, err := c.jobRuns(ctx, `WHERE org_id = ? AND id = ?`, orgID, id)
	if err != nil {
		return JobRun{}, err
	}
	if len(runs) == 0 {
		return JobRun{}, ErrNotFound
	}
	return runs[0], nil
}

// FinishJobRun records the end of a run, its counts and its error.
func (c *JobStore) FinishJobRun(ctx context.Context, r JobRun, counts map[string]int64, runErr error) (JobRun, error) {
	end := now()
	r.EndedOn, r.Counts, r.Status = &end, counts, "succeeded"
	if runErr != nil {
		msg := runErr.Error()
		r.Error, r.Status = &msg, "failed"
	}
	data, _ := json.Marshal(counts)
	_, err := c.exec(ctx, `UPDATE job_runs SET ended_on = ?, status = ?, counts = ?, error = ? WHERE id = ?`,
		end, r.Status, string(data), r.Error, r.ID)
	return r, err
}

// JobRuns lists the latest runs, newest first; job "" means every job.
func (c *JobStore) JobRuns(ctx context.Context, job string, limit int) ([]JobRun, error) {
	return c.jobRuns(ctx, `WHERE ? = '' OR job = ? ORDER BY id DESC LIMIT ?`, job, job, limit)
}

func (c *JobStore) jobRuns(ctx context.Context, where string, args ...any) ([]JobRun, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, job, owner, started_on, ended_on, status, counts, error, org_id, params
		FROM job_runs `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []JobRun{}
	for rows.Next() {
		var r JobRun
		var counts string
		var params *string
		if err := rows.Scan(&r.ID, &r.Job, &r.Owner, &r.StartedOn, &r.EndedOn, &r.Status, &counts, &r.Error, &r.OrgID, &params); err != nil {
			return nil, err
		}
		r.StartedOn = r.StartedOn.UTC()
		if r.EndedOn != nil {
			t := r.EndedOn.UTC()
			r.EndedOn = &t
		}
		if params != nil {
			r.Params = json.RawMessage(*params)
		}
		json.Unmarshal([]byte(counts), &r.Counts)
		out = append(out, r)
	}
	return out, rows.Err()
}
