package console

import (
	"fmt"
	"html/template"
	"io"
	"net/url"
	"testing"

	"github.com/earshot/earshot/warehouse/results"
	"github.com/earshot/earshot/web"
)

// BenchmarkDashboardTemplate renders a dashboard of the size earshot
// bench gen's organization has: 36 teams and a page of 25 of its 120
// agents, 22 columns each with a trend, 14 days of 18 classifiers.
func BenchmarkDashboardTemplate(b *testing.B) {
	t, err := template.ParseFS(web.Templates, "templates/layout.html", "templates/call.html", "templates/dashboard.html")
	if err != nil {
		b.Fatal(err)
	}
	data := benchDashboardPage(36, 120, 22, 14, 18)
	b.ReportAllocs()
	for b.Loop() {
		if err := t.ExecuteTemplate(io.Discard, "layout", data); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDashboardPage is a dashboard's page of teams and agents, each with
// figures in every column and the period before.
func benchDashboardPage(teams, agents, columns, days, classifiers int) dashboardPage {
	var cols []column
	for i := range columns {
		cols = append(cols, column{Key: fmt.Sprintf("k%d.rate", i), Label: fmt.Sprintf("Classifier %d (%% yes)", i), classifierID: fmt.Sprintf("k%d", i), rate: true})
	}
	group := func(key string, n int64, seed int) results.Group {
		g := results.Group{Key: key, Conversations: n, Scores: map[string]results.Score{}}
		for i, col := range cols {
			g.Scores[col.classifierID] = results.Score{Evaluated: n, Hits: n * int64((seed+i)%10) / 10}
		}
		return g
	}
	rows := func(prefix string, n int) []groupRow {
		var out []groupRow
		for i := range n {
			key := fmt.Sprintf("%s-%d", prefix, i)
			row := groupRowOf(key, group(key, int64(1000+i), i), group(key, int64(900+i), i+3), cols)
			row.Link = "/console/conversations?" + url.Values{prefix: {key}}.Encode()
			out = append(out, row)
		}
		return out
	}
	page := dashboardPage{page: page{Title: "Dashboard", Page: "dashboard", Viewer: &viewer{UserName: "A", OrgName: "O", CSRF: "c"}},
		From: "2025-10-01", To: "2025-10-14"}
	for i := range classifiers {
		page.Data.Classifiers = append(page.Data.Classifiers, classifierLabel{ID: fmt.Sprintf("k%d", i), Name: fmt.Sprintf("Classifier %d", i)})
		page.Rates = append(page.Rates, rateRow{Name: fmt.Sprintf("Classifier %d", i), Hits: 10, Evaluated: 50, Rate: "20.0 %"})
	}
	for d := range days {
		f := dayFigures{Date: fmt.Sprintf("2025-10-%02d", d+1), Conversations: 10_000}
		for range classifiers {
			rate := "20.0"
			f.Rates = append(f.Rates, &rate)
		}
		page.Data.Days = append(page.Data.Days, f)
	}
	page.Data.ByTeam = groupChart{Teams: []string{}, Series: []groupSeries{}}
	page.Teams = sortedTable("team", url.Values{}, cols, rows("team", teams), 0)
	page.Agents = sortedTable("agent", url.Values{}, cols, rows("agent", agents), agentsPerPage)
	return page
}
