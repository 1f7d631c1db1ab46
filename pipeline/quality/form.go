// Package quality is Earshot's quality evaluations: forms of modules and
// questions an analyst answers about a conversation for an agent, and the
// weighted scores computed from the answers.
package quality

import (
	"fmt"
	"strings"

	"github.com/earshot/earshot/internal/invalid"
)

// Question types: chosen tags, or a free-text fill-in.
const (
	TypeTags   = "Tags"
	TypeFillIn = "FillIn"
)

// Form is an evaluation form: its modules, and the customer types an
// evaluation may name. With AutoScore, every processed conversation gets
// an evaluation whose bound questions are answered by classifiers
// (binding.go).
type Form struct {
	Modules       []Module       `json:"modules"`
	CustomerTypes []CustomerType `json:"customerTypes"`
	AutoScore     bool           `json:"autoScore,omitempty"`
}

// Module is a section of a form, scored on its own.
type Module struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Questions   []Question `json:"questions"`
}

// Question is one question of a module. A Tags question is answered by
// choosing tags (one, or several when MultiSelect), or by classifiers
// (its Binding); a FillIn question by text and is never scored.
type Question struct {
	ID          string  `json:"id"`
	Text        string  `json:"questionText"`
	ShortText   string  `json:"shortQuestionText"`
	HelperText  string  `json:"helperText"`
	Order       int     `json:"order"`
	Required    bool    `json:"required"`
	Weight      float64 `json:"weight"`
	Type        string  `json:"type"`
	Category    string  `json:"category"`
	MultiSelect bool    `json:"multiSelect"`
	Tags        []Tag   `json:"tags"`
	Binding
}

// Tag is a possible answer of a Tags question. ScoredValue nil is an
// answer that is not scored (N/A): a question answered only by such tags
// leaves the score.
type Tag struct {
	ID          string   `json:"id"`
	TagType     string   `json:"tagType"`
	Value       string   `json:"value"`
	Sentiment   string   `json:"sentiment"`
	ScoredValue *float64 `json:"scoredValue"`
	Order       int      `json:"order"`
}

// CustomerType is a kind of customer an evaluation may record.
type CustomerType struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"isActive"`
}

// fail is a mistake in a form or in answers, at a path such as
// "modules[0].questions[2].weight".
func fail(path, format string, args ...any) error {
	return invalid.At(path, fmt.Sprintf(format, args...))
}

// maxWeight bounds weights and scored values: sums of them stay exact
// and finite.
const maxWeight = 1_000_000

// Prepare checks a new form, gives every module, question, tag and
// customer type an id, and numbers questions and tags in their order.
func (f *Form) Prepare(newID func() string) error {
	if len(f.Modules) == 0 {
		return fail("modules", "must list at least one module.")
	}
	for m := range f.Modules {
		mod := &f.Modules[m]
		at := fmt.Sprintf("modules[%d]", m)
		mod.ID = newID()
		if strings.TrimSpace(mod.Name) == "" {
			return fail(at+".name", "is required.")
		}
		if len(mod.Questions) == 0 {
			return fail(at+".questions", "must list at least one question.")
		}
		for q := range mod.Questions {
			if err := prepareQuestion(&mod.Questions[q], fmt.Sprintf("%s.questions[%d]", at, q), q+1, newID); err != nil {
				return err
			}
		}
	}
	if f.AutoScore && !f.Bound() {
		return fail("autoScore", "needs a question bound to a classifier (classifierId or classifierRule).")
	}
	seen := map[string]bool{}
	for i := range f.CustomerTypes {
		ct := &f.CustomerTypes[i]
		key := strings.ToLower(strings.TrimSpace(ct.Name))
		if key == "" || seen[key] {
			return fail(fmt.Sprintf("customerTypes[%d]", i), "must be a name, once.")
		}
		seen[key] = true
		ct.ID, ct.IsActive = newID(), true
	}
	return nil
}

func prepareQuestion(q *Question, at string, order int, newID func() string) error {
	q.ID, q.Order = newID(), order
	switch {
	case strings.TrimSpace(q.Text) == "":
		return fail(at+".questionText", "is required.")
	case !(q.Weight >= 0 && q.Weight <= maxWeight): // NaN fails too
		return fail(at+".weight", "must be a number from 0 to %d.", maxWeight)
	}
	switch strings.ToLower(q.Type) {
	case "", "tags":
		q.Type = TypeTags
		if len(q.Tags) == 0 {
			return fail(at+".tags", "must list the answers a Tags question offers.")
		}
	case "fillin":
		q.Type = TypeFillIn
		if len(q.Tags) > 0 {
			return fail(at+".tags", "must be empty: a FillIn question is answered by text.")
		}
	default:
		return fail(at+".type", "must be Tags or FillIn.")
	}
	if q.Tags == nil {
		q.Tags = []Tag{}
	}
	values := map[string]bool{}
	for t := range q.Tags {
		tag := &q.Tags[t]
		key := strings.ToLower(strings.TrimSpace(tag.Value))
		if key == "" || values[key] {
			return fail(fmt.Sprintf("%s.tags[%d].value", at, t), "must be a value, once in the question.")
		}
		values[key] = true
		if v := tag.ScoredValue; v != nil && !(*v >= -maxWeight && *v <= maxWeight) {
			return fail(fmt.Sprintf("%s.tags[%d].scoredValue", at, t), "must be a number from -%d to %d, or null (not scored).", maxWeight, maxWeight)
		}
		tag.ID, tag.Order = newID(), t+1
		if tag.TagType == "" {
			tag.TagType = "Answer"
		}
	}
	return prepareBinding(q, at)
}

// Question finds a question by id, with its module.
func (f *Form) Question(id string) (*Module, *Question, bool) {
	for m := range f.Modules {
		for q := range f.Modules[m].Questions {
			if f.Modules[m].Questions[q].ID == id {
				return &f.Modules[m], &f.Modules[m].Questions[q], true
			}
		}
	}
	return nil, nil, false
}

// CustomerType finds a customer type by id or name (any casing).
func (f *Form) CustomerType(key string) (CustomerType, bool) {
	for _, ct := range f.CustomerTypes {
		if ct.ID == key || strings.EqualFold(ct.Name, key) {
			return ct, true
		}
	}
	return CustomerType{}, false
}
