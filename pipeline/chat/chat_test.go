package chat

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		format   string // "" = must fail
		summary  string // participant:text|... of the messages
	}{
		{"earshot", `{"messages":[{"participant":"Agent","text":"Hi","timestamp":"2025-10-03T21:52:26Z"},{"participant":"customer","text":"Hello"}],"metadata":{"ClientCallId":"x"}}`,
			FormatEarshot, "Agent:Hi|Customer:Hello"},
		{"earshot bot and system", `{"messages":[{"participant":"BOT","text":"Menu"},{"participant":"System","text":"transfer"}]}`, FormatEarshot, "Bot:Menu|System:transfer"},
		{"ccai", `{"entries":[{"text":"Hi","role":"AGENT","user_id":1,"start_timestamp_usec":1759528346000000},{"text":"Yo","role":"END_USER","user_id":2},{"text":"Beep","role":"AUTOMATED_AGENT"}]}`,
			FormatCCAI, "Agent:Hi|Customer:Yo|Bot:Beep"},
		{"text", "Agent: Hello, how can I help?\nCustomer: My card: it was declined.\n", FormatText, "Agent:Hello, how can I help?|Customer:My card: it was declined."},
		{"text with times", "[00:00:03] Agent: Hi\r\n00:00:07 Customer: Hey\n\n  more from the customer", FormatText, "Agent:Hi|Customer:Hey\nmore from the customer"},
		{"bom", "\xef\xbb\xbfAgent: hi", FormatText, "Agent:hi"},
		{"empty", "  ", "", ""},
		{"no messages", `{"messages":[]}`, "", ""},
		{"neither key", `{"turns":[]}`, "", ""},
		{"bad json", `{"messages":[`, "", ""},
		{"trailing data", `{"messages":[{"participant":"Agent","text":"x"}]} x`, "", ""},
		{"trailing data after a NUL", "{\"messages\":[{\"participant\":\"Agent\",\"text\":\"x\"}]}\x00 x", "", ""},
		{"an unterminated escaped key", `{"\'2\`, "", ""},
		{"unknown participant", `{"messages":[{"participant":"Robot","text":"x"}]}`, "", ""},
		{"missing text", `{"messages":[{"participant":"Agent"}]}`, "", ""},
		{"bad timestamp", `{"messages":[{"participant":"Agent","text":"x","timestamp":"noon"}]}`, "", ""},
		{"metadata not an object", `{"messages":[{"participant":"Agent","text":"x"}],"metadata":[1]}`, "", ""},
		{"unknown role", `{"entries":[{"text":"x","role":"MANAGER"}]}`, "", ""},
		{"negative usec", `{"entries":[{"text":"x","role":"AGENT","start_timestamp_usec":-5}]}`, "", ""},
		{"text without speaker first", "Hello there\nAgent: hi", "", ""},
		{"timed line without speaker", "Agent: hi\n00:00:05 hello", "", ""},
		{"binary", "\xff\xfe\x00A", "", ""},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.in))
		if c.format == "" {
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: accepted (%v)", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var parts []string
		for _, m := range got.Messages {
			parts = append(parts, m.Participant+":"+m.Text)
		}
		if got.Format != c.format || strings.Join(parts, "|") != c.summary {
			t.Errorf("%s: %s %q, want %s %q", c.name, got.Format, strings.Join(parts, "|"), c.format, c.summary)
		}
	}
}

// TestJSONErrorsNameThePart: a JSON chat that does not read in one pass is
// read part by part, and its error says which part is wrong.
func TestJSONErrorsNameThePart(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"messages":"hello"}`, `"messages" must be an array of {participant, text, timestamp}`},
		{`{"messages":[{"participant":"Agent","text":7}]}`, `"messages" must be an array of {participant, text, timestamp}`},
		{`{"entries":[{"text":"x","role":5}]}`, `"entries" must be an array of {text, role, user_id, start_timestamp_usec}`},
		{`{"messages":[{"participant":"Agent","text":"x"}],"metadata":"x"}`, `"metadata" must be an object`},
		{`{"messages":null}`, "no messages"},
		{`{"turns":[]}`, `a JSON chat needs "messages" (Earshot) or "entries" (Contact Center AI Insights)`},
		{`{"messages":[{"participant":"Agent","text":"x"}]} {}`, "unexpected data after the JSON object"},
		{`{"messages":[{"participant":"Agent","text":"x"}`, "invalid JSON"},
		{`{"messages":[{"participant":"Agent"}]}`, "message 1: participant and text are required"},
		{`{"entries":[{"text":"x","role":"AGENT","start_timestamp_usec":-5}]}`, "entry 1: start_timestamp_usec must be microseconds since 1970"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

// TestMessagesWinOverEntries: a chat with both is Earshot JSON, whatever
// its "entries" hold.
func TestMessagesWinOverEntries(t *testing.T) {
	for _, in := range []string{
		`{"entries":[{"text":"e","role":"AGENT"}],"messages":[{"participant":"Customer","text":"m"}]}`,
		`{"entries":"not entries","messages":[{"participant":"Customer","text":"m"}]}`,
	} {
		c, err := Parse([]byte(in))
		if err != nil || c.Format != FormatEarshot || c.Messages[0].Text != "m" {
			t.Errorf("%s: %+v %v", in, c, err)
		}
	}
}

func TestTimes(t *testing.T) {
	c, _ := Parse([]byte(`{"entries":[{"text":"Hi","role":"AGENT","start_timestamp_usec":1759528346881000}]}`))
	if got := c.Messages[0].Timestamp.Format(time.RFC3339Nano); got != "2025-10-03T21:52:26.881Z" {
		t.Errorf("ccai time %s", got)
	}
	c, _ = Parse([]byte("[01:02:03] Agent: x"))
	if *c.Messages[0].Offset != time.Hour+2*time.Minute+3*time.Second {
		t.Errorf("offset %v", *c.Messages[0].Offset)
	}
	c, _ = Parse([]byte(`{"messages":[{"participant":"Agent","text":"x"}],"metadata":{"a":1}}`))
	if string(c.Metadata) != `{"a":1}` {
		t.Errorf("metadata %s", c.Metadata)
	}
}

func TestLimits(t *testing.T) {
	var b strings.Builder
	for i := range MaxMessages + 1 {
		fmt.Fprintf(&b, "Agent: %d\n", i)
	}
	if _, err := Parse([]byte(b.String())); err == nil {
		t.Error("more than MaxMessages accepted")
	}
}

// FuzzParse: any input is refused with ErrInvalid or gives at least one
// message, each with a known participant; a JSON chat reads the same in
// one pass as part by part.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"messages":[{"participant":"Agent","text":"Hi","timestamp":"2025-10-03"}]}`,
		`{"entries":[{"text":"Hi","role":"END_USER","user_id":"7","start_timestamp_usec":1}]}`,
		"[00:00:01] Agent: hi\nCustomer: yo\ncontinued", "00:00:01 Customer: x", "{", "Agent:", "[99:99:99] Bot: x",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// As Parse hands JSON to parseJSON: UTF-8, from its brace on.
		if utf8.Valid(data) && bytes.HasPrefix(data, []byte("{")) && !bytes.Contains(data, []byte{0}) {
			onePass, err1 := parseJSON(data)
			byParts, err2 := parseJSONParts(data)
			if (err1 == nil) != (err2 == nil) || err1 == nil && !reflect.DeepEqual(onePass, byParts) {
				t.Fatalf("read in one pass %+v (%v), part by part %+v (%v)", onePass, err1, byParts, err2)
			}
		}
		c, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		if len(c.Messages) == 0 {
			t.Fatal("accepted with no messages")
		}
		for _, m := range c.Messages {
			if _, ok := participant(m.Participant); !ok {
				t.Fatalf("participant %q", m.Participant)
			}
		}
	})
}

// BenchmarkParseJSON parses a chat of a dozen timed messages with
// metadata, as ingest does for each chat of an archive.
func BenchmarkParseJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"messages":[`)
	for i := range 12 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"participant":%q,"text":"I would like to change my booking to the fourteenth, number %d please.","timestamp":"2026-11-27T10:%02d:%02dZ"}`,
			[]string{"Agent", "Customer"}[i%2], i, i, i*3)
	}
	sb.WriteString(`],"metadata":{"ClientCallId":"call-1","AgentId":"a7"}}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
