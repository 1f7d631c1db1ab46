package qa

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// OpenStatuses are the statuses an evaluation's answers may change in.
var OpenStatuses = []string{catalog.EvaluationNotStarted, catalog.EvaluationInProgress}

// Evaluation is an evaluation of the actor's organization whose
// conversation the actor may read, with its form; catalog.ErrNotFound
// when there is none.
func (s Service) Evaluation(ctx context.Context, actor access.Actor, id string) (catalog.Evaluation, *quality.Form, error) {
	if err := validID(id); err != nil {
		return catalog.Evaluation{}, nil, err
	}
	list, err := s.Evaluations.Evaluations(ctx, actor.OrgID, catalog.EvaluationFilter{IDs: []string{id}, Scope: actor.Scope(), Limit: 1})
	if err != nil {
		return catalog.Evaluation{}, nil, err
	}
	if len(list) == 0 {
		return catalog.Evaluation{}, nil, catalog.ErrNotFound
	}
	form, err := s.Form(ctx, actor.OrgID, list[0].FormID)
	if err != nil {
		return catalog.Evaluation{}, nil, err
	}
	return Completed(form, list[0]), form, nil
}

// Assignment is an evaluation with what a reviewer knows it by: its
// form's name and its conversation.
type Assignment struct {
	Evaluation   catalog.Evaluation
	FormName     string
	Conversation catalog.Interaction
}

