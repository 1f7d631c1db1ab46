package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// formTextExample is what the form editor starts from: the outline a
// form is written in.
const formTextExample = `# Opening
Greeted the customer? | required | weight 2 | Yes=1, No=0, N/A
Verified the customer's identity? | required | weight 3 | Yes=1, No=0
# Resolution
Resolved the issue? | required | weight 5 | Yes=1, No=0
Notes | fill-in`

// parseFormText reads a form written as an outline: "# Name" starts a
// module; each other line is a question, its text then, after "|",
// "required", "weight N", "multiple" (several answers), "fill-in" (a
// text answer), "category NAME", "when CLASSIFIER: YES / NO" (answered
// by a classifier: YES when it finds its topic, NO when not; "when any
// of A, B: …", "all of", "none of" for a rule over several) and its
// answers, "Value=score" or a bare value (not scored), separated by
// commas. Blank lines are skipped. Classifiers are named as the
// organization names them (classifiers). A mistake is an *invalid.Field
// naming its line; the form's own rules (quality.Form.Prepare) are
// checked after.
func parseFormText(text string, classifiers classifierNames) (quality.Form, error) {
	var f quality.Form
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		at := fmt.Sprintf("line %d", n+1)
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			f.Modules = append(f.Modules, quality.Module{Name: strings.TrimSpace(strings.TrimPrefix(line, "#"))})
		case len(f.Modules) == 0:
			return f, invalid.At(at, "is a question before any module: start with a line such as “# Opening”.")
		default:
			q, mistake := questionOf(line, classifiers)
			if mistake != "" {
				return f, invalid.At(at, mistake)
			}
			m := &f.Modules[len(f.Modules)-1]
			m.Questions = append(m.Questions, q)
		}
	}
	if len(f.Modules) == 0 {
		return f, invalid.At("form", "has no module: start with a line such as “# Opening”.")
	}
	return f, nil
}

// questionOf reads one question line, or says what is wrong with it.
func questionOf(line string, classifiers classifierNames) (quality.Question, string) {
	parts := strings.Split(line, "|")
	q := quality.Question{Text: strings.TrimSpace(parts[0]), Type: quality.TypeTags, Weight: 1}
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		word, rest, _ := strings.Cut(p, " ")
		switch strings.ToLower(word) {
		case "":
		case "required":
			q.Required = true
		case "multiple":
			q.MultiSelect = true
		case "fill-in":
			q.Type, q.Weight = quality.TypeFillIn, 0
		case "category":
			q.Category = strings.TrimSpace(rest)
		case "when":
			b, mistake := bindingOf(rest, classifiers)
			if mistake != "" {
				return q, mistake
			}
			q.Binding = b
		case "weight":
			w, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				return q, fmt.Sprintf("has a weight that is no number: %q.", rest)
			}
			q.Weight = w
		default:
			tags, mistake := tagsOf(p)
			if mistake != "" {
				return q, mistake
			}
			q.Tags = append(q.Tags, tags...)
		}
	}
	return q, ""
}

// ruleWords are the outline's words for a rule over several classifiers.
var ruleWords = map[string]string{"any of": quality.RuleAny, "all of": quality.RuleAll, "none of": quality.RuleNone}

