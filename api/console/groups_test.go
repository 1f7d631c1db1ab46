package console

import (
	"html/template"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/results"
)

// The by-group tables sort by any column (a group without the figure
// last, either way), page, and keep the rest of the dashboard's query in
// every link.
func TestSortedTable(t *testing.T) {
	t.Parallel()
	cols := []column{{Key: "k.rate", Label: "K (% yes)", rate: true}}
	rows := func() []groupRow {
		return []groupRow{
			{Name: "b", Conversations: 5, values: []float64{50}},
			{Name: "a", Conversations: 9, values: []float64{math.NaN()}},
			{Name: "c", Conversations: 1, values: []float64{0}},
			{Name: "d", Conversations: 5, values: []float64{100}},
		}
	}
	names := func(tb groupTable) string {
		var out []string
		for _, r := range tb.Rows {
			out = append(out, r.Name)
		}
		return strings.Join(out, "")
	}
	for _, tc := range []struct {
		query, want, sorted string
		perPage             int
		page                string
	}{
		{"", "abdc", "Conversations", 0, ""},
		{"agent_sort=k.rate&agent_dir=asc", "cbda", "K (% yes)", 0, ""},
		{"agent_sort=k.rate&agent_dir=desc", "dbca", "K (% yes)", 0, ""},
		{"agent_sort=name&agent_dir=desc", "dcba", "Agent", 0, ""},
		{"agent_sort=unknown", "abdc", "Conversations", 0, ""},
		{"agent_sort=k.rate&agent_dir=asc&agent_page=2", "da", "K (% yes)", 2, "agents 3–4 of 4"},
		{"agent_page=99", "dc", "Conversations", 2, "agents 3–4 of 4"},
	} {
		q, _ := url.ParseQuery(tc.query + "&from=2025-10-01&team=BOS")
		tb := sortedTable("agent", q, cols, rows(), tc.perPage)
		sorted := ""
		for _, h := range tb.Headings {
			if h.Sort != "" {
				sorted = h.Label
			}
			if !strings.Contains(h.Href, "from=2025-10-01") || !strings.Contains(h.Href, "team=BOS") {
				t.Errorf("%s: a heading's link drops the dashboard's filters: %s", tc.query, h.Href)
			}
		}
		if got := names(tb); got != tc.want || sorted != tc.sorted || tb.Page != tc.page {
			t.Errorf("%s: %s sorted by %q, %q; want %s by %q, %q", tc.query, got, sorted, tb.Page, tc.want, tc.sorted, tc.page)
		}
		for _, r := range tb.Rows { // the rows shown are laid out
			if len(r.Cells) != len(cols) || r.Cells[0].Label != cols[0].Label {
				t.Errorf("%s: row %s has cells %v", tc.query, r.Name, r.Cells)
			}
		}
	}
}

// A figure's trend is its move from the period before, in points for
// percentages; none when either period has no figure.
func TestTrend(t *testing.T) {
	t.Parallel()
	rate := column{classifierID: "k", rate: true}
	mean := column{classifierID: "m"}
	group := func(hits, evaluated int64, m *float64) results.Group {
		return results.Group{Scores: map[string]results.Score{"k": {Hits: hits, Evaluated: evaluated}, "m": {Mean: m}}}
	}
	up, down := 0.5, 0.25
	for _, tc := range []struct {
		col         column
		now, before results.Group
		want        string
	}{
		{rate, group(3, 4, nil), group(1, 2, nil), "▲ 25.0"},
		{rate, group(1, 4, nil), group(1, 2, nil), "▼ 25.0"},
		{rate, group(1, 2, nil), group(2, 4, nil), "= 0.0"},
		{rate, group(1, 2, nil), group(0, 0, nil), ""},
		{mean, group(0, 0, &down), group(0, 0, &up), "▼ 0.25"},
		{mean, group(0, 0, &up), group(0, 0, nil), ""},
	} {
		if got := tc.col.trend(tc.now, tc.before); got != tc.want {
			t.Errorf("%+v then %+v: %q, want %q", tc.before.Scores, tc.now.Scores, got, tc.want)
		}
	}
}

// A row's cells written in Go are the markup the template wrote for them
// (its escaping of a content and of a quoted attribute), whatever their
// texts hold.
func TestCellsHTMLAsTemplate(t *testing.T) {
	t.Parallel()
	reference := template.Must(template.New("cells").Parse(
		`{{range .Cells}}<td data-label="{{.Label}}">{{.Text}}{{if .Trend}} <span class="trend">{{.Trend}}</span>{{end}}</td>{{end}}`))
	texts := []string{"", "45.0 %", "▲ 4.0", "—", `<script>alert("x")</script>`, "a & b + 'c'", "&amp; &#43;",
		"nul\x00byte", "bad \xff\xfe utf-8", "\uFDD0 \uFFFE \U0001F600", "line\nbreak\ttab"}
	random := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("a1 %<>&'\"+=\x00▲—\uFFFD\n")
	for range 200 {
		var r []rune
		for range random.IntN(12) {
			r = append(r, alphabet[random.IntN(len(alphabet))])
		}
		texts = append(texts, string(r))
	}
	for i, label := range texts {
		var row groupRow
		for j := range 3 {
			row.Cells = append(row.Cells, groupCell{Label: label, Text: texts[(i+j+1)%len(texts)], Trend: texts[(i+2*j+2)%len(texts)]})
		}
		var want strings.Builder
		if err := reference.Execute(&want, row); err != nil {
			t.Fatal(err)
		}
		if got := string(row.CellsHTML()); got != want.String() {
			t.Errorf("cells %q:\n got %q\nwant %q", row.Cells, got, want.String())
		}
	}
}
