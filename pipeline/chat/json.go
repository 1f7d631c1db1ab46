package chat

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/earshot/earshot/internal/contract/dates"
)

// earshotMessage is a message of Earshot JSON, each field nil when absent.
type earshotMessage struct {
	Participant *string `json:"participant"`
	Text        *string `json:"text"`
	Timestamp   *string `json:"timestamp"`
}

// ccaiEntry is an entry of Contact Center AI Insights JSON.
type ccaiEntry struct {
	Text      *string      `json:"text"`
	Role      string       `json:"role"`
	UserID    json.Number  `json:"user_id"`
	StartUsec *json.Number `json:"start_timestamp_usec"`
}

// document is a JSON chat read in one pass, its messages or entries
// typed as they are read.
type document struct {
	Messages *[]earshotMessage `json:"messages"`
	Entries  *[]ccaiEntry      `json:"entries"`
	Metadata json.RawMessage   `json:"metadata"`
}

// parts is a JSON chat's parts as they were sent, to be read one by one.
type parts struct {
	Messages json.RawMessage `json:"messages"`
	Entries  json.RawMessage `json:"entries"`
	Metadata json.RawMessage `json:"metadata"`
}

// parseJSON reads a JSON chat in one pass, as nearly every chat reads; a
// chat that does not read that way is read again part by part
// (parseJSONParts), whose error says which part is wrong and how.
func parseJSON(data []byte) (*Conversation, error) {
	// The JSON reader takes a NUL byte for the end of its input: what
	// follows one would go unread.
	if at := bytes.IndexByte(data, 0); at >= 0 {
		return nil, fail("invalid JSON: a NUL byte at offset %d", at)
	}
	var doc document
	if decodeWhole(data, &doc) == nil {
		switch {
		case doc.Messages != nil:
			return earshotConversation(*doc.Messages, doc.Metadata)
		case doc.Entries != nil:
			return ccaiConversation(*doc.Entries)
		}
	}
	return parseJSONParts(data)
}

// decodeWhole reads data as one JSON value into v, refusing anything after
// it. It reads as a stream: go-json's Unmarshal can panic on malformed
// input (a fuzzed `{"\'2\`), its stream decoder says what is wrong. Nor is
// Unmarshal to be tried first for speed: on a malformed chat it reads past
// its buffer (the race detector's pointer checks stop the process), a
// fault no recover catches.
func decodeWhole(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fail("invalid JSON: %v", err)
	}
	if dec.More() {
		return fail("unexpected data after the JSON object")
	}
	return nil
}

// parseJSONParts reads a JSON chat's parts as they were sent, then the one
// of its format, so that an error names the part at fault.
func parseJSONParts(data []byte) (*Conversation, error) {
	var doc parts
	if err := decodeWhole(data, &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.Messages != nil:
		var msgs []earshotMessage
		if err := json.Unmarshal(doc.Messages, &msgs); err != nil {
			return nil, fail(`"messages" must be an array of {participant, text, timestamp}: %v`, err)
		}
		return earshotConversation(msgs, doc.Metadata)
	case doc.Entries != nil:
		var entries []ccaiEntry
		if err := json.Unmarshal(doc.Entries, &entries); err != nil {
			return nil, fail(`"entries" must be an array of {text, role, user_id, start_timestamp_usec}: %v`, err)
		}
		return ccaiConversation(entries)
	}
	return nil, fail(`a JSON chat needs "messages" (Earshot) or "entries" (Contact Center AI Insights)`)
}

// earshotConversation is an Earshot JSON chat of msgs. metadata is a JSON
// value already read whole.
func earshotConversation(msgs []earshotMessage, metadata json.RawMessage) (*Conversation, error) {
	switch trimmed := bytes.TrimSpace(metadata); {
	case len(trimmed) == 0 || string(trimmed) == "null":
		metadata = nil
	case trimmed[0] != '{':
		return nil, fail(`"metadata" must be an object`)
	}
	c := &Conversation{Format: FormatEarshot, Metadata: metadata, Messages: make([]Message, 0, len(msgs))}
	stamps := make([]time.Time, len(msgs)) // one allocation for the messages' times
	for i, m := range msgs {
		if m.Participant == nil || m.Text == nil {
			return nil, fail("message %d: participant and text are required", i+1)
		}
		p, ok := participant(*m.Participant)
		if !ok {
			return nil, fail("message %d: participant %q is not Agent, Customer, Bot or System", i+1, truncate(*m.Participant))
		}
		msg := Message{Participant: p, Text: *m.Text}
		if m.Timestamp != nil {
			t, err := dates.Parse(*m.Timestamp)
			if err != nil {
				return nil, fail("message %d: timestamp: %v", i+1, err)
			}
			stamps[i] = t
			msg.Timestamp = &stamps[i]
		}
		c.Messages = append(c.Messages, msg)
	}
	return c, nil
}

var ccaiRoles = map[string]string{"AGENT": Agent, "CUSTOMER": Customer, "END_USER": Customer, "AUTOMATED_AGENT": Bot}

// ccaiConversation is a Contact Center AI Insights chat of entries.
func ccaiConversation(entries []ccaiEntry) (*Conversation, error) {
	c := &Conversation{Format: FormatCCAI, Messages: make([]Message, 0, len(entries))}
	stamps := make([]time.Time, len(entries)) // one allocation for the entries' times
	for i, e := range entries {
		if e.Text == nil {
			return nil, fail("entry %d: text is required", i+1)
		}
		p, ok := ccaiRoles[strings.ToUpper(e.Role)]
		if !ok {
			return nil, fail("entry %d: role %q is not AGENT, CUSTOMER, END_USER or AUTOMATED_AGENT", i+1, truncate(e.Role))
		}
		msg := Message{Participant: p, Text: *e.Text}
		if e.StartUsec != nil {
			usec, err := strconv.ParseInt(e.StartUsec.String(), 10, 64)
			if err != nil || usec < 0 || usec > 253402300799999999 {
				return nil, fail("entry %d: start_timestamp_usec must be microseconds since 1970", i+1)
			}
			stamps[i] = time.UnixMicro(usec).UTC()
			msg.Timestamp = &stamps[i]
		}
		c.Messages = append(c.Messages, msg)
	}
	return c, nil
}
