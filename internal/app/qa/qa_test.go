package qa

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// store is one organization's conversation, evaluation and workflow in
// memory, as the catalog would answer for them.
type store struct {
	conv     catalog.Interaction
	eval     catalog.Evaluation
	form     quality.Form
	flow     catalog.Workflow
	template quality.Workflow
	saved    int // changes written
}

func (s *store) Interaction(_ context.Context, org, id string) (catalog.Interaction, error) {
	if org != s.conv.OrgID || id != s.conv.ID {
		return catalog.Interaction{}, catalog.ErrNotFound
	}
	return s.conv, nil
}

func (s *store) PublicIDs(context.Context, string, []string) (map[string]string, error) {
	return map[string]string{}, nil
}

func (s *store) Evaluations(_ context.Context, org string, f catalog.EvaluationFilter) ([]catalog.Evaluation, error) {
	if org != s.eval.OrgID || !f.Scope.Allows(s.conv.MediaType, s.conv.HierarchyNodeID) {
		return nil, nil
	}
	return []catalog.Evaluation{s.eval}, nil
}

func (s *store) Form(context.Context, string, string) (catalog.EvaluationForm, error) {
	def, err := json.Marshal(s.form)
	return catalog.EvaluationForm{Definition: def}, err
}

func (s *store) SaveEvaluation(_ context.Context, _, _ string, ch catalog.EvaluationChange) (catalog.Evaluation, error) {
	if ch.Submitted && s.eval.Status == catalog.EvaluationCompleted {
		return s.eval, catalog.ErrEvaluationClosed
	}
	s.saved++
	s.eval.Status = ch.Status
	return s.eval, nil
}

func (s *store) CreateEvaluation(_ context.Context, e catalog.Evaluation) (catalog.Evaluation, error) {
	s.saved++
	return e, nil
}

func (s *store) Forms(context.Context, string) ([]catalog.EvaluationForm, error) { return nil, nil }

func (s *store) CreateForm(_ context.Context, f catalog.EvaluationForm) (catalog.EvaluationForm, error) {
	s.saved++
	return f, nil
}

func (s *store) SetFormActive(context.Context, string, string, bool) error { return nil }

func (s *store) ScoresBy(context.Context, string, catalog.ScoreQuery) ([]catalog.ScoreGroup, error) {
	return nil, nil
}

func (s *store) ReviewAutoAnswers(context.Context, string, string, []catalog.EvaluationAnswer, *float64) (catalog.Evaluation, error) {
	s.saved++
	return s.eval, nil
}

func (s *store) AnswerPairs(context.Context, string, string) ([]catalog.AnswerPair, error) {
	return nil, nil
}

func (s *store) Workflows(_ context.Context, org string, f catalog.WorkflowFilter) ([]catalog.Workflow, error) {
	if org != s.flow.OrgID || !f.Scope.Allows(s.conv.MediaType, s.conv.HierarchyNodeID) {
		return nil, nil
	}
	return []catalog.Workflow{s.flow}, nil
}

func (s *store) Workflow(context.Context, string, string) (catalog.Workflow, error) {
	return s.flow, nil
}

func (s *store) Template(context.Context, string, string) (catalog.WorkflowTemplate, error) {
	def, err := json.Marshal(s.template)
	return catalog.WorkflowTemplate{Definition: def}, err
}

func (s *store) CreateTemplate(_ context.Context, t catalog.WorkflowTemplate) (catalog.WorkflowTemplate, error) {
	s.saved++
	return t, nil
}

func (s *store) Templates(context.Context, string) ([]catalog.WorkflowTemplate, error) {
	return nil, nil
}

func (s *store) StartWorkflow(_ context.Context, w catalog.Workflow) (catalog.Workflow, error) {
	s.saved++
	return w, nil
}

func (s *store) SaveProgress(_ context.Context, _ catalog.Workflow, _ int, progress json.RawMessage, _ bool) error {
	s.saved++
	s.flow.Progress = progress
	return nil
}

// directory gives the users of the tests their standard roles, and Edit
// on the team (Chat) to everyone.
type directory struct{}

func (directory) Roles(context.Context, string, *bool) ([]catalog.Role, error) {
	return catalog.StandardRoles(), nil
}

func (directory) Hierarchy(context.Context, string) (*catalog.Tree, error) {
	return catalog.NewTree([]catalog.Node{{ID: "team", Name: "Team"}}), nil
}

func (directory) Grants(context.Context, string, string) ([]catalog.Grant, error) {
	return []catalog.Grant{{NodeID: "team", AccessLevel: "Edit", Permissions: []string{"Chat"}}}, nil
}

