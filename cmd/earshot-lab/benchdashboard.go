package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// dashboardCase is one benchmarked console page: its address and the
// lake queries it makes, which give the items it counts.
type dashboardCase struct {
	name   string
	path   string // the page's path and query string
	direct func() (int, error)
}

// measureDashboards times the console's dashboard over HTTP (a signed-in
// administrator's session, the whole page) — its first request, which
// reads the days' figures from the catalog or, where none are kept yet,
// from the lake, apart — and, beside it, the page's figure reads alone
// (results.Reader: Daily, and Groups by team and by agent over the range
// and over the period before it, which the page's trends compare with).
func measureDashboards(ctx context.Context, st *cli.Stack, base, org string, runs int) ([]queryTiming, error) {
	cookie, err := benchSession(ctx, st.Catalog, org)
	if err != nil {
		return nil, err
	}
	files, err := st.Catalog.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org})
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("the lake of organization %s is empty (earshot bench gen first): %v", org, err)
	}
	first, last := files[0].Date, files[len(files)-1].Date
	all, err := st.Catalog.Classifiers.Classifiers(ctx, org, catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		return nil, err
	}
	var boolean, scored []string // as the dashboard picks them
	for _, k := range all {
		if k.Type == "Classifier" {
			boolean = append(boolean, k.ID)
		} else {
			scored = append(scored, k.ID)
		}
	}
	tree, err := st.Catalog.People.Hierarchy(ctx, org)
	if err != nil {
		return nil, err
	}
	r1, _ := tree.ByCode("R1")
	start := first.AddDate(0, 0, 30)
	window := func(from time.Time, days int) results.Window {
		return results.Window{From: from, To: from.AddDate(0, 0, days).Add(-time.Microsecond)}
	}
	dates := func(w results.Window) string {
		return "from=" + w.From.Format(time.DateOnly) + "&to=" + w.To.Format(time.DateOnly)
	}
	w14, w92 := window(start, 14), window(first, int(last.Sub(first).Hours()/24)+1)
	figures := append(slices.Clip(boolean), scored...)
	dashboard := func(name, query string, q results.PageQuery) dashboardCase {
		return dashboardCase{name, "/console/dashboard?" + query, func() (int, error) {
			days, err := st.Reader.Daily(ctx, q, boolean)
			if err != nil {
				return 0, err
			}
			conversations := 0
			for _, d := range days {
				conversations += int(d.Conversations)
			}
			// The range's groups and the period before's (the trends),
			// side by side as the page reads them.
			before := q
			before.Window = q.Before()
			var groups errgroup.Group
			for _, w := range []results.PageQuery{q, before} {
				for _, by := range []results.GroupBy{results.ByTeam, results.ByAgent} {
					groups.Go(func() error {
						_, err := st.Reader.Groups(ctx, w, by, figures, 1_000_000)
						return err
					})
				}
			}
			return conversations, groups.Wait()
		}}
	}
	cases := []dashboardCase{
		dashboard("Dashboard, 14 days", dates(w14), results.PageQuery{OrgID: org, Window: w14}),
		dashboard("Dashboard, 14 days, hierarchy R1", dates(w14)+"&team=R1", results.PageQuery{OrgID: org, Window: w14, NodeIDs: tree.Descendants(r1.ID)}),
		dashboard("Dashboard, all 92 days", dates(w92), results.PageQuery{OrgID: org, Window: w92}),
	}
	lists, err := listCases(ctx, st, org, boolean[0], w92, dates(w92))
	if err != nil {
		return nil, err
	}
	cases = append(cases, lists...)
	var out []queryTiming
	for _, c := range cases {
		target := base + c.path
		began := time.Now() // the first request reads the days' kept figures, or the lake
		if err := getDashboard(ctx, target, cookie); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		first := time.Since(began)
		var items int
		times, err := timeInTurns(runs, func() error { return getDashboard(ctx, target, cookie) },
			func() (err error) {
				items, err = c.direct()
				return err
			})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		httpTimes, direct := times[0], times[1]
		out = append(out, queryTiming{name: c.name, first: first, httpP50: pct(httpTimes, 50), httpP99: pct(httpTimes, 99),
			directP50: pct(direct, 50), directP99: pct(direct, 99), items: items})
	}
	return out, nil
}

// listCases are the console's conversation list filtered by a yes/no
// classifier's result over the whole range: newest first (the list's
// order), a deep page of it (from a conversation halfway back), and
// oldest first. Beside each, the lake's search alone.
func listCases(ctx context.Context, st *cli.Stack, org, classifier string, w results.Window, dates string) ([]dashboardCase, error) {
	mid := w.From.Add(w.To.Sub(w.From) / 2)
	halfway, err := st.Catalog.Interactions.Interactions(ctx, org, catalog.InteractionFilter{ArrivedTo: &mid, Newest: true, Limit: 1})
	if err != nil || len(halfway) == 0 {
		return nil, fmt.Errorf("no conversation halfway through the range: %v", err)
	}
	path := "/console/conversations?" + dates + "&result=" + classifier + ":true"
	search := func(s results.Search) func() (int, error) {
		q := results.PageQuery{OrgID: org, Window: w, Limit: 51}
		if s.BeforeID != "" {
			q.To = halfway[0].ArrivedOn // as the console reads on from a cursor
		}
		return func() (int, error) {
			s.ClassifierID, s.Result = classifier, "true"
			ids, err := st.Reader.Search(ctx, q, s)
			return min(len(ids), 50), err
		}
	}
	return []dashboardCase{
		{"Conversations by a result, 92 days, newest first", path, search(results.Search{Newest: true})},
		{"… deep page (halfway back)", path + "&cursor=" + halfway[0].ID, search(results.Search{Newest: true, BeforeID: halfway[0].ID})},
		{"… oldest first", path + "&order=oldest", search(results.Search{})},
	}, nil
}

// benchSession signs an administrator of the organization in (a user
// bench.supervisor, created once) and gives the session's cookie.
func benchSession(ctx context.Context, cat *catalog.Catalog, org string) (*http.Cookie, error) {
	name, first, last, email, role := "bench.supervisor", "Bench", "Supervisor", "bench.supervisor@example.com", "Administrator"
	u, err := cat.People.UserByName(ctx, org, name)
	if errors.Is(err, catalog.ErrNotFound) {
		u, err = cat.People.CreateUser(ctx, org, catalog.UserInput{UserName: &name, FirstName: &first, LastName: &last, Email: &email, RoleName: &role})
	}
	if err != nil {
		return nil, err
	}
	token := rand.Text()
	sum := sha256.Sum256([]byte(token))
	now := time.Now().UTC()
	err = cat.People.StartSession(ctx, catalog.Session{TokenHash: hex.EncodeToString(sum[:]), OrgID: org, UserID: u.ID, CSRF: rand.Text(),
		CreatedOn: now, ExpiresOn: now.Add(time.Hour)})
	return &http.Cookie{Name: "earshot_session", Value: token}, err
}

func getDashboard(ctx context.Context, target string, cookie *http.Cookie) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d", target, resp.StatusCode)
	}
	return nil
}
