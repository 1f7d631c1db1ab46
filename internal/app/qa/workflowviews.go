package qa

import (
	"context"
	"encoding/json"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Users reads the organization's users, whose names people read in place
// of ids (catalog.PeopleStore).
type Users interface {
	Users(ctx context.Context, orgID string, active *bool) ([]catalog.User, error)
}

// WorkflowView is a workflow as people read it: users by name, the boss
// module as answered.
type WorkflowView struct {
	catalog.Workflow
	Template   catalog.WorkflowTemplate
	Definition *quality.Workflow
	// Conversation is the id the conversation shows (its client's, if it
	// chose one).
	Conversation     string
	EvaluationNumber int // 0 when no evaluation started it
	Levels           []LevelView
	// BossModule is the template's, each question with the answers given
	// (none while unanswered).
	BossModule quality.BossModule
}

// LevelView is a level: its assignees and, once completed, who completed
// it, how and with what notes.
type LevelView struct {
	Level                     int
	Assignees                 []string // user names
	Done                      bool
	Completer, Outcome, Notes string
}

// Names are users' names by id.
type Names map[string]string

// Of are the names of users' ids, an id left as it is when its user is
// gone.
func (n Names) Of(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if name, ok := n[id]; ok {
			out[i] = name
		}
	}
	return out
}

// UserNames are the names of the organization's users.
func (s Service) UserNames(ctx context.Context, orgID string) (Names, error) {
	users, err := s.Users.Users(ctx, orgID, nil)
	names := Names{}
	for _, u := range users {
		names[u.ID] = u.UserName
	}
	return names, err
}

// WorkflowView is a workflow the actor may read, as people read it.
func (s Service) WorkflowView(ctx context.Context, actor access.Actor, id string) (WorkflowView, error) {
	w, err := s.Workflow(ctx, actor, id)
	if err != nil {
		return WorkflowView{}, err
	}
	views, err := s.WorkflowViews(ctx, actor.OrgID, []catalog.Workflow{w})
	if err != nil {
		return WorkflowView{}, err
	}
	return views[0], nil
}

// WorkflowViews lays out workflows of the organization, reading what they
// refer to (templates, users, evaluations, conversations' ids) once.
func (s Service) WorkflowViews(ctx context.Context, orgID string, list []catalog.Workflow) ([]WorkflowView, error) {
	names, err := s.UserNames(ctx, orgID)
	if err != nil {
		return nil, err
	}
	templates := map[string]catalog.WorkflowTemplate{}
	definitions := map[string]*quality.Workflow{}
	var conversations, evaluationIDs []string
	for _, w := range list {
		if _, ok := templates[w.TemplateID]; !ok {
			t, err := s.Workflows.Template(ctx, orgID, w.TemplateID)
			if err != nil {
				return nil, err
			}
			var def quality.Workflow
			if err := json.Unmarshal(t.Definition, &def); err != nil {
				return nil, err
			}
			templates[t.ID], definitions[t.ID] = t, &def
		}
		conversations = append(conversations, w.ConversationID)
		if w.EvaluationID != nil {
			evaluationIDs = append(evaluationIDs, *w.EvaluationID)
		}
	}
	numbers := map[string]int{}
	if len(evaluationIDs) > 0 {
		found, err := s.Evaluations.Evaluations(ctx, orgID, catalog.EvaluationFilter{IDs: evaluationIDs, Limit: len(evaluationIDs)})
		if err != nil {
			return nil, err
		}
		for _, e := range found {
			numbers[e.ID] = e.Number
		}
	}
	public, err := s.Conversations.PublicIDs(ctx, orgID, conversations)
	if err != nil {
		return nil, err
	}
	out := make([]WorkflowView, len(list))
	for i, w := range list {
		v := WorkflowView{Workflow: w, Template: templates[w.TemplateID], Definition: definitions[w.TemplateID], Conversation: w.ConversationID}
		if id, ok := public[w.ConversationID]; ok {
			v.Conversation = id
		}
		if w.EvaluationID != nil {
			v.EvaluationNumber = numbers[*w.EvaluationID]
		}
		if out[i], err = v.laidOut(names); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// laidOut fills the levels and the boss module from the progress.
func (v WorkflowView) laidOut(names Names) (WorkflowView, error) {
	var progress quality.Progress
	if err := json.Unmarshal(v.Progress, &progress); err != nil {
		return v, err
	}
	for i, level := range v.Definition.Levels {
		lv := LevelView{Level: i, Assignees: names.Of(level.Assignees)}
		if i < len(progress.Levels) {
			done := progress.Levels[i]
			lv.Done, lv.Completer, lv.Outcome, lv.Notes = true, names.Of([]string{done.Completer})[0], done.Outcome, done.Notes
		}
		v.Levels = append(v.Levels, lv)
	}
	v.BossModule = v.Definition.BossModule
	v.BossModule.Questions = make([]quality.BossQuestion, len(v.Definition.BossModule.Questions))
	for i, q := range v.Definition.BossModule.Questions {
		v.BossModule.Questions[i] = quality.BossQuestion{QuestionText: q.QuestionText, Answers: []string{}}
		for _, a := range progress.BossAnswers {
			if a.QuestionText == q.QuestionText {
				v.BossModule.Questions[i].Answers = a.Answers
			}
		}
	}
	return v, nil
}
