package console

import (
	"fmt"
	"strings"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
)

// parseLevels reads a workflow's levels, one a line: the user names who
// may complete it, separated by commas, or "anyone". Blank lines are
// skipped.
func parseLevels(text string) ([]quality.Level, error) {
	var out []quality.Level
	for n, line := range lines(text) {
		if line == "" {
			continue
		}
		level := quality.Level{Assignees: []string{}}
		if !strings.EqualFold(line, "anyone") {
			for _, name := range strings.Split(line, ",") {
				if name = strings.TrimSpace(name); name == "" {
					return nil, invalid.At(fmt.Sprintf("levels, line %d", n+1), "has an empty user name.")
				}
				level.Assignees = append(level.Assignees, name)
			}
		}
		out = append(out, level)
	}
	return out, nil
}

// parseBossQuestions reads the boss module's questions, one a line: its
// text, then after "|" its answers separated by commas. Blank lines are
// skipped.
func parseBossQuestions(text string) ([]quality.BossQuestion, error) {
	var out []quality.BossQuestion
	for n, line := range lines(text) {
		if line == "" {
			continue
		}
		question, answers, ok := strings.Cut(line, "|")
		if !ok {
			return nil, invalid.At(fmt.Sprintf("questions, line %d", n+1), "has no answers: write them after “|”, such as “Action plan established? | No, Yes”.")
		}
		q := quality.BossQuestion{QuestionText: strings.TrimSpace(question)}
		for _, a := range strings.Split(answers, ",") {
			if a = strings.TrimSpace(a); a != "" {
				q.Answers = append(q.Answers, a)
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// lines are a text's lines, trimmed.
func lines(text string) []string {
	out := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}
