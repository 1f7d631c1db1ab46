package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// Figures reads a dashboard's figures from the lake (results.Reader):
// the query layer the API's pages read through.
type Figures interface {
	Daily(ctx context.Context, q results.PageQuery, classifierIDs []string) ([]results.Day, error)
	Groups(ctx context.Context, q results.PageQuery, by results.GroupBy, classifierIDs []string, limit int) ([]results.Group, error)
}

// Classifiers lists an organization's classifiers (catalog.ClassifierStore).
type Classifiers interface {
	Classifiers(ctx context.Context, orgID string, f catalog.ClassifierFilter) ([]catalog.Classifier, error)
}

// Hierarchies finds hierarchy nodes by code (catalog.PeopleStore).
type Hierarchies interface {
	Hierarchy(ctx context.Context, orgID string) (*catalog.Tree, error)
}

// maxDashboardDays bounds a dashboard's range.
const maxDashboardDays = 92

// dashboardData is what the charts draw, carried by the page as JSON.
type dashboardData struct {
	Days        []dayFigures      `json:"days"`
	Classifiers []classifierLabel `json:"classifiers"`
	ByTeam      groupChart        `json:"byTeam"`
}

type dayFigures struct {
	Date          string    `json:"date"`
	Conversations int64     `json:"conversations"`
	Rates         []*string `json:"rates"` // by classifier, percent; null where none was evaluated
}

type classifierLabel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type rateRow struct {
	Name            string
	Hits, Evaluated int64
	Rate            string
}

// dashboardPage is what the dashboard's template shows.
type dashboardPage struct {
	page
	From, To, Team, Error string
	Total                 int64
	Data                  dashboardData
	Rates                 []rateRow
	Teams, Agents         groupTable
}

// zeroFilled are the days of a range, each with its figures or none: a
// day without conversations is a day on the charts too.
func zeroFilled(days []results.Day, start, end time.Time) []results.Day {
	at := map[string]results.Day{}
	for _, d := range days {
		at[d.Date.Format(time.DateOnly)] = d
	}
	var out []results.Day
	for day := start.UTC().Truncate(24 * time.Hour); !day.After(end); day = day.AddDate(0, 0, 1) {
		d, ok := at[day.Format(time.DateOnly)]
		if !ok {
			d = results.Day{Date: day}
		}
		out = append(out, d)
	}
	return out
}

// dashboard shows conversations per day, each boolean classifier's hit
// rate, and the sentiment and talk models' figures by team and agent over
// a range (the last 14 days by default), for what the viewer may see, or
// one hierarchy node and below.
func (c *Console) dashboard(ctx *gin.Context) {
	v := viewerFrom(ctx)
	now := time.Now().UTC()
	from, to := ctx.DefaultQuery("from", now.AddDate(0, 0, -13).Format(time.DateOnly)), ctx.DefaultQuery("to", now.Format(time.DateOnly))
	data := dashboardPage{page: page{Title: "Dashboard", Page: "dashboard", Viewer: v}, From: from, To: to, Team: ctx.Query("team"),
		Data: dashboardData{Days: []dayFigures{}, Classifiers: []classifierLabel{}, ByTeam: groupChart{Teams: []string{}, Series: []groupSeries{}}}}
	start, err1 := dates.Parse(from)
	end, err2 := dates.ParseEnd(to)
	switch {
	case err1 != nil || err2 != nil:
		data.Error = "The range needs two dates such as 2025-10-01."
	case end.Before(start) || end.Sub(start) > maxDashboardDays*24*time.Hour:
		data.Error = fmt.Sprintf("The range must run forwards, %d days at the most.", maxDashboardDays)
	}
	if data.Error != "" {
		c.render(ctx, http.StatusBadRequest, "dashboard", data)
		return
	}
	q := results.PageQuery{OrgID: v.OrgID, Window: results.Window{From: start, To: end}, Scope: v.scope()}
	tree, err := c.Hierarchies.Hierarchy(ctx.Request.Context(), v.OrgID)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	if data.Team != "" {
		node, ok := tree.ByCode(data.Team)
		if !ok {
			data.Error = "No hierarchy node has the code " + data.Team + "."
			c.render(ctx, http.StatusBadRequest, "dashboard", data)
			return
		}
		q.NodeIDs = tree.Descendants(node.ID)
	}
	q.NodeIDs = v.scope().Narrow(q.NodeIDs)
	all, err := c.Classifiers.Classifiers(ctx.Request.Context(), v.OrgID, catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		c.failed(ctx, err)
		return
	}
	var ids []string
	for _, k := range all {
		if k.Type == "Classifier" { // the yes/no phrase rules
			ids = append(ids, k.ID)
			data.Data.Classifiers = append(data.Data.Classifiers, classifierLabel{ID: k.ID, Name: k.Name})
		}
	}
	days, err := c.Figures.Daily(ctx.Request.Context(), q, ids)
	if err != nil {
		c.failed(ctx, err)
		return
	}
	totals := make([]rateRow, len(ids))
	for i, k := range data.Data.Classifiers {
		totals[i].Name = k.Name
	}
	for _, d := range zeroFilled(days, start, end) {
		f := dayFigures{Date: d.Date.Format(time.DateOnly), Conversations: d.Conversations, Rates: make([]*string, len(ids))}
		for i, id := range ids {
			totals[i].Hits += d.Hits[id]
			totals[i].Evaluated += d.Evaluated[id]
			if n := d.Evaluated[id]; n > 0 {
				rate := fmt.Sprintf("%.1f", 100*float64(d.Hits[id])/float64(n))
				f.Rates[i] = &rate
			}
		}
		data.Total += d.Conversations
		data.Data.Days = append(data.Data.Days, f)
	}
	for _, r := range totals {
		r.Rate = "—"
		if r.Evaluated > 0 {
			r.Rate = fmt.Sprintf("%.1f %%", 100*float64(r.Hits)/float64(r.Evaluated))
		}
		data.Rates = append(data.Rates, r)
	}
	cols := []column{qaColumn}
	if auto, err := c.Quality.AutoScoring(ctx.Request.Context(), v.actor); err != nil {
		c.failed(ctx, err)
		return
	} else if auto {
		cols = append(cols, qaAutoColumn)
	}
	cols = append(cols, columnsOf(all)...)
	groups, err := c.groupFigures(ctx.Request.Context(), v, q, tree, cols, url.Values{"from": {from}, "to": {to}, "team": {data.Team}})
	if err != nil {
		c.failed(ctx, err)
		return
	}
	query := ctx.Request.URL.Query()
	data.Teams = sortedTable("team", query, cols, groups.Teams, 0)
	data.Agents = sortedTable("agent", query, cols, groups.Agents, agentsPerPage)
	data.Data.ByTeam = groups.Chart
	c.render(ctx, http.StatusOK, "dashboard", data)
}
