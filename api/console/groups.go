package console

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/pipeline/analysis/core"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// Group limits: the teams a chart draws (the busiest), the agents a page
// of their table shows, and every group a table may reach.
const (
	maxTeams      = 30
	agentsPerPage = 25
	everyGroup    = 1_000_000
)

// column is a figure of the by-group tables: a yes/no classifier's rate
// of yes, or a sentiment or talk model's mean score.
type column struct {
	Key, Label   string
	classifierID string
	rate         bool // the share of yes results; else the mean score
	share        bool // a mean that is a share, shown as a percentage
	percent      bool // a mean that is a percentage already
}

// Where a group's QA scores are kept among its classifiers' scores: the
// mean of people's submitted evaluations, and of the Auto evaluations of
// every conversation.
const (
	qaScores     = "qa"
	qaAutoScores = "qa-auto"
)

// The by-group tables' QA scores: people's, and, where the organization
// has an auto-scored form, every conversation's beside it.
var (
	qaColumn     = column{Key: "qa.mean", Label: "QA score (evaluations)", classifierID: qaScores, percent: true}
	qaAutoColumn = column{Key: "qa-auto.mean", Label: "QA score (every conversation)", classifierID: qaAutoScores, percent: true}
)

// qaSources are the QA score columns' evaluations.
var qaSources = map[string]string{qaScores: catalog.SourceHuman, qaAutoScores: catalog.SourceAuto}

// measureNames are the talk measures as people name them.
var measureNames = map[string]string{
	core.TalkShare: "talk share", core.SilenceShare: "silence share", core.OvertalkMs: "overtalk (ms)",
	core.LongestMonologue: "longest monologue (ms)", core.WordsPerMinute: "words per minute",
}

// columnsOf are the figures of the organization's active classifiers: the
// rate of each yes/no phrase rule, the mean of each sentiment and talk
// model (and its rate when its results are yes/no).
func columnsOf(all []catalog.Classifier) []column {
	var out []column
	for _, k := range all {
		rate := column{Key: k.ID + ".rate", Label: k.Name + " (% yes)", classifierID: k.ID, rate: true}
		if k.Type == "Classifier" {
			out = append(out, rate)
			continue
		}
		var def struct{ Model, Measure, Speaker, Label string }
		if k.Type != "Core AI Model" || json.Unmarshal(k.Definition, &def) != nil {
			continue
		}
		speaker := strings.ToLower(cmp.Or(def.Speaker, "anyone"))
		mean := column{Key: k.ID + ".mean", classifierID: k.ID}
		switch def.Model {
		case "sentiment":
			mean.Label = k.Name + ": mean sentiment of " + speaker + " (−1 to 1)"
		case "talk":
			mean.Label = k.Name + ": mean " + cmp.Or(measureNames[def.Measure], def.Measure)
			mean.share = def.Measure == core.TalkShare || def.Measure == core.SilenceShare
		default:
			continue
		}
		out = append(out, mean)
		if def.Label != "" || def.Model == "talk" {
			out = append(out, rate)
		}
	}
	return out
}

// value is a group's figure of the column; false when it has none.
func (col column) value(g results.Group) (float64, bool) {
	s := g.Scores[col.classifierID]
	switch {
	case col.rate && s.Evaluated > 0:
		return 100 * float64(s.Hits) / float64(s.Evaluated), true
	case !col.rate && s.Mean != nil && col.share:
		return 100 * *s.Mean, true
	case col.percent && s.Mean != nil:
		return *s.Mean, true
	case !col.rate && s.Mean != nil:
		return *s.Mean, true
	}
	return 0, false
}

