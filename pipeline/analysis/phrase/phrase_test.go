package phrase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/earshot/earshot/pipeline/analysis"
)

// call is two minutes of a timed call.
func call() *analysis.Conversation {
	return &analysis.Conversation{ID: "call", Turns: []analysis.Turn{
		{Speaker: "Agent", StartMs: 0, EndMs: 5000, Text: "Thank you for calling Acme, my name is Sam. How can I help you?"},
		{Speaker: "Customer", StartMs: 5000, EndMs: 12000, Text: "Hi, I'd like to cancel my account please."},
		{Speaker: "Agent", StartMs: 12000, EndMs: 20000, Text: "I can help with that. Can you verify your date of birth?"},
		{Speaker: "Customer", StartMs: 20000, EndMs: 30000, Text: "Sure, it is March 3rd. I want to speak to a manager."},
		{Speaker: "Agent", StartMs: 60000, EndMs: 90000, Text: "I understand how frustrating that is. Let me get my supervisor."},
		{Speaker: "Customer", StartMs: 90000, EndMs: 120000, Text: "Thanks. Cancel it today!"},
	}}
}

// chat has no timestamps: every turn is at 0 ms; ten turns of four words.
func chat() *analysis.Conversation {
	c := &analysis.Conversation{ID: "chat"}
	texts := []string{"hello there how are", "i need some help", "with my recent order", "it never came here",
		"let me check that", "ok thank you much", "it ships on monday", "can i get refund", "yes you can now", "ok goodbye and thanks"}
	for i, t := range texts {
		sp := "Customer"
		if i%2 == 0 {
			sp = "Agent"
		}
		c.Turns = append(c.Turns, analysis.Turn{Speaker: sp, Text: t})
	}
	return c
}

func ruleJSON(phrases string, extra string) string {
	var quoted []string
	for _, p := range strings.Split(phrases, "|") {
		quoted = append(quoted, fmt.Sprintf("%q", p))
	}
	r := `{"phrases":[` + strings.Join(quoted, ",") + `]`
	if extra != "" {
		r += "," + extra
	}
	return r + "}"
}

