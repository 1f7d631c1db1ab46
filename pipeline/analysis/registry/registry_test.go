package registry

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/llm"
)

func TestCompileByType(t *testing.T) {
	cp := Compiler{}
	for _, c := range []Classifier{
		{Type: analysis.TypeClassifier, Definition: []byte(`{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`)},
		{Type: analysis.TypeMetadata, Definition: []byte(`{"conditions":[{"field":"callDirection","op":"exists"}]}`)},
		{Type: analysis.TypeCoreModel, Definition: []byte(`{"model":"pii"}`)},
	} {
		if _, err := cp.Compile("o", c); err != nil {
			t.Errorf("%s: %v", c.Type, err)
		}
	}
	var de *analysis.DefinitionError
	if _, err := cp.Compile("o", Classifier{Type: analysis.TypeLLM, Definition: []byte(`{"prompt":"x"}`)}); !errors.As(err, &de) || err != ErrNoLLM {
		t.Fatalf("LLM without an endpoint: %v", err)
	}
	withLLM := Compiler{LLM: llm.New(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})}
	if _, err := withLLM.Compile("o", Classifier{Type: analysis.TypeLLM, Definition: []byte(`{"prompt":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Compile("o", Classifier{Type: "Regex", Definition: []byte(`{}`)}); !errors.As(err, &de) || de.Path != "classifierType" {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := cp.Compile("o", Classifier{Type: analysis.TypeClassifier, Definition: []byte(`{"groups":[]}`)}); !errors.As(err, &de) || de.Path != "definition.groups" {
		t.Fatalf("bad definition: %v", err)
	}
}

// A set gives each classifier its own result; a failing one fails alone.
func TestSetEvaluate(t *testing.T) {
	withLLM := Compiler{LLM: llm.New(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})}
	var cs []*Compiled
	for _, c := range []Classifier{
		{ID: "cancel", Type: analysis.TypeClassifier, Definition: []byte(`{"groups":[{"rules":[{"phrases":["cancel"],"speaker":"Customer"}]}]}`)},
		{ID: "refund", Type: analysis.TypeClassifier, Definition: []byte(`{"groups":[{"rules":[{"phrases":["refund"]}]}]}`)},
		{ID: "inbound", Type: analysis.TypeMetadata, Definition: []byte(`{"conditions":[{"field":"callDirection","op":"eq","value":"Inbound"}]}`)},
		{ID: "llm", Type: analysis.TypeLLM, Definition: []byte(`{"prompt":"x"}`)},
	} {
		compiled, err := withLLM.Compile("o", c)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, compiled)
	}
	conv := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", Text: "Please cancel my plan"}},
		Metadata: analysis.Metadata{CallDirection: "Inbound"}}
	out := NewSet(cs).Evaluate(context.Background(), conv)
	got := map[string]string{}
	for _, o := range out {
		if o.Err != nil {
			got[o.Classifier.ID] = "error"
			continue
		}
		got[o.Classifier.ID] = o.Result.Value
	}
	if got["cancel"] != "true" || got["refund"] != "false" || got["inbound"] != "true" || got["llm"] != "error" {
		t.Fatalf("%v", got)
	}
	// The set with the LLM classifier waits on the network; without it, not.
	if !NewSet(cs).WaitsOnNetwork() || NewSet(cs[:3]).WaitsOnNetwork() {
		t.Errorf("waits on the network: with an LLM %v, without %v", NewSet(cs).WaitsOnNetwork(), NewSet(cs[:3]).WaitsOnNetwork())
	}
}

// Every classifier type of the contract has its engine, and only those do.
func TestEveryTypeHasAnEngine(t *testing.T) {
	var types []string
	for _, e := range engines {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, analysis.Types) {
		t.Errorf("engines for %v, the contract's types are %v", types, analysis.Types)
	}
}
