package registry

import (
	"context"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
)

// A trained model true where "bus" is, and sure only with "plane" too.
const busyModel = `{"model":"trained","label":"Flights","bias":0,"threshold":0.4,"sure":0.9,"weights":{"bus":1,"plane":4}}`

// A phrase rule that takes from trained models yields their labels below
// their sure level in its category, and only there.
func TestTopicTakesFromTrained(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rule     string // the user's topic
		category string // the rule's
		model    string // the trained model's definition
		text     string
		want     string // the trained model's result
	}{
		{"the rule matches, the model below its sure level", `{"takesFromTrained":true,"groups":[{"rules":[{"phrases":["bus"]}]}]}`, "Topics", busyModel, "a bus ticket", "false"},
		{"the model sure", `{"takesFromTrained":true,"groups":[{"rules":[{"phrases":["bus"]}]}]}`, "Topics", busyModel, "a bus or a plane", "true"},
		{"the rule does not match", `{"takesFromTrained":true,"groups":[{"rules":[{"phrases":["coach"]}]}]}`, "Topics", busyModel, "a bus ticket", "true"},
		{"the rule does not take", `{"groups":[{"rules":[{"phrases":["bus"]}]}]}`, "Topics", busyModel, "a bus ticket", "true"},
		{"another category", `{"takesFromTrained":true,"groups":[{"rules":[{"phrases":["bus"]}]}]}`, "Intents", busyModel, "a bus ticket", "true"},
		{"a model without a sure level never yields", `{"takesFromTrained":true,"groups":[{"rules":[{"phrases":["bus"]}]}]}`, "Topics",
			`{"model":"trained","label":"Flights","bias":0,"threshold":0.4,"weights":{"bus":1}}`, "a bus ticket", "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs []*Compiled
			for _, c := range []Classifier{
				{ID: "model", Name: "Flights", Type: analysis.TypeCoreModel, Category: "Topics", Definition: []byte(tc.model)},
				{ID: "rule", Name: "Buses", Type: analysis.TypeClassifier, Category: tc.category, Definition: []byte(tc.rule)},
			} {
				compiled, err := Compiler{}.Compile("o", c)
				if err != nil {
					t.Fatal(err)
				}
				cs = append(cs, compiled)
			}
			conv := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", Text: tc.text}}}
			set := NewSet(cs)
			model := set.Evaluate(context.Background(), conv)[0].Result
			if model.Value != tc.want {
				t.Fatalf("the model's result is %s, want %s (%+v)", model.Value, tc.want, model)
			}
			alone, _ := cs[0].Evaluate(context.Background(), conv)
			if *model.Score != *alone.Score {
				t.Errorf("score %v, alone %v: yielding keeps the probability", *model.Score, *alone.Score)
			}
			if yielded := tc.want == "false"; yielded != (model.Reasoning != "") || yielded && len(model.Evidence) > 0 {
				t.Errorf("reasoning %q, evidence %v: a yielded result says why and shows no evidence", model.Reasoning, model.Evidence)
			}
		})
	}
}