func oneRule(phrases, extra string) string {
	return `{"groups":[{"rules":[` + ruleJSON(phrases, extra) + `]}]}`
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		conv func() *analysis.Conversation
		def  string
		want bool
		// evidence, when given: "turn:text" of the first span
		evidence string
	}{
		{"contains", call, oneRule("cancel my account", ""), true, "1:cancel my account"},
		{"case, apostrophes and punctuation", call, oneRule("I'd like to CANCEL", ""), true, "1:id like to cancel"},
		{"whole tokens only", call, oneRule("cance", ""), false, ""},
		{"any of several phrases", call, oneRule("refund|supervisor", ""), true, "4:supervisor"},
		{"exact: the whole turn", call, oneRule("thanks cancel it today", `"match":"exact"`), true, "5:thanks cancel it today"},
		{"exact: not a part", call, oneRule("cancel it today", `"match":"exact"`), false, ""},
		{"startsWith", call, oneRule("hi id like", `"match":"startsWith"`), true, "1:hi id like"},
		{"startsWith: not in the middle", call, oneRule("id like", `"match":"startsWith"`), false, ""},
		{"speaker restricts", call, oneRule("manager", `"speaker":"Agent"`), false, ""},
		{"speaker matches", call, oneRule("manager", `"speaker":"customer"`), true, "3:manager"},
		{"negate: absent", call, oneRule("refund", `"negate":true`), true, ""},
		{"negate: present", call, oneRule("cancel", `"negate":true`), false, ""},
		{"negate inside a window: said later only", call, oneRule("verify", `"speaker":"Agent","negate":true,"window":{"firstMs":10000}`), true, ""},
		{"negate inside a window: said within", call, oneRule("verify", `"speaker":"Agent","negate":true,"window":{"firstMs":15000}`), false, ""},
		{"firstMs", call, oneRule("cancel", `"window":{"firstMs":15000}`), true, "1:cancel"},
		{"firstMs excludes later", call, oneRule("manager", `"window":{"firstMs":20000}`), false, ""},
		{"lastMs", call, oneRule("cancel", `"window":{"lastMs":40000}`), true, "5:cancel"},
		{"lastMs excludes earlier", call, oneRule("manager", `"window":{"lastMs":40000}`), false, ""},
		{"startMs..endMs", call, oneRule("manager", `"window":{"startMs":20000,"endMs":30000}`), true, "3:manager"},
		{"startMs..endMs excludes", call, oneRule("manager", `"window":{"startMs":30000,"endMs":60000}`), false, ""},
		{"firstPercent of time", call, oneRule("cancel", `"window":{"firstPercent":10}`), true, "1:cancel"},
		{"firstPercent of time excludes", call, oneRule("manager", `"window":{"firstPercent":10}`), false, ""},
		{"lastPercent of time", call, oneRule("cancel", `"window":{"lastPercent":30}`), true, "5:cancel"},
		{"firstTurns", call, oneRule("cancel", `"window":{"firstTurns":2}`), true, "1:cancel"},
		{"firstTurns excludes", call, oneRule("cancel", `"window":{"firstTurns":1}`), false, ""},
		{"lastTurns", call, oneRule("cancel", `"window":{"lastTurns":1}`), true, "5:cancel"},
		{"lastTurns excludes", call, oneRule("manager", `"window":{"lastTurns":2}`), false, ""},
		{"near within a turn", call, oneRule("cancel", `"near":{"phrases":["account"],"maxWords":1}`), true, "1:cancel my account"},
		{"near too far", call, oneRule("cancel", `"near":{"phrases":["account"],"maxWords":0}`), false, ""},
		{"near before the phrase", call, oneRule("account", `"near":{"phrases":["like to"],"maxWords":2}`), true, "1:like to cancel my account"},
		{"near across turns never matches", call, oneRule("supervisor", `"near":{"phrases":["thanks"],"maxWords":5}`), false, ""},
		{"chat without timings: firstPercent of words", chat, oneRule("hello", `"window":{"firstPercent":20}`), true, "0:hello"},
		{"chat without timings: firstPercent excludes", chat, oneRule("goodbye", `"window":{"firstPercent":20}`), false, ""},
		{"chat without timings: lastPercent", chat, oneRule("goodbye", `"window":{"lastPercent":10}`), true, "9:goodbye"},
		{"chat without timings: lastPercent excludes", chat, oneRule("refund", `"window":{"lastPercent":10}`), false, ""},
		{"chat without timings: time windows cover it all", chat, oneRule("goodbye", `"window":{"firstMs":1000}`), true, "9:goodbye"},
		{"ALL rules", call, `{"groups":[{"operator":"ALL","rules":[` + ruleJSON("cancel", "") + `,` + ruleJSON("manager", "") + `]}]}`, true, "1:cancel"},
		{"ALL rules, one missing", call, `{"groups":[{"rules":[` + ruleJSON("cancel", "") + `,` + ruleJSON("refund", "") + `]}]}`, false, ""},
		{"ANY rule", call, `{"groups":[{"operator":"ANY","rules":[` + ruleJSON("refund", "") + `,` + ruleJSON("manager", "") + `]}]}`, true, "3:manager"},
		{"ALL groups", call, `{"groups":[{"rules":[` + ruleJSON("cancel", "") + `]},{"rules":[` + ruleJSON("refund", "") + `]}]}`, false, ""},
		{"ANY group", call, `{"operator":"any","groups":[{"rules":[` + ruleJSON("refund", "") + `]},{"rules":[` + ruleJSON("supervisor", "") + `]}]}`, true, "4:supervisor"},
		{"negated rule gives no evidence", call, `{"groups":[{"rules":[` + ruleJSON("cancel", "") + `,` + ruleJSON("refund", `"negate":true`) + `]}]}`, true, "1:cancel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compile([]byte(tt.def))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Evaluate(context.Background(), tt.conv())
			if err != nil {
				t.Fatal(err)
			}
			if *res.Bool != tt.want || res.Value != fmt.Sprint(tt.want) {
				t.Fatalf("result %v, want %v (evidence %+v)", res.Value, tt.want, res.Evidence)
			}
			if tt.evidence != "" {
				if len(res.Evidence) == 0 || fmt.Sprintf("%d:%s", res.Evidence[0].Turn, res.Evidence[0].Text) != tt.evidence {
					t.Fatalf("evidence %+v, want %s", res.Evidence, tt.evidence)
				}
			}
			if !tt.want && len(res.Evidence) > 0 {
				t.Fatalf("a false result with evidence %+v", res.Evidence)
			}
		})
	}
}