// bindingOf reads what follows "when": the classifier or rule, then the
// answers when it holds and when not ("Greeting: Yes / No"), or says what
// is wrong with it.
func bindingOf(text string, classifiers classifierNames) (quality.Binding, string) {
	var b quality.Binding
	which, answers, ok := cutLast(text, ":")
	whenTrue, whenFalse, both := strings.Cut(answers, "/")
	whenTrue, whenFalse = strings.TrimSpace(whenTrue), strings.TrimSpace(whenFalse)
	if !ok || !both || whenTrue == "" || whenFalse == "" {
		return b, fmt.Sprintf("has a binding that is not “when CLASSIFIER: YES / NO”: %q.", strings.TrimSpace("when "+text))
	}
	b.WhenTrue, b.WhenFalse = whenTrue, whenFalse
	which = strings.TrimSpace(which)
	names := []string{which}
	for words, operator := range ruleWords {
		if strings.HasPrefix(strings.ToLower(which), words+" ") {
			b.Rule = &quality.Rule{Operator: operator}
			names = strings.Split(which[len(words)+1:], ",")
		}
	}
	for _, name := range names {
		id, known := classifiers.id(strings.TrimSpace(name))
		if !known {
			return b, fmt.Sprintf("names no classifier of the organization: %q.", strings.TrimSpace(name))
		}
		if b.Rule != nil {
			b.Rule.ClassifierIDs = append(b.Rule.ClassifierIDs, id)
		} else {
			b.ClassifierID = id
		}
	}
	return b, ""
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// classifierNames finds the organization's classifiers by name (any
// case), for the outline's bindings, and names them back.
type classifierNames struct {
	ids   map[string]string // lower-case name → id
	names map[string]string // id → name
}

func newClassifierNames(list []catalog.Classifier) classifierNames {
	c := classifierNames{ids: map[string]string{}, names: map[string]string{}}
	for _, k := range list {
		c.ids[strings.ToLower(k.Name)], c.names[k.ID] = k.ID, k.Name
	}
	return c
}

func (c classifierNames) id(name string) (string, bool) {
	id, ok := c.ids[strings.ToLower(name)]
	return id, ok
}

// name is the classifier's name, or its id when the organization has no
// such classifier any more.
func (c classifierNames) name(id string) string {
	if n, ok := c.names[id]; ok {
		return n
	}
	return id
}

// tagsOf reads a question's answers ("Yes=1, No=0, N/A"), or says what
// is wrong with them.
func tagsOf(list string) ([]quality.Tag, string) {
	var out []quality.Tag
	for _, a := range strings.Split(list, ",") {
		value, score, scored := strings.Cut(a, "=")
		t := quality.Tag{Value: strings.TrimSpace(value)}
		if scored {
			s, err := strconv.ParseFloat(strings.TrimSpace(score), 64)
			if err != nil {
				return nil, fmt.Sprintf("has an answer whose score is no number: %q.", strings.TrimSpace(a))
			}
			t.ScoredValue = &s
		}
		if t.Value == "" {
			return nil, fmt.Sprintf("has an empty answer in %q.", list)
		}
		out = append(out, t)
	}
	return out, ""
}

// formText writes a form as the outline parseFormText reads: a changed
// form starts from its predecessor's.
func formText(f quality.Form, classifiers classifierNames) string {
	var b strings.Builder
	for _, m := range f.Modules {
		fmt.Fprintf(&b, "# %s\n", m.Name)
		for _, q := range m.Questions {
			parts := []string{q.Text}
			if q.Required {
				parts = append(parts, "required")
			}
			if q.Type == quality.TypeFillIn {
				parts = append(parts, "fill-in")
			} else if q.Weight != 1 {
				parts = append(parts, "weight "+strconv.FormatFloat(q.Weight, 'f', -1, 64))
			}
			if q.MultiSelect {
				parts = append(parts, "multiple")
			}
			if q.Category != "" {
				parts = append(parts, "category "+q.Category)
			}
			if b := q.Binding; b.Bound() {
				which := classifiers.name(b.ClassifierID)
				if b.Rule != nil {
					var names []string
					for _, id := range b.Rule.ClassifierIDs {
						names = append(names, classifiers.name(id))
					}
					which = b.Rule.Operator + " of " + strings.Join(names, ", ")
				}
				parts = append(parts, "when "+which+": "+b.WhenTrue+" / "+b.WhenFalse)
			}
			var tags []string
			for _, t := range q.Tags {
				if t.ScoredValue != nil {
					tags = append(tags, t.Value+"="+strconv.FormatFloat(*t.ScoredValue, 'f', -1, 64))
				} else {
					tags = append(tags, t.Value)
				}
			}
			if len(tags) > 0 {
				parts = append(parts, strings.Join(tags, ", "))
			}
			fmt.Fprintln(&b, strings.Join(parts, " | "))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
