package starter

import (
	"context"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// Every starter classifier compiles, finds what it says it finds in a
// conversation that has it, and stays quiet on a plain one.
func TestStarterSet(t *testing.T) {
	specs, err := Parse(JSON)
	if err != nil || len(specs) != 8 {
		t.Fatalf("%d specs, %v", len(specs), err)
	}
	bad := &analysis.Conversation{Turns: []analysis.Turn{
		{Speaker: "Agent", StartMs: 0, EndMs: 4000, Text: "Thank you for calling Acme, my name is Sam."},
		{Speaker: "Customer", StartMs: 4000, EndMs: 9000, Text: "This is terrible, I want to cancel my subscription. I am furious."},
		{Speaker: "Agent", StartMs: 9000, EndMs: 14000, Text: "I'm sorry to hear that. Can you confirm your date of birth?"},
		{Speaker: "Customer", StartMs: 60000, EndMs: 70000, Text: "It's on my card 4111 1111 1111 1111. Let me speak to a manager, this is awful."},
	}}
	plain := &analysis.Conversation{Turns: []analysis.Turn{
		{Speaker: "Customer", StartMs: 0, EndMs: 3000, Text: "What are your opening hours?"},
		{Speaker: "Agent", StartMs: 3000, EndMs: 6000, Text: "We open at nine."},
	}}
	for _, s := range specs {
		c, err := registry.Compiler{}.Compile("o", registry.Classifier{Type: s.ClassifierType, Definition: s.Definition})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Description == "" || s.CategoryName == "" {
			t.Errorf("%s: undocumented", s.Name)
		}
		got, _ := c.Evaluate(context.Background(), bad)
		quiet, _ := c.Evaluate(context.Background(), plain)
		if got.Value != "true" || quiet.Value != "false" {
			t.Errorf("%s: %q on the conversation that has it, %q on the plain one", s.Name, got.Value, quiet.Value)
		}
	}
}
