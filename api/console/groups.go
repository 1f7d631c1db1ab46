package console

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// Group limits: the teams and agents with the most conversations.
const (
	maxTeams  = 30
	maxAgents = 20
)

// scored is a Core AI Model classifier whose results carry a score the
// dashboard averages by team and agent: sentiment (the mean VADER
// compound of the speaker's turns) or a talk measure.
type scored struct {
	ID, Name string
	Measure  string // what its score is, for headings
	Share    bool   // a share, shown as a percentage
	Boolean  bool   // yes/no results, whose rate is shown too
}

// scoredOf picks the sentiment and talk models among classifiers.
func scoredOf(all []catalog.Classifier) []scored {
	var out []scored
	for _, k := range all {
		if k.Type != "Core AI Model" {
			continue
		}
		var def struct{ Model, Measure, Speaker, Label string }
		if json.Unmarshal(k.Definition, &def) != nil {
			continue
		}
		s := scored{ID: k.ID, Name: k.Name, Boolean: def.Label != "" || def.Model == "talk"}
		speaker := def.Speaker
		if speaker == "" {
			speaker = "Any"
		}
		switch def.Model {
		case "sentiment":
			s.Measure = "mean sentiment of " + speaker + " (−1 to 1)"
		case "talk":
			s.Measure = "mean " + def.Measure
			s.Share = def.Measure == "talkShare" || def.Measure == "silenceShare"
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// groupTable is a by-group table.
type groupTable struct {
	ID, Label string
	Headings  []string
	Rows      []groupRow
}

// groupRow is one team's or agent's row of a by-group table.
type groupRow struct {
	Name, Link    string
	Conversations int64
	Cells         []string
}

// groupChart is what a by-team chart draws: one series a scored
// classifier, the mean of each team.
type groupChart struct {
	Teams  []string      `json:"teams"`
	Series []groupSeries `json:"series"`
}

type groupSeries struct {
	Name  string     `json:"name"`
	Share bool       `json:"share"`
	Means []*float64 `json:"means"`
}

// groupFigures reads the figures by team and by agent.
func (c *Console) groupFigures(ctx context.Context, q results.PageQuery, tree *catalog.Tree, list []scored) (teams, agents []groupRow, chart groupChart, err error) {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	byTeam, err := c.Figures.Groups(ctx, q, results.ByTeam, ids, maxTeams)
	if err != nil {
		return nil, nil, chart, err
	}
	byAgent, err := c.Figures.Groups(ctx, q, results.ByAgent, ids, maxAgents)
	if err != nil {
		return nil, nil, chart, err
	}
	chart = groupChart{Teams: []string{}, Series: make([]groupSeries, len(list))}
	for i, s := range list {
		chart.Series[i] = groupSeries{Name: s.Name, Share: s.Share, Means: []*float64{}}
	}
	for _, g := range byTeam {
		row := groupRow{Name: "No team", Conversations: g.Conversations, Cells: cells(g, list)}
		if n, ok := tree.Node(g.Key); ok {
			row.Name = n.Name
			if n.Code != nil {
				row.Link = "/console/conversations?team=" + *n.Code
			}
		}
		teams = append(teams, row)
		chart.Teams = append(chart.Teams, row.Name)
		for i, s := range list {
			chart.Series[i].Means = append(chart.Series[i].Means, g.Scores[s.ID].Mean)
		}
	}
	for _, g := range byAgent {
		row := groupRow{Name: g.Key, Conversations: g.Conversations, Cells: cells(g, list)}
		if g.Key == "" {
			row.Name = "No agent"
		} else {
			row.Link = "/console/conversations?agent=" + g.Key
		}
		agents = append(agents, row)
	}
	return teams, agents, chart, nil
}

// headings are the by-group tables' figure columns.
func headings(list []scored) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name+": "+s.Measure)
		if s.Boolean {
			out = append(out, s.Name+": rate")
		}
	}
	return out
}

// cells are a group's figures, in the order of headings.
func cells(g results.Group, list []scored) []string {
	var out []string
	for _, s := range list {
		sc := g.Scores[s.ID]
		mean := "—"
		switch {
		case sc.Mean != nil && s.Share:
			mean = fmt.Sprintf("%.1f %%", 100**sc.Mean)
		case sc.Mean != nil:
			mean = fmt.Sprintf("%.2f", *sc.Mean)
		}
		out = append(out, mean)
		if s.Boolean {
			rate := "—"
			if sc.Evaluated > 0 {
				rate = fmt.Sprintf("%.1f %%", 100*float64(sc.Hits)/float64(sc.Evaluated))
			}
			out = append(out, rate)
		}
	}
	return out
}
