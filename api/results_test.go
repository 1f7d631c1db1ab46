package api

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakegen"
)

// resultsEnv is a test server over a generated lake: two organizations of
// 300 conversations each over 6 days from 2025-10-01, 4 classifiers each
// (the last a sentiment model), some reviewed, some still processing.
type resultsEnv struct {
	*testEnv
	orgs  []lakegen.Org
	opts  lakegen.Options
	token string // for orgs[0]
}

func newResultsEnv(t *testing.T) *resultsEnv {
	t.Helper()
	env := newTestEnv(t, Options{}, func(d *Deps) { d.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil)) })
	o := lakegen.Options{Orgs: 2, Conversations: 600, Days: 6, Classifiers: 4,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 7, ReviewShare: 0.05, PendingShare: 0.03}
	orgs, err := lakegen.Generate(context.Background(), env.cat, &lake.Writer{Bucket: env.bucket}, o)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := env.tokens.Issue(env.clientID, orgs[0].ID, "acxapi")
	if err != nil {
		t.Fatal(err)
	}
	return &resultsEnv{testEnv: env, orgs: orgs, opts: o, token: tok}
}

func (e *resultsEnv) get(target string) response { return e.do("GET", target, nil, bearer(e.token)) }

func TestSmokeResults(t *testing.T) {
	e := newResultsEnv(t)
	r := e.get("/ModelResults?modelIds=" + e.orgs[0].Classifiers[0].ID + "," + e.orgs[0].Classifiers[3].ID + "&pageSize=3")
	t.Logf("%d %s", r.Code, r.Body)
	r = e.get("/Conversations/Insights?StartDate=2025-10-01&EndDate=2025-10-03&PageSize=2")
	t.Logf("%d %v %s", r.Code, r.Header(), r.Body)
	r = e.get("/ModelResults?pageSize=3&includeUnprocessedMedia=true&modelIds=" + e.orgs[0].Classifiers[0].ID)
	t.Logf("%d %s", r.Code, r.Body)
}