func user(t *testing.T, id, role string) access.Actor {
	t.Helper()
	a, err := access.OfUser(context.Background(), directory{}, "org", catalog.User{ID: id, RoleName: role})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func newStore() *store {
	team := "team"
	return &store{
		conv: catalog.Interaction{ID: "c1", OrgID: "org", MediaType: catalog.MediaChat, HierarchyNodeID: &team},
		eval: catalog.Evaluation{ID: "01a218cd-e8c3-780b-b1a4-b22bfebfb250", OrgID: "org", ConversationID: "c1", AnalystID: "ann",
			Status: catalog.EvaluationNotStarted},
		form: quality.Form{Modules: []quality.Module{{ID: "m", Name: "M", Questions: []quality.Question{{ID: "q", Text: "Q?", Weight: 1,
			Tags: []quality.Tag{{ID: "yes", Value: "Yes", ScoredValue: ptr(1.0)}}}}}}},
		flow:     catalog.Workflow{ID: "01a218cd-e8c3-780b-b1a4-b22bfebfb251", OrgID: "org", ConversationID: "c1", Progress: json.RawMessage(`{}`)},
		template: quality.Workflow{Levels: []quality.Level{{Assignees: []string{"ann"}}, {}}},
	}
}

func ptr[T any](v T) *T { return &v }

func TestEvaluationRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		actor   access.Actor
		submit  bool
		refused bool // *access.Refused
		missing bool // catalog.ErrNotFound
		closed  bool // ErrClosed
	}{
		{name: "the assigned analyst answers", actor: user(t, "ann", "Analyst")},
		{name: "the assigned analyst submits", actor: user(t, "ann", "Analyst"), submit: true},
		{name: "another analyst may not", actor: user(t, "bob", "Analyst"), refused: true},
		{name: "a supervisor manages evaluations", actor: user(t, "sue", "Supervisor"), submit: true},
		{name: "an agent's role lacks evaluations.perform", actor: user(t, "ann", "Agent"), refused: true},
		{name: "the organization itself", actor: access.Organization("org"), submit: true},
		{name: "another organization sees nothing", actor: access.Organization("other"), missing: true},
	} {
		s := newStore()
		svc := Service{Conversations: s, Evaluations: s, Workflows: s}
		var err error
		if tc.submit {
			_, err = svc.Submit(ctx, tc.actor, s.eval.ID, false)
		} else {
			_, err = svc.Answer(ctx, tc.actor, s.eval.ID, Answers{Answers: []quality.Answer{{QuestionID: "q", TagIDs: []string{"Yes"}}}})
		}
		var refused *access.Refused
		switch {
		case tc.refused && !errors.As(err, &refused), tc.missing && !errors.Is(err, catalog.ErrNotFound):
			t.Errorf("%s: %v", tc.name, err)
		case !tc.refused && !tc.missing && err != nil:
			t.Errorf("%s: %v, want it done", tc.name, err)
		case (tc.refused || tc.missing) && s.saved != 0:
			t.Errorf("%s: refused, yet %d changes were written", tc.name, s.saved)
		case !tc.refused && !tc.missing && s.saved != 1:
			t.Errorf("%s: %d changes written, want 1", tc.name, s.saved)
		}
	}
	// A submitted evaluation is closed.
	s := newStore()
	s.eval.Status = catalog.EvaluationCompleted
	if _, err := (Service{Conversations: s, Evaluations: s}).Submit(ctx, user(t, "ann", "Analyst"), s.eval.ID, false); !errors.Is(err, ErrClosed) {
		t.Errorf("submitting a completed evaluation: %v", err)
	}
}

// Submitting answers at once is all or nothing: a required question left
// open refuses the submit and saves none of the answers (the evaluation
// stays NotStarted); answered, they are saved and submitted together.
func TestSubmitAnswersIsWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore()
	s.form.Modules[0].Questions[0].Required = true
	s.form.Modules[0].Questions = append(s.form.Modules[0].Questions, quality.Question{ID: "note", Text: "Note", Type: quality.TypeFillIn})
	svc := Service{Conversations: s, Evaluations: s}
	note := "A note."
	_, err := svc.SubmitAnswers(ctx, user(t, "ann", "Analyst"), s.eval.ID, Answers{Answers: []quality.Answer{{QuestionID: "note", FillIn: &note}}})
	if !isField(err) || !strings.Contains(err.Error(), "Q?") || s.saved != 0 || s.eval.Status != catalog.EvaluationNotStarted {
		t.Fatalf("a submit with the required question open: %v, %d saved, %s", err, s.saved, s.eval.Status)
	}
	if _, err := svc.SubmitAnswers(ctx, user(t, "ann", "Analyst"), s.eval.ID, Answers{Answers: []quality.Answer{{QuestionID: "q", TagIDs: []string{"yes"}}}}); err != nil ||
		s.saved != 1 || s.eval.Status != catalog.EvaluationCompleted {
		t.Fatalf("a complete submit: %v, %d saved, %s", err, s.saved, s.eval.Status)
	}
}

func TestAdvanceRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		actor     access.Actor
		completer string
		want      string // "" done, "refused", "field"
	}{
		{name: "the level's assignee completes it", actor: user(t, "ann", "Analyst"), completer: "ann"},
		{name: "a user completes as itself only", actor: user(t, "ann", "Analyst"), completer: "bob", want: "field"},
		{name: "another analyst may not", actor: user(t, "bob", "Analyst"), completer: "bob", want: "refused"},
		{name: "the organization names the assignee", actor: access.Organization("org"), completer: "ann"},
		{name: "the organization names someone else", actor: access.Organization("org"), completer: "bob", want: "field"},
	} {
		s := newStore()
		_, err := Service{Conversations: s, Evaluations: s, Workflows: s}.Advance(ctx, tc.actor, s.flow.ID, tc.completer, "", "", nil)
		var refused *access.Refused
		switch {
		case tc.want == "" && err != nil, tc.want == "refused" && !errors.As(err, &refused), tc.want == "field" && !isField(err):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want != "" && s.saved != 0:
			t.Errorf("%s: refused, yet the progress was written", tc.name)
		case tc.want == "" && s.saved != 1:
			t.Errorf("%s: the progress was not written", tc.name)
		}
	}
}