// A call's words give evidence its own times, not the turn's.
func TestEvidenceTimesFromWords(t *testing.T) {
	conv := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", StartMs: 1000, EndMs: 4000, Text: "please cancel it",
		Words: []analysis.Word{{Text: "please", StartMs: 1000, EndMs: 1500}, {Text: "cancel", StartMs: 1600, EndMs: 2200}, {Text: "it", StartMs: 2300, EndMs: 2500}}}}}
	c, _ := Compile([]byte(oneRule("cancel it", "")))
	res, _ := c.Evaluate(context.Background(), conv)
	if len(res.Evidence) != 1 || res.Evidence[0] != (analysis.Evidence{Turn: 0, StartMs: 1600, EndMs: 2500, Text: "cancel it"}) {
		t.Fatalf("%+v", res.Evidence)
	}
	// The window tests the phrase's own time: "cancel" starts at 1.6 s.
	c, _ = Compile([]byte(oneRule("cancel", `"window":{"startMs":1500,"endMs":2000}`)))
	if res, _ := c.Evaluate(context.Background(), conv); !*res.Bool {
		t.Fatal("word time not used for the window")
	}
}

// Many classifiers share one index and give the same answers as alone.
func TestIndexSharedBySet(t *testing.T) {
	defs := []string{oneRule("cancel my account", ""), oneRule("manager", `"speaker":"Agent"`), oneRule("supervisor|refund", ""), oneRule("cancel", `"window":{"lastTurns":1}`)}
	var cs []*Classifier
	for _, d := range defs {
		c, err := Compile([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	ix := NewIndex(cs)
	conv := call()
	hits := ix.Scan(conv)
	for k, c := range cs {
		alone, _ := c.Evaluate(context.Background(), call())
		shared := ix.Evaluate(k, conv, hits)
		if alone.Value != shared.Value || len(alone.Evidence) != len(shared.Evidence) {
			t.Errorf("classifier %d: alone %+v, in a set %+v", k, alone, shared)
		}
	}
}

func TestDefinitionErrors(t *testing.T) {
	for _, tt := range []struct{ def, path, message string }{
		{`[]`, "definition", "must be an object"},
		{`{"groups":[]}`, "definition.groups", "must not be empty"},
		{`{"groupz":[]}`, "definition.groupz", "unknown field"},
		{`{"groups":[{"rules":[{"phrase":["x"]}]}]}`, "definition.groups[0].rules[0].phrase", "unknown field"},
		{`{"groups":[{"rules":[{"phrases":[]}]}]}`, "definition.groups[0].rules[0].phrases", "must not be empty"},
		{`{"groups":[{"rules":[{"phrases":["ok"," "]}]}]}`, "definition.groups[0].rules[0].phrases[1]", "non-blank"},
		{`{"groups":[{"rules":[{"phrases":["!!!"]}]}]}`, "definition.groups[0].rules[0].phrases[0]", "no words"},
		{`{"groups":[{"rules":[{"phrases":["a"],"match":"fuzzy"}]}]}`, "definition.groups[0].rules[0].match", "contains, exact, startsWith"},
		{`{"groups":[{"rules":[{"phrases":["a"],"speaker":"Bot"}]}]}`, "definition.groups[0].rules[0].speaker", "Agent, Customer, Any"},
		{`{"groups":[{"operator":"SOME","rules":[{"phrases":["a"]}]}]}`, "definition.groups[0].operator", "ALL, ANY"},
		{`{"groups":[{"rules":[{"phrases":["a"]}]},{"rules":[{"phrases":["b"],"window":{"firstMs":1000,"lastMs":5}}]}]}`, "definition.groups[1].rules[0].window", "more than one window"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{}}]}]}`, "definition.groups[0].rules[0].window", "needs one of"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{"startMs":5000,"endMs":1000}}]}]}`, "definition.groups[0].rules[0].window.endMs", "after startMs"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{"startMs":5000}}]}]}`, "definition.groups[0].rules[0].window.startMs", "needs endMs"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{"firstPercent":150}}]}]}`, "definition.groups[0].rules[0].window.firstPercent", "from 0.001 to 100"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{"firstTurns":1.5}}]}]}`, "definition.groups[0].rules[0].window.firstTurns", "whole number"},
		{`{"groups":[{"rules":[{"phrases":["a"],"window":{"lastMs":-1}}]}]}`, "definition.groups[0].rules[0].window.lastMs", "from 1"},
		{`{"groups":[{"rules":[{"phrases":["a"],"near":{"phrases":["b"]}}]}]}`, "definition.groups[0].rules[0].near.maxWords", "is required"},
		{`{"groups":[{"rules":[{"phrases":["a"],"match":"exact","near":{"phrases":["b"],"maxWords":2}}]}]}`, "definition.groups[0].rules[0].near", "needs match"},
		{`{"groups":[{"rules":[{"phrases":["a"],"negate":"yes"}]}]}`, "definition.groups[0].rules[0].negate", "true or false"},
		{`{"takesFromTrained":1,"groups":[{"rules":[{"phrases":["a"]}]}]}`, "definition.takesFromTrained", "true or false"},
		{`{"groups":[{"rules":[{"phrases":["a"]}]}]} {}`, "definition", "one JSON object"},
	} {
		_, err := Compile([]byte(tt.def))
		var de *analysis.DefinitionError
		if !errors.As(err, &de) || de.Path != tt.path || !strings.Contains(de.Message, tt.message) {
			t.Errorf("%s: %v, want %s: …%s…", tt.def, err, tt.path, tt.message)
		}
	}
}

func FuzzCompile(f *testing.F) {
	f.Add(oneRule("cancel my account", `"near":{"phrases":["now"],"maxWords":3},"window":{"firstPercent":20}`))
	f.Add(`{"operator":"ANY","groups":[{"rules":[{"phrases":["a"],"window":{"startMs":1,"endMs":2}}]}]}`)
	f.Fuzz(func(t *testing.T, def string) {
		c, err := Compile([]byte(def))
		if err != nil {
			var de *analysis.DefinitionError
			if !errors.As(err, &de) || de.Path == "" {
				t.Fatalf("error without a path: %v", err)
			}
			return
		}
		// A compiled classifier evaluates both kinds of conversation.
		for _, conv := range []*analysis.Conversation{call(), chat(), {}} {
			if _, err := c.Evaluate(context.Background(), conv); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A number in a phrase matches however the conversation has it: written in
// a chat, spelled out by a recognizer, digit by digit; and a phrase's own
// number may be written any of those ways. Evidence covers the whole
// number, with a call's word times.
func TestNumbersMatchHoweverWritten(t *testing.T) {
	for _, tc := range []struct {
		phrase, text string
		want         bool
		evidence     string
	}{
		{"50 dollars", "it was 50 dollars", true, "50 dollars"},
		{"50 dollars", "it was $50 dollars", true, "50 dollars"},
		{"50 dollars", "it was fifty dollars", true, "fifty dollars"},
		{"50 dollars", "it was five oh dollars", true, "five oh dollars"},
		{"50 dollars", "it was 5 0 dollars", true, "5 0 dollars"},
		{"fifty dollars", "it was 50 dollars", true, "50 dollars"},
		{"five oh dollars", "it was fifty dollars", true, "fifty dollars"},
		{"50 dollars", "it was fifty five dollars", false, ""},
		{"50 dollars", "it was 150 dollars", false, ""},
		{"room 205", "room two hundred and five please", true, "room two hundred and five"},
		{"1999", "back in nineteen ninety nine", true, "nineteen ninety nine"},
		{"no one", "no one called", true, "no one"},
		{"no one", "no 1 called", true, "no 1"},
		{"rock and roll", "rock and roll", true, "rock and roll"},
		// Decimals, thousands separators, spoken hundreds and percentages
		// (issue 44), and no match across a decimal point.
		{"50 dollars", "it was $50.00 dollars", true, "50.00 dollars"},
		{"a fee of 1200", "a fee of $1,200.00 today", true, "a fee of 1,200.00"},
		{"a fee of 1200", "a fee of twelve hundred", true, "a fee of twelve hundred"},
		{"a fee of 1,200", "a fee of 1200", true, "a fee of 1200"},
		{"1200", "one thousand two hundred", true, "one thousand two hundred"},
		{"3.5 percent", "rates at three point five percent", true, "three point five percent"},
		{"3.5%", "rates at three point five percent", true, "three point five percent"},
		{"3.5%", "rates at 3.5% now", true, "3.5%"},
		{"3.5", "it weighs 3.5 kilos", true, "3.5"},
		{"3.5", "it weighs three point five kilos", true, "three point five"},
		{"3.5", "it weighs 35 kilos", false, ""},
		{"35", "it weighs 3.5 kilos", false, ""},
		{"50", "version 5.0 is out", false, ""},
		{"5", "version 5.0 is out", true, "5.0"},
		{"100%", "i am a hundred percent sure", true, "a hundred percent"},
		{"100%", "one hundred percent sure", true, "one hundred percent"},
		{"100 percent", "100% sure", true, "100%"},
		{"100%", "100 dollars", false, ""},
		{"100", "100% sure", false, ""},
		{"a hundred dollars", "100 dollars", true, "100 dollars"},
		{"a dog", "a dog barked", true, "a dog"},
		{"pay 50", "pay 50.50 now", false, ""},
		{"pay 50.5", "pay 50.50 now", true, "pay 50.50"},
	} {
		c, err := Compile([]byte(oneRule(tc.phrase, "")))
		if err != nil {
			t.Fatal(err)
		}
		conv := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", Text: "hello"}, {Speaker: "Customer", Text: tc.text}}}
		res, _ := c.Evaluate(context.Background(), conv)
		if *res.Bool != tc.want || tc.want && (len(res.Evidence) != 1 || res.Evidence[0].Text != tc.evidence || res.Evidence[0].Turn != 1) {
			t.Errorf("%q in %q: %v %+v, want %v with %q", tc.phrase, tc.text, *res.Bool, res.Evidence, tc.want, tc.evidence)
		}
	}
	// A call: the words' times span the spoken number.
	conv := &analysis.Conversation{Turns: []analysis.Turn{{Speaker: "Customer", StartMs: 0, EndMs: 3000, Text: "pay five oh now",
		Words: []analysis.Word{{Text: "pay", StartMs: 0, EndMs: 400}, {Text: "five", StartMs: 500, EndMs: 900}, {Text: "oh", StartMs: 1000, EndMs: 1300}, {Text: "now", StartMs: 1400, EndMs: 1800}}}}}
	c, _ := Compile([]byte(oneRule("50", "")))
	res, _ := c.Evaluate(context.Background(), conv)
	if len(res.Evidence) != 1 || res.Evidence[0] != (analysis.Evidence{Turn: 0, StartMs: 500, EndMs: 1300, Text: "five oh"}) {
		t.Fatalf("%+v", res.Evidence)
	}
}
