package api

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/results"
)

// The dashboard's daily figures agree with the API's own pages: each
// day's conversations are /Conversations/Insights' X-Total-Records, and
// each classifier's hits its "true" results there, for the whole
// organization and for one region.
func TestDailyFiguresMatchTheAPI(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	org := e.orgs[0]
	var ids []string
	for _, k := range org.Classifiers[:len(org.Classifiers)-1] { // the boolean ones
		ids = append(ids, k.ID)
	}
	for _, nodes := range [][]string{nil, {org.Regions[0]}} {
		q := results.PageQuery{OrgID: org.ID, Window: results.Window{From: e.opts.Start, To: e.opts.Start.AddDate(0, 0, e.opts.Days).Add(-time.Microsecond)}}
		filter := ""
		if nodes != nil {
			tree, _ := e.cat.People.Hierarchy(context.Background(), org.ID)
			q.NodeIDs = tree.Descendants(nodes[0])
			filter = "&HierarchyIds=" + nodes[0]
		}
		days, err := e.reader.Daily(context.Background(), q, ids)
		if err != nil || len(days) != e.opts.Days {
			t.Fatalf("%d days (%v)", len(days), err)
		}
		for _, d := range days {
			day := d.Date.Format(time.DateOnly)
			target := "/Conversations/Insights?StartDate=" + day + "&EndDate=" + day + "&PageSize=1000" + filter
			r := e.get(target)
			if total := r.Header().Get("X-Total-Records"); total != strconv.FormatInt(d.Conversations, 10) {
				t.Errorf("%s %v: %d conversations, the API counts %s", day, nodes, d.Conversations, total)
			}
			var items []pageItem
			json.Unmarshal(r.Body.Bytes(), &items)
			hits := map[string]int64{}
			for _, it := range items {
				for _, res := range it.Results {
					if res.Result == "true" {
						hits[res.ClassifierID]++
					}
				}
			}
			for _, id := range ids {
				if d.Hits[id] != hits[id] || d.Evaluated[id] == 0 {
					t.Errorf("%s %v classifier %s: %d hits of %d, the API shows %d", day, nodes, id, d.Hits[id], d.Evaluated[id], hits[id])
				}
			}
		}
	}
}
