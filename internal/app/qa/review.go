package qa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// ErrNotAuto: only an Auto evaluation's answers are reviewed (a person's
// evaluation is answered); ErrAuto: an Auto evaluation's answers are
// reviewed, not answered.
var (
	ErrNotAuto = errors.New("qa: not an Auto evaluation")
	ErrAuto    = errors.New("qa: an Auto evaluation")
)

// Review records a reviewer's confirmation or override of answers the
// classifiers gave in an Auto evaluation, and rescores it by the form's
// formula; what the classifiers answered is kept, to count agreement, and
// the classifiers' own results are never changed. Each answer must be to
// a question the classifiers answered (an *invalid.Field naming it).
func (s Service) Review(ctx context.Context, actor access.Actor, id string, answers []quality.Answer) (catalog.Evaluation, error) {
	if err := actor.Require(access.PerformEvaluations); err != nil {
		return catalog.Evaluation{}, err
	}
	e, form, err := s.Evaluation(ctx, actor, id)
	if err != nil {
		return e, err
	}
	if e.Source != catalog.SourceAuto {
		return e, ErrNotAuto
	}
	if err := s.mayPerform(ctx, actor, e.ConversationID); err != nil {
		return e, err
	}
	reviewed, err := form.Normalize(answers)
	if err != nil {
		return e, err
	}
	current := AnswersOf(e)
	for i, r := range reviewed {
		k := slices.IndexFunc(current, func(a quality.Answer) bool { return a.QuestionID == r.QuestionID })
		if k < 0 || e.Answers[k].AutoTagIDs == nil {
			return e, invalid.At(fmt.Sprintf("answers[%d].questionId", i), "has no answer of the classifiers to review: the question is not bound, or its classifiers gave no result.")
		}
		if len(r.TagIDs) == 0 {
			return e, invalid.At(fmt.Sprintf("answers[%d].tagIds", i), "must choose the answer: the classifiers' to confirm it, another to override it.")
		}
		current[k] = r
	}
	by := actor.UserID
	if by == "" {
		by = actor.OrgID // an API client acting for the organization
	}
	at := time.Now().UTC()
	stored, score := storedAnswers(form, current)
	var changes []catalog.EvaluationAnswer
	for _, a := range stored {
		if slices.ContainsFunc(reviewed, func(r quality.Answer) bool { return r.QuestionID == a.QuestionID }) {
			a.AnswerID, a.AutoTagIDs, a.ReviewedBy, a.ReviewedOn = catalog.NewID(), autoTags(e, a.QuestionID), &by, &at
			changes = append(changes, a)
		}
	}
	saved, err := s.Evaluations.ReviewAutoAnswers(ctx, actor.OrgID, e.ID, changes, &score)
	if errors.Is(err, catalog.ErrNotAuto) {
		return e, ErrNotAuto
	}
	return saved, err
}

// AutoEvaluationsOf are a conversation's Auto evaluations, if the actor may
// read the conversation (none otherwise).
func (s Service) AutoEvaluationsOf(ctx context.Context, actor access.Actor, conversationID string) ([]catalog.Evaluation, error) {
	if err := actor.Require(access.ReadResults); err != nil {
		return nil, err
	}
	return s.Evaluations.Evaluations(ctx, actor.OrgID, catalog.EvaluationFilter{Source: catalog.SourceAuto,
		ConversationIDs: []string{conversationID}, Scope: actor.Scope(), Limit: 100})
}

// autoTags are the tags the classifiers chose for a question of a
// completed Auto evaluation.
func autoTags(e catalog.Evaluation, questionID string) []string {
	for _, a := range e.Answers {
		if a.QuestionID == questionID {
			return a.AutoTagIDs
		}
	}
	return nil
}

// QuestionAgreement is how often people answered a bound question as the
// classifiers did: reviewers of Auto evaluations (confirming or
// overriding) and Human evaluations of the same conversations on the
// same form.
type QuestionAgreement struct {
	QuestionID, QuestionText string
	Compared, Agreed         int
	Reviews                  int // of Compared, reviews of Auto evaluations
}

// Rate is the share of comparisons that agreed (0 without any).
func (q QuestionAgreement) Rate() float64 {
	if q.Compared == 0 {
		return 0
	}
	return float64(q.Agreed) / float64(q.Compared)
}

// Agreement is, per bound question of a form in the form's order, how
// often people agreed with the classifiers' answers: what says which
// bindings to trust.
func (s Service) Agreement(ctx context.Context, actor access.Actor, formID string) ([]QuestionAgreement, error) {
	if err := actor.Require(access.ReadResults); err != nil {
		return nil, err
	}
	if err := validID(formID); err != nil {
		return nil, err
	}
	form, err := s.Form(ctx, actor.OrgID, formID)
	if err != nil {
		return nil, err
	}
	pairs, err := s.Evaluations.AnswerPairs(ctx, actor.OrgID, formID)
	if err != nil {
		return nil, err
	}
	var out []QuestionAgreement
	at := map[string]int{}
	for _, m := range form.Modules {
		for _, q := range m.Questions {
			if q.Binding.Bound() {
				at[q.ID] = len(out)
				out = append(out, QuestionAgreement{QuestionID: q.ID, QuestionText: q.Text})
			}
		}
	}
	card := form.Scorecard()
	for _, p := range pairs {
		k, ok := at[p.QuestionID]
		if !ok {
			continue
		}
		if !p.Reviewed { // a Human evaluation beside the Auto one
			auto := card.Answers(p.AutoAnswers)
			i := slices.IndexFunc(auto, func(a quality.Answer) bool { return a.QuestionID == p.QuestionID })
			if i < 0 {
				continue // the classifiers left it open
			}
			p.Auto = auto[i].TagIDs
		}
		q := &out[k]
		q.Compared++
		if sameTags(p.Auto, p.Human) {
			q.Agreed++
		}
		if p.Reviewed {
			q.Reviews++
		}
	}
	return out, nil
}

// sameTags reports whether two answers chose the same tags, in any order.
func sameTags(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(t string) bool { return !slices.Contains(b, t) })
}