// Assigned are the open evaluations assigned to the acting user, of
// conversations it may read (at most limit).
func (s Service) Assigned(ctx context.Context, actor access.Actor, limit int) ([]Assignment, error) {
	list, err := s.Evaluations.Evaluations(ctx, actor.OrgID, catalog.EvaluationFilter{AnalystID: actor.UserID, Statuses: OpenStatuses,
		Scope: actor.Scope(), Limit: limit})
	if err != nil {
		return nil, err
	}
	forms := map[string]string{} // form id → name
	out := make([]Assignment, 0, len(list))
	for _, e := range list {
		a, err := s.described(ctx, actor.OrgID, e, forms)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Described is an evaluation the actor may read (as Evaluation) with its
// form's name and its conversation.
func (s Service) Described(ctx context.Context, actor access.Actor, id string) (Assignment, *quality.Form, error) {
	e, form, err := s.Evaluation(ctx, actor, id)
	if err != nil {
		return Assignment{}, nil, err
	}
	a, err := s.described(ctx, actor.OrgID, e, map[string]string{})
	return a, form, err
}

// described reads an evaluation's form name (from names, which it fills)
// and conversation.
func (s Service) described(ctx context.Context, orgID string, e catalog.Evaluation, names map[string]string) (Assignment, error) {
	name, ok := names[e.FormID]
	if !ok {
		f, err := s.Evaluations.Form(ctx, orgID, e.FormID)
		if err != nil {
			return Assignment{}, err
		}
		name, names[e.FormID] = f.Name, f.Name
	}
	it, err := s.Conversations.Interaction(ctx, orgID, e.ConversationID)
	return Assignment{Evaluation: e, FormName: name, Conversation: it}, err
}

// Scores are the mean scores of the submitted evaluations the actor may
// read, by agent code or hierarchy node, of the conversations of q.
func (s Service) Scores(ctx context.Context, actor access.Actor, q catalog.ScoreQuery) ([]catalog.ScoreGroup, error) {
	if err := actor.Require(access.ReadResults); err != nil {
		return nil, err
	}
	q.Scope, q.NodeIDs = actor.Scope(), actor.Scope().Narrow(q.NodeIDs)
	return s.Evaluations.ScoresBy(ctx, actor.OrgID, q)
}

// Answers are what answering an evaluation saves: all its answers
// (replacing the earlier ones; nil keeps them), its call summary and its
// customer type (nil keeps them).
type Answers struct {
	Answers      []quality.Answer
	Summary      *string
	CustomerType *string
}

// Answer saves an evaluation's answers, with the scores they give; the
// evaluation is then InProgress. A mistake is an *invalid.Field naming
// it; a submitted evaluation is ErrClosed.
func (s Service) Answer(ctx context.Context, actor access.Actor, id string, in Answers) (catalog.Evaluation, error) {
	return s.change(ctx, actor, id, func(form *quality.Form, _ catalog.Evaluation) (catalog.EvaluationChange, error) {
		return answerChange(form, in)
	})
}

// Submit submits an evaluation: Completed once every required question is
// answered (else an *invalid.Field naming the open ones), or NoValue
// (the conversation could not be evaluated).
func (s Service) Submit(ctx context.Context, actor access.Actor, id string, noValue bool) (catalog.Evaluation, error) {
	return s.change(ctx, actor, id, func(form *quality.Form, e catalog.Evaluation) (catalog.EvaluationChange, error) {
		return submitChange(form, e, noValue)
	})
}

// SubmitAnswers saves an evaluation's answers and submits it at once:
// Completed when they answer every required question, else an
// *invalid.Field naming the open ones and nothing is saved.
func (s Service) SubmitAnswers(ctx context.Context, actor access.Actor, id string, in Answers) (catalog.Evaluation, error) {
	return s.change(ctx, actor, id, func(form *quality.Form, e catalog.Evaluation) (catalog.EvaluationChange, error) {
		change, err := answerChange(form, in)
		if err != nil {
			return change, err
		}
		if change.Answers != nil {
			e.Answers = change.Answers
		}
		submitted, err := submitChange(form, e, false)
		if err != nil {
			return submitted, err
		}
		change.Status, change.Submitted = submitted.Status, true
		return change, nil
	})
}

// change saves the change an evaluation's form gives, if the actor may
// answer the evaluation.
func (s Service) change(ctx context.Context, actor access.Actor, id string, changeOf func(*quality.Form, catalog.Evaluation) (catalog.EvaluationChange, error)) (catalog.Evaluation, error) {
	if err := actor.Require(access.PerformEvaluations); err != nil {
		return catalog.Evaluation{}, err
	}
	e, form, err := s.Evaluation(ctx, actor, id)
	if err != nil {
		return e, err
	}
	if e.Source == catalog.SourceAuto {
		return e, ErrAuto
	}
	if err := s.mayPerform(ctx, actor, e.ConversationID, e.AnalystID); err != nil {
		return e, err
	}
	change, err := changeOf(form, e)
	if err != nil {
		return e, err
	}
	saved, err := s.Evaluations.SaveEvaluation(ctx, actor.OrgID, e.ID, change)
	if errors.Is(err, catalog.ErrEvaluationClosed) {
		return e, ErrClosed
	}
	return saved, err
}

// answerChange is the change that saves answers, with their scores.
func answerChange(form *quality.Form, in Answers) (catalog.EvaluationChange, error) {
	change := catalog.EvaluationChange{CallSummary: in.Summary, Status: catalog.EvaluationInProgress, From: OpenStatuses}
	if in.CustomerType != nil {
		ct, ok := form.CustomerType(*in.CustomerType)
		if !ok {
			return change, invalid.At("customerType", "is not a customer type of the evaluation's form.")
		}
		change.CustomerTypeID = &ct.ID
	}
	if in.Answers == nil {
		return change, nil
	}
	normalized, err := form.Normalize(in.Answers)
	if err != nil {
		return change, err
	}
	stored, score := storedAnswers(form, normalized)
	for i := range stored {
		stored[i].AnswerID = catalog.NewID()
	}
	change.Answers, change.Score = stored, &score
	return change, nil
}

// storedAnswers are normalized answers scored, as the catalog keeps them
// (the form's words beside the ids; no answer ids yet), and the
// evaluation's score: the one formula of a person's answers and of the
// classifiers'.
func storedAnswers(form *quality.Form, answers []quality.Answer) ([]catalog.EvaluationAnswer, float64) {
	scores := form.Score(answers)
	stored := make([]catalog.EvaluationAnswer, 0, len(answers))
	for _, a := range answers {
		module, question, _ := form.Question(a.QuestionID)
		answer := catalog.EvaluationAnswer{QuestionID: a.QuestionID, ModuleID: module.ID, ModuleName: module.Name,
			QuestionText: question.Text, Category: question.Category, Weight: question.Weight, TagIDs: a.TagIDs,
			TagValues: question.TagValues(a.TagIDs), FillIn: a.FillIn, Note: a.Note}
		if ws, ok := scores.Questions[a.QuestionID]; ok {
			answer.WeightedScore = &ws
		}
		stored = append(stored, answer)
	}
	return stored, scores.Overall
}

// Completed is an evaluation whose answers all say what the catalog keeps
// of a person's (the form's words, tag values, weighted scores): an Auto
// evaluation's answers are the classifiers' (as its form's scorecard
// wrote them) but for those a reviewer confirmed or overrode.
func Completed(form *quality.Form, e catalog.Evaluation) catalog.Evaluation {
	if e.Source != catalog.SourceAuto {
		return e
	}
	e, _ = completed(form, form.Scorecard(), e)
	return e
}

// completed is Completed of an Auto evaluation, with its form's scorecard,
// and the score its answers give.
func completed(form *quality.Form, card *quality.Scorecard, e catalog.Evaluation) (catalog.Evaluation, float64) {
	answers := slices.Clone(e.Answers)
	for _, a := range card.Answers(e.AutoAnswers) {
		if !slices.ContainsFunc(answers, func(r catalog.EvaluationAnswer) bool { return r.QuestionID == a.QuestionID }) {
			answers = append(answers, catalog.EvaluationAnswer{QuestionID: a.QuestionID, AnswerID: a.QuestionID, TagIDs: a.TagIDs, AutoTagIDs: a.TagIDs})
		}
	}
	e.Answers = answers
	stored, score := storedAnswers(form, AnswersOf(e))
	for i := range stored {
		kept := e.Answers[i]
		stored[i].AnswerID, stored[i].AutoTagIDs, stored[i].ReviewedBy, stored[i].ReviewedOn = kept.AnswerID, kept.AutoTagIDs, kept.ReviewedBy, kept.ReviewedOn
		if _, q, ok := form.Question(kept.QuestionID); ok && kept.AutoTagIDs != nil {
			stored[i].AutoTagValues = q.TagValues(kept.AutoTagIDs)
		}
	}
	e.Answers = stored
	return e, score
}

// submitChange is the change that submits an evaluation.
func submitChange(form *quality.Form, e catalog.Evaluation, noValue bool) (catalog.EvaluationChange, error) {
	if noValue {
		return catalog.EvaluationChange{Status: catalog.EvaluationNoValue, From: OpenStatuses, Submitted: true}, nil
	}
	if missing := form.Unanswered(AnswersOf(e)); len(missing) > 0 && slices.Contains(OpenStatuses, e.Status) {
		return catalog.EvaluationChange{}, invalid.At("answers", "must answer the required questions: "+strings.Join(missing, "; "))
	}
	return catalog.EvaluationChange{Status: catalog.EvaluationCompleted, From: OpenStatuses, Submitted: true}, nil
}

// AnswersOf are an evaluation's stored answers as package quality reads
// them.
func AnswersOf(e catalog.Evaluation) []quality.Answer {
	out := make([]quality.Answer, len(e.Answers))
	for i, a := range e.Answers {
		out[i] = quality.Answer{QuestionID: a.QuestionID, TagIDs: a.TagIDs, FillIn: a.FillIn, Note: a.Note}
	}
	return out
}
