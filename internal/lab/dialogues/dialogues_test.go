package dialogues

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/pipeline/chat"
)

var start = time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)

func TestSeeded(t *testing.T) {
	a, b, c := New(7), New(7), New(8)
	same, differ := a.Dialogue(start), b.Dialogue(start)
	if !reflect.DeepEqual(same, differ) {
		t.Fatal("the same seed gave different dialogues")
	}
	other := c.Dialogue(start)
	if reflect.DeepEqual(same.Turns, other.Turns) && reflect.DeepEqual(same.Traits, other.Traits) {
		t.Fatal("different seeds gave the same dialogue")
	}
}

// The chats parse as Earshot JSON with the metadata and times given.
func TestEarshotJSON(t *testing.T) {
	d := New(1).Dialogue(start)
	body, err := d.EarshotJSON(Metadata{"AgentCode": "A1", "ClientCallId": "c-1"})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := chat.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Format != chat.FormatEarshot || len(conv.Messages) != len(d.Turns) || string(conv.Metadata) != `{"AgentCode":"A1","ClientCallId":"c-1"}` {
		t.Fatalf("parsed %+v", conv)
	}
	last := conv.Messages[len(conv.Messages)-1]
	if want := start.Add(d.Turns[len(d.Turns)-1].Offset); last.Timestamp == nil || !last.Timestamp.Equal(want.Truncate(time.Second)) {
		t.Fatalf("last message at %v, want %v", last.Timestamp, want)
	}
}

// traitOf is the trait each starter classifier should find.
var traitOf = map[string]func(Dialogue) bool{
	"Greeting":                    func(d Dialogue) bool { return d.Traits["greeting"] },
	"Identity verification":       func(d Dialogue) bool { return d.Traits["identity"] },
	"Escalation request":          func(d Dialogue) bool { return d.Traits["escalation"] },
	"Cancellation intent":         func(d Dialogue) bool { return d.Intent == "cancellation" },
	"Empathy statements":          func(d Dialogue) bool { return d.Traits["empathy"] },
	"Dead air":                    func(d Dialogue) bool { return false }, // a chat message lasts until the next: no silence
	"PII spoken":                  func(d Dialogue) bool { return d.Traits["pii"] },
	"Negative customer sentiment": func(d Dialogue) bool { return d.Traits["unhappy"] },
}

// The starter classifiers find each moment exactly where the generator
// put it, and every moment is both present and absent somewhere: the demo's
// results mean something.
func TestStarterClassifiersAgree(t *testing.T) {
	specs, err := starter.Parse(starter.JSON)
	if err != nil {
		t.Fatal(err)
	}
	g := New(42)
	var dialogues []Dialogue
	for range 400 {
		dialogues = append(dialogues, g.Dialogue(start))
	}
	for _, s := range specs {
		want, ok := traitOf[s.Name]
		if !ok {
			t.Fatalf("no trait for starter classifier %q", s.Name)
		}
		c, err := registry.Compiler{}.Compile("o", registry.Classifier{Type: s.ClassifierType, Definition: s.Definition})
		if err != nil {
			t.Fatal(err)
		}
		var hits, wrong int
		for _, d := range dialogues {
			got, err := c.Evaluate(context.Background(), asConversation(d))
			if err != nil {
				t.Fatal(err)
			}
			hit := got.Value == "true"
			if hit {
				hits++
			}
			if hit != want(d) {
				wrong++
				if wrong <= 2 {
					t.Logf("%s: %v, trait %v: %+v", s.Name, hit, want(d), d.Turns)
				}
			}
		}
		if wrong > 0 || (hits == 0 && s.Name != "Dead air") || hits == len(dialogues) {
			t.Errorf("%s: %d hits of %d, %d disagree with the generator", s.Name, hits, len(dialogues), wrong)
		}
	}
}

// asConversation is a dialogue as the pipeline sees a timed chat: each
// message lasts until the next.
func asConversation(d Dialogue) *analysis.Conversation {
	conv := &analysis.Conversation{}
	for i, t := range d.Turns {
		end := t.Offset
		if i+1 < len(d.Turns) {
			end = d.Turns[i+1].Offset
		}
		conv.Turns = append(conv.Turns, analysis.Turn{Speaker: t.Speaker, Text: t.Text, StartMs: t.Offset.Milliseconds(), EndMs: end.Milliseconds()})
	}
	return conv
}