func (col column) format(v float64, ok bool) string {
	switch {
	case !ok:
		return "—"
	case col.rate || col.share || col.percent:
		return fmt.Sprintf("%.1f %%", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// trend is how a group's figure moved from the period before: "▲ 4.0"
// (points, for percentages) or "▼ 0.12"; "" when either has none.
func (col column) trend(now, before results.Group) string {
	v, ok := col.value(now)
	was, wasOK := col.value(before)
	if !ok || !wasOK {
		return ""
	}
	format := "%.2f"
	if col.rate || col.share || col.percent {
		format = "%.1f"
	}
	switch d := v - was; {
	case d > 0:
		return "▲ " + fmt.Sprintf(format, d)
	case d < 0:
		return "▼ " + fmt.Sprintf(format, -d)
	}
	return "= " + fmt.Sprintf(format, 0.0)
}

// groupTable is a by-group table: sortable by any column, in pages.
type groupTable struct {
	ID, Label, Empty string
	Headings         []heading
	Rows             []groupRow
	Earlier, Later   string // the links of the pages around, if any
	Page             string // "agents 26–50 of 212"
}

// heading is a column's heading: a link that sorts by it (lowest first,
// then highest first), and how the table is sorted by it now.
type heading struct {
	Label, Href string
	Sort        string // "ascending", "descending" or ""
}

// groupRow is one team's or agent's row of a by-group table.
type groupRow struct {
	Name, Link    string
	Conversations int64
	Cells         []groupCell   // laid out for the rows a page shows (sortedTable)
	values        []float64     // by column; NaN where there is none
	now, before   results.Group // the figures, for the cells
}

// groupCell is a figure with its column's name (a phone shows each cell
// on its own line, named) and its move since the period before.
type groupCell struct{ Label, Text, Trend string }

// groupRowOf is a group's row, with its figures to sort by and the same
// group's in the period before.
func groupRowOf(name string, g, before results.Group, cols []column) groupRow {
	row := groupRow{Name: name, Conversations: g.Conversations, now: g, before: before}
	for _, col := range cols {
		v, ok := col.value(g)
		if !ok {
			v = math.NaN()
		}
		row.values = append(row.values, v)
	}
	return row
}

// laidOut is the row with its cells: each figure as text, and its trend.
// Only the rows a page shows are laid out (a table may have hundreds).
func (row groupRow) laidOut(cols []column) groupRow {
	row.Cells = make([]groupCell, len(cols))
	for i, col := range cols {
		v := row.values[i]
		row.Cells[i] = groupCell{col.Label, col.format(v, !math.IsNaN(v)), col.trend(row.now, row.before)}
	}
	return row
}

// cellEscaper escapes a cell's texts as html/template does in an
// element's content and in a quoted attribute (its htmlReplacementTable).
var cellEscaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// cellBytes is about the length of a cell's markup with its trend.
const cellBytes = 96

// CellsHTML is the row's laid out cells as markup, escaped as the
// template would escape them. A dashboard's tables hold thousands of
// cells: the template escaping each of a cell's texts, a call by
// reflection each, was most of the page's CPU.
func (row groupRow) CellsHTML() template.HTML {
	var b strings.Builder
	b.Grow(len(row.Cells) * cellBytes)
	for _, c := range row.Cells {
		b.WriteString(`<td data-label="`)
		cellEscaper.WriteString(&b, c.Label)
		b.WriteString(`">`)
		cellEscaper.WriteString(&b, c.Text)
		if c.Trend != "" {
			b.WriteString(` <span class="trend">`)
			cellEscaper.WriteString(&b, c.Trend)
			b.WriteString(`</span>`)
		}
		b.WriteString(`</td>`)
	}
	return template.HTML(b.String()) // every text escaped above
}

// sortedTable sorts rows by the table's sort parameters in query (the
// prefix's sort, dir and page), pages them when perPage > 0, and makes
// every link keep the rest of query (the range, the hierarchy filter, the
// other table's order).
func sortedTable(prefix string, query url.Values, cols []column, rows []groupRow, perPage int) groupTable {
	by, desc := query.Get(prefix+"_sort"), query.Get(prefix+"_dir") == "desc"
	at := -1 // the column sorted by; -1 the name, -2 conversations (the default, busiest first)
	switch by {
	case "name":
	case "", "conversations":
		by, at, desc = "conversations", -2, by == "" || desc
	default:
		at = slices.IndexFunc(cols, func(c column) bool { return c.Key == by })
		if at < 0 {
			by, at, desc = "conversations", -2, true
		}
	}
	slices.SortStableFunc(rows, func(a, b groupRow) int {
		var c int
		switch at {
		case -1:
			c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case -2:
			c = cmp.Compare(a.Conversations, b.Conversations)
		default:
			va, vb := a.values[at], b.values[at]
			if math.IsNaN(va) || math.IsNaN(vb) { // no figure: last, either way
				return cmp.Compare(boolInt(math.IsNaN(va)), boolInt(math.IsNaN(vb)))
			}
			c = cmp.Compare(va, vb)
		}
		if desc {
			c = -c
		}
		return cmp.Or(c, strings.Compare(a.Name, b.Name))
	})
	link := func(set map[string]string) string {
		q := maps.Clone(query)
		for k, v := range set {
			q.Set(k, v)
		}
		return "/console/dashboard?" + q.Encode() + "#" + prefix + "s-table"
	}
	t := groupTable{ID: prefix + "s-table", Label: strings.ToUpper(prefix[:1]) + prefix[1:]}
	sortBy := func(key, label string) heading {
		h := heading{Label: label, Href: link(map[string]string{prefix + "_sort": key, prefix + "_dir": "asc", prefix + "_page": "1"})}
		if key == by {
			h.Sort = map[bool]string{false: "ascending", true: "descending"}[desc]
			if !desc {
				h.Href = link(map[string]string{prefix + "_sort": key, prefix + "_dir": "desc", prefix + "_page": "1"})
			}
		}
		return h
	}
	t.Headings = append(t.Headings, sortBy("name", t.Label), sortBy("conversations", "Conversations"))
	for _, col := range cols {
		t.Headings = append(t.Headings, sortBy(col.Key, col.Label))
	}
	shown := rows
	if perPage > 0 && len(rows) > perPage {
		page, _ := strconv.Atoi(query.Get(prefix + "_page"))
		pages := (len(rows) + perPage - 1) / perPage
		page = min(max(page, 1), pages)
		from, to := (page-1)*perPage, min(page*perPage, len(rows))
		shown = rows[from:to]
		t.Page = fmt.Sprintf("%ss %d–%d of %d", prefix, from+1, to, len(rows))
		if page > 1 {
			t.Earlier = link(map[string]string{prefix + "_page": strconv.Itoa(page - 1)})
		}
		if page < pages {
			t.Later = link(map[string]string{prefix + "_page": strconv.Itoa(page + 1)})
		}
	}
	t.Rows = make([]groupRow, len(shown))
	for i, row := range shown {
		t.Rows[i] = row.laidOut(cols)
	}
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// groupChart is what a by-team chart draws: one series a scored model,
// the mean of each of the busiest teams.
type groupChart struct {
	Teams  []string      `json:"teams"`
	Series []groupSeries `json:"series"`
}

type groupSeries struct {
	Name  string     `json:"name"`
	Share bool       `json:"share"`
	Means []*float64 `json:"means"`
}

// byGroup are the dashboard's by-team and by-agent figures.
type byGroup struct {
	Teams, Agents []groupRow
	Chart         groupChart
}

// groupFigures reads the figures of every team and agent, and of the
// period of the same length before, for their trends; links lead to their
// conversations over the dashboard's range (in linkQuery).
func (c *Console) groupFigures(ctx context.Context, v *viewer, q results.PageQuery, tree *catalog.Tree, cols []column, linkQuery url.Values) (byGroup, error) {
	before := q
	before.Window = q.Before()
	var out byGroup
	// The four reads are apart (the QA scores of every conversation among
	// them read every evaluation of the window): they run side by side.
	var figures [2][2][]results.Group // [now, before][teams, agents]
	g, gctx := errgroup.WithContext(ctx)
	for i, w := range []results.PageQuery{q, before} {
		for j, by := range []results.GroupBy{results.ByTeam, results.ByAgent} {
			g.Go(func() (err error) {
				figures[i][j], err = c.groupsWithScores(gctx, v, w, by, cols)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return out, err
	}
	conversations := func(key, value string) string {
		lq := maps.Clone(linkQuery)
		lq.Set(key, value)
		return "/console/conversations?" + lq.Encode()
	}
	out.Chart = groupChart{Teams: []string{}, Series: []groupSeries{}}
	var charted []column
	for _, col := range cols {
		if !col.rate && !col.percent {
			charted = append(charted, col)
			out.Chart.Series = append(out.Chart.Series, groupSeries{Name: col.Label, Share: col.share, Means: []*float64{}})
		}
	}
	teamsBefore, agentsBefore := byKey(figures[1][0]), byKey(figures[1][1])
	for i, g := range figures[0][0] {
		row := groupRowOf("No team", g, teamsBefore[g.Key], cols)
		if n, ok := tree.Node(g.Key); ok {
			row.Name = n.Name
			if n.Code != nil {
				row.Link = conversations("team", *n.Code)
			}
		}
		out.Teams = append(out.Teams, row)
		if i >= maxTeams { // the groups come busiest first
			continue
		}
		out.Chart.Teams = append(out.Chart.Teams, row.Name)
		for j, col := range charted {
			var mean *float64
			if v, ok := col.value(g); ok {
				if col.share {
					v /= 100
				}
				mean = &v
			}
			out.Chart.Series[j].Means = append(out.Chart.Series[j].Means, mean)
		}
	}
	for _, g := range figures[0][1] {
		row := groupRowOf(g.Key, g, agentsBefore[g.Key], cols)
		if g.Key == "" {
			row.Name = "No agent"
		} else {
			row.Link = conversations("agent", g.Key)
		}
		out.Agents = append(out.Agents, row)
	}
	return out, nil
}

// groupsWithScores are every group's figures over q's window, with each
// group's QA scores of the columns among its scores (qaSources).
func (c *Console) groupsWithScores(ctx context.Context, v *viewer, q results.PageQuery, by results.GroupBy, cols []column) ([]results.Group, error) {
	var ids []string
	for _, col := range cols {
		if _, qa := qaSources[col.classifierID]; !qa && !slices.Contains(ids, col.classifierID) {
			ids = append(ids, col.classifierID)
		}
	}
	groups, err := c.Figures.Groups(ctx, q, by, ids, everyGroup)
	if err != nil {
		return nil, err
	}
	at := byKey(groups)
	for _, col := range cols {
		source, qa := qaSources[col.classifierID]
		if !qa {
			continue
		}
		scores, err := c.Quality.Scores(ctx, v.actor, catalog.ScoreQuery{ArrivedFrom: q.From, ArrivedTo: q.To, NodeIDs: q.NodeIDs,
			ByAgent: by == results.ByAgent, Source: source})
		if err != nil {
			return nil, err
		}
		for _, s := range scores {
			if g, ok := at[s.Key]; ok {
				mean := s.Mean
				g.Scores[col.classifierID] = results.Score{Evaluated: s.Evaluations, Mean: &mean}
			}
		}
	}
	return groups, nil
}

// byKey finds groups by their key.
func byKey(groups []results.Group) map[string]results.Group {
	out := make(map[string]results.Group, len(groups))
	for _, g := range groups {
		out[g.Key] = g
	}
	return out
}
