package metadata

import (
	"context"
	"errors"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
)

func ptr(n int64) *int64 { return &n }

func TestConditions(t *testing.T) {
	conv := &analysis.Conversation{Metadata: analysis.Metadata{
		CallDirection: "Inbound", ExtendedMetadata: map[string]string{"queue": "Billing", "score": "7.5", "empty": ""},
		CallDurationMillis: ptr(95000), AgentCode: "A-17", HierarchyCodes: []string{"TEAM-3", "EAST", "ACME"}, LocaleID: 1033,
	}}
	for _, tt := range []struct {
		cond string
		want bool
	}{
		{`{"field":"callDirection","op":"eq","value":"inbound"}`, true},
		{`{"field":"callDirection","op":"ne","value":"Inbound"}`, false},
		{`{"field":"callDirection","op":"ne","value":"Outbound"}`, true},
		{`{"field":"extendedMetadataValues.queue","op":"in","values":["sales","billing"]}`, true},
		{`{"field":"extendedMetadataValues.queue","op":"contains","value":"ill"}`, true},
		{`{"field":"extendedMetadataValues.missing","op":"exists"}`, false},
		{`{"field":"extendedMetadataValues.empty","op":"exists"}`, true},
		{`{"field":"extendedMetadataValues.score","op":"gt","value":7}`, true},
		{`{"field":"extendedMetadataValues.queue","op":"gt","value":7}`, false},
		{`{"field":"callDurationMillis","op":"gt","value":60000}`, true},
		{`{"field":"callDurationMillis","op":"lt","value":60000}`, false},
		{`{"field":"chatMessageCount","op":"exists"}`, false},
		{`{"field":"chatMessageCount","op":"gt","value":1}`, false},
		{`{"field":"agentCode","op":"eq","value":"a-17"}`, true},
		{`{"field":"hierarchy","op":"eq","value":"east"}`, true}, // a node above the conversation's
		{`{"field":"hierarchy","op":"eq","value":"WEST"}`, false},
		{`{"field":"locale","op":"eq","value":"1033"}`, true},
	} {
		e, err := Compile([]byte(`{"conditions":[` + tt.cond + `]}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.cond, err)
		}
		if res, _ := e.Evaluate(context.Background(), conv); *res.Bool != tt.want {
			t.Errorf("%s: %v, want %v", tt.cond, res.Value, tt.want)
		}
	}
	all, _ := Compile([]byte(`{"conditions":[{"field":"callDirection","op":"eq","value":"Inbound"},{"field":"agentCode","op":"eq","value":"B"}]}`))
	anyOf, _ := Compile([]byte(`{"operator":"ANY","conditions":[{"field":"callDirection","op":"eq","value":"Inbound"},{"field":"agentCode","op":"eq","value":"B"}]}`))
	if r, _ := all.Evaluate(context.Background(), conv); *r.Bool {
		t.Error("ALL held with a false condition")
	}
	if r, _ := anyOf.Evaluate(context.Background(), conv); !*r.Bool {
		t.Error("ANY failed with a true condition")
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct{ def, path string }{
		{`{"conditions":[]}`, "definition.conditions"},
		{`{"conditions":[{"field":"mood","op":"eq","value":"x"}]}`, "definition.conditions[0].field"},
		{`{"conditions":[{"field":"extendedMetadataValues.","op":"eq","value":"x"}]}`, "definition.conditions[0].field"},
		{`{"conditions":[{"field":"callDirection","op":"like","value":"x"}]}`, "definition.conditions[0].op"},
		{`{"conditions":[{"field":"callDirection","op":"in","values":[]}]}`, "definition.conditions[0].values"},
		{`{"conditions":[{"field":"callDurationMillis","op":"gt","value":"long"}]}`, "definition.conditions[0].value"},
		{`{"conditions":[{"field":"callDurationMillis","op":"exists","value":1}]}`, "definition.conditions[0].op"},
		{`{"conditions":[{"field":"agentCode","op":"eq"}]}`, "definition.conditions[0].value"},
		{`{"conditions":[{"field":"agentCode","op":"eq","value":"a","extra":1}]}`, "definition.conditions[0].extra"},
	} {
		_, err := Compile([]byte(tt.def))
		var de *analysis.DefinitionError
		if !errors.As(err, &de) || de.Path != tt.path {
			t.Errorf("%s: %v, want %s", tt.def, err, tt.path)
		}
	}
}
