package quality

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/internal/invalid"
)

// Workflow is a review workflow's template: its levels, each completed by
// one of its assignees in turn, and the boss module the last level
// answers.
type Workflow struct {
	Levels     []Level    `json:"levels"`
	BossModule BossModule `json:"bossModule"`
}

// Level is one step of a workflow. Assignees are user ids; none means any
// user of the organization may complete it.
type Level struct {
	Assignees []string `json:"assignees"`
}

// BossModule is the questions the last level answers, each with the
// answers it allows.
type BossModule struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Questions []BossQuestion `json:"questions"`
}

// BossQuestion is a question of the boss module: its allowed answers in a
// template, the chosen ones in a workflow.
type BossQuestion struct {
	QuestionText string   `json:"questionText"`
	Answers      []string `json:"answers"`
}

// Progress is how far a workflow went: a record per completed level, and
// the boss module's answers once the last level is done.
type Progress struct {
	Levels      []LevelRecord  `json:"levels"`
	BossAnswers []BossQuestion `json:"bossAnswers"`
	Closed      bool           `json:"closed"`
}

// LevelRecord is a completed level.
type LevelRecord struct {
	Completer   string    `json:"completer"` // a user id
	Outcome     string    `json:"outcome"`
	Notes       string    `json:"notes"`
	CompletedOn time.Time `json:"completedOn"`
}

// CloseOutcome is the outcome that ends a workflow before its last level.
const CloseOutcome = "Close Workflow"

// Check checks a new template and gives its boss module an id.
func (w *Workflow) Check(newID func() string) error {
	if len(w.Levels) == 0 {
		return fail("levels", "must list at least one level.")
	}
	for i := range w.Levels {
		if w.Levels[i].Assignees == nil {
			w.Levels[i].Assignees = []string{}
		}
	}
	w.BossModule.ID = newID()
	if w.BossModule.Questions == nil {
		w.BossModule.Questions = []BossQuestion{}
	}
	for i, q := range w.BossModule.Questions {
		at := fmt.Sprintf("bossModule.questions[%d]", i)
		if strings.TrimSpace(q.QuestionText) == "" {
			return fail(at+".questionText", "is required.")
		}
		if len(q.Answers) == 0 {
			return fail(at+".answers", "must list the answers the question allows.")
		}
	}
	return nil
}

// Advance completes the current level of a workflow: by one of its
// assignees, with an outcome (Close Workflow ends it early) and notes; the
// last level also answers the boss module, each question with answers it
// allows. The workflow is closed after its last level.
func (w *Workflow) Advance(p *Progress, completer, outcome, notes string, boss []BossQuestion, at time.Time) error {
	if p.Closed {
		return ErrClosed
	}
	level := w.Levels[len(p.Levels)]
	if len(level.Assignees) > 0 && !slices.Contains(level.Assignees, completer) {
		return fail("completer", "is not an assignee of level %d.", len(p.Levels))
	}
	last := len(p.Levels) == len(w.Levels)-1
	closing := strings.EqualFold(outcome, CloseOutcome)
	if last && !closing {
		answers, err := w.bossAnswers(boss)
		if err != nil {
			return err
		}
		p.BossAnswers = answers
	} else if len(boss) > 0 {
		return fail("bossAnswers", "are given at the last level only.")
	}
	if outcome == "" {
		outcome = "Continue Workflow"
		if last {
			outcome = "Completed"
		}
	}
	p.Levels = append(p.Levels, LevelRecord{Completer: completer, Outcome: outcome, Notes: notes, CompletedOn: at})
	p.Closed = last || closing
	return nil
}

// bossAnswers checks the boss module's answers: each question of the
// module answered once, with answers it allows.
func (w *Workflow) bossAnswers(given []BossQuestion) ([]BossQuestion, error) {
	out := []BossQuestion{}
	for _, q := range w.BossModule.Questions {
		var found *BossQuestion
		for i := range given {
			if strings.EqualFold(given[i].QuestionText, q.QuestionText) {
				found = &given[i]
			}
		}
		if found == nil || len(found.Answers) == 0 {
			return nil, fail("bossAnswers", "must answer %q.", q.QuestionText)
		}
		chosen := []string{}
		for _, a := range found.Answers {
			i := slices.IndexFunc(q.Answers, func(allowed string) bool { return strings.EqualFold(allowed, a) })
			if i < 0 {
				return nil, fail("bossAnswers", "%q is not an answer of %q; it allows %s.", a, q.QuestionText, strings.Join(q.Answers, ", "))
			}
			chosen = append(chosen, q.Answers[i])
		}
		out = append(out, BossQuestion{QuestionText: q.QuestionText, Answers: chosen})
	}
	if len(given) > len(out) {
		return nil, fail("bossAnswers", "answer a question the boss module does not ask.")
	}
	return out, nil
}

// ErrClosed: the workflow is closed.
var ErrClosed = invalid.At("workflow", "is closed.")