func isField(err error) bool {
	_, ok := invalid.As(err)
	return ok
}

// An assignment is refused whole, naming the reference that names
// nothing: a form id that is no id, a conversation out of the actor's
// reach; a role that does not manage evaluations is refused.
func TestAssignRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		actor access.Actor
		in    NewAssignment
		field string // "" for an *access.Refused
	}{
		{"a form id that is no id", user(t, "sue", "Supervisor"), NewAssignment{FormID: "x'; --", ConversationID: "c1", Analyst: "ann"}, "formId"},
		{"an analyst's role", user(t, "ann", "Analyst"), NewAssignment{FormID: "01a218cd-e8c3-780b-b1a4-b22bfebfb250", ConversationID: "c1", Analyst: "ann"}, ""},
		{"another organization's conversation", access.Organization("other"), NewAssignment{FormID: "01a218cd-e8c3-780b-b1a4-b22bfebfb250", ConversationID: "c1", Analyst: "ann"}, "conversationId"},
	} {
		s := newStore()
		_, err := Service{Conversations: s, Evaluations: s}.Assign(ctx, tc.actor, tc.in)
		var refused *access.Refused
		f, isField := invalid.As(err)
		switch {
		case tc.field == "" && !errors.As(err, &refused), tc.field != "" && (!isField || f.Path != tc.field):
			t.Errorf("%s: %v", tc.name, err)
		case s.saved != 0:
			t.Errorf("%s: refused, yet %d changes written", tc.name, s.saved)
		}
	}
}

// A review of an Auto evaluation takes evaluations.perform on the
// conversation (no assignment: an Auto evaluation has no analyst),
// answers only what the classifiers answered, and a person's evaluation
// is not reviewed but answered.
func TestReviewRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	auto := func(s *store) {
		s.eval.Source, s.eval.AnalystID, s.eval.Status = catalog.SourceAuto, "", catalog.EvaluationAutoScored
		s.form.AutoScore = true
		s.form.Modules[0].Questions[0].Binding = quality.Binding{ClassifierID: "c", WhenTrue: "Yes", WhenFalse: "Yes"}
		s.eval.AutoAnswers = string(quality.ResultTrue)
	}
	for _, tc := range []struct {
		name    string
		actor   access.Actor
		edit    func(*store)
		answer  quality.Answer
		refused bool // *access.Refused
		invalid bool // *invalid.Field
		notAuto bool // ErrNotAuto
	}{
		{name: "an analyst confirms", actor: user(t, "bob", "Analyst"), edit: auto, answer: quality.Answer{QuestionID: "q", TagIDs: []string{"Yes"}}},
		{name: "the organization itself", actor: access.Organization("org"), edit: auto, answer: quality.Answer{QuestionID: "q", TagIDs: []string{"Yes"}}},
		{name: "an agent's role lacks evaluations.perform", actor: user(t, "ann", "Agent"), edit: auto, answer: quality.Answer{QuestionID: "q", TagIDs: []string{"Yes"}}, refused: true},
		{name: "no answer chosen", actor: user(t, "bob", "Analyst"), edit: auto, answer: quality.Answer{QuestionID: "q"}, invalid: true},
		{name: "a question the classifiers did not answer", actor: user(t, "bob", "Analyst"),
			edit: func(s *store) { auto(s); s.eval.AutoAnswers = string(quality.NoResult) }, answer: quality.Answer{QuestionID: "q", TagIDs: []string{"Yes"}}, invalid: true},
		{name: "a person's evaluation", actor: user(t, "ann", "Analyst"), edit: func(*store) {}, answer: quality.Answer{QuestionID: "q", TagIDs: []string{"Yes"}}, notAuto: true},
	} {
		s := newStore()
		tc.edit(s)
		_, err := Service{Conversations: s, Evaluations: s}.Review(ctx, tc.actor, s.eval.ID, []quality.Answer{tc.answer})
		var refused *access.Refused
		var field *invalid.Field
		switch {
		case tc.refused && !errors.As(err, &refused), tc.invalid && !errors.As(err, &field), tc.notAuto && !errors.Is(err, ErrNotAuto):
			t.Errorf("%s: %v", tc.name, err)
		case !tc.refused && !tc.invalid && !tc.notAuto && (err != nil || s.saved != 1):
			t.Errorf("%s: %v, %d changes written; want it done", tc.name, err, s.saved)
		case (tc.refused || tc.invalid || tc.notAuto) && s.saved != 0:
			t.Errorf("%s: refused, yet %d changes were written", tc.name, s.saved)
		}
	}
}
