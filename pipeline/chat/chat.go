// Package chat reads one chat conversation in any of the formats the
// contract accepts (CONTRACT §3):
//
//  1. Earshot JSON: {"messages":[{"participant","text","timestamp"}],"metadata":{…}}
//  2. Contact Center AI Insights JSON: {"entries":[{"text","role","user_id","start_timestamp_usec"}]}
//  3. Plain text, one turn a line: "Agent: …" / "Customer: …", optionally
//     led by "[HH:MM:SS]" or "HH:MM:SS".
//
// TextMedia uploads are checked with it at upload time, and the pipeline
// reads archive entries with it.
package chat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// Participants.
const (
	Agent    = "Agent"
	Customer = "Customer"
	Bot      = "Bot"
	System   = "System"
)

// Formats.
const (
	FormatEarshot = "earshot-json"
	FormatCCAI    = "ccai-json"
	FormatText    = "text"
)

// Limits on one conversation.
const (
	MaxBytes    = 16 << 20
	MaxMessages = 50_000
)

// Message is one turn.
type Message struct {
	Participant string
	Text        string
	Timestamp   *time.Time     // absolute time, when the format gives one
	Offset      *time.Duration // time from the start (plain text HH:MM:SS)
}

// Conversation is a parsed chat.
type Conversation struct {
	Format   string
	Messages []Message
	// Metadata is Earshot JSON's optional "metadata" object, as sent: the
	// pipeline reads it with the upload metadata rules.
	Metadata json.RawMessage
}

// ErrInvalid is wrapped by every parse failure.
var ErrInvalid = errors.New("not a readable chat")

func fail(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Parse reads a conversation, choosing the format by content: a JSON object
// with "messages" or "entries", else plain text.
func Parse(data []byte) (*Conversation, error) {
	if len(data) > MaxBytes {
		return nil, fail("larger than %d bytes", MaxBytes)
	}
	if !utf8.Valid(data) {
		return nil, fail("not UTF-8 text")
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, fail("empty")
	}
	var c *Conversation
	var err error
	if trimmed[0] == '{' {
		c, err = parseJSON(trimmed)
	} else {
		c, err = parseText(trimmed)
	}
	if err != nil {
		return nil, err
	}
	if len(c.Messages) == 0 {
		return nil, fail("no messages")
	}
	if len(c.Messages) > MaxMessages {
		return nil, fail("more than %d messages", MaxMessages)
	}
	return c, nil
}

// parseText reads "Speaker: text" lines; a line without a speaker continues
// the turn before it.
func parseText(data []byte) (*Conversation, error) {
	c := &Conversation{Format: FormatText}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" {
			continue
		}
		offset, rest := leadingTime(line)
		speaker, text, found := strings.Cut(rest, ":")
		p, ok := participant(strings.TrimSpace(speaker))
		if !found || !ok {
			if len(c.Messages) == 0 || offset != nil {
				return nil, fail("line %d: want 'Agent: …' or 'Customer: …'", n+1)
			}
			last := &c.Messages[len(c.Messages)-1]
			last.Text += "\n" + line
			continue
		}
		c.Messages = append(c.Messages, Message{Participant: p, Text: strings.TrimSpace(text), Offset: offset})
	}
	return c, nil
}

// leadingTime takes "[HH:MM:SS] " or "HH:MM:SS " off the front of a line.
func leadingTime(line string) (*time.Duration, string) {
	s := line
	bracket := strings.HasPrefix(s, "[")
	if bracket {
		s = s[1:]
	}
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return nil, line
	}
	h, err1 := strconv.Atoi(s[0:2])
	m, err2 := strconv.Atoi(s[3:5])
	sec, err3 := strconv.Atoi(s[6:8])
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || m < 0 || m > 59 || sec < 0 || sec > 59 {
		return nil, line
	}
	s = s[8:]
	if bracket {
		if !strings.HasPrefix(s, "]") {
			return nil, line
		}
		s = s[1:]
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
	return &d, strings.TrimSpace(s)
}

func participant(s string) (string, bool) {
	for _, p := range []string{Agent, Customer, Bot, System} {
		if strings.EqualFold(s, p) {
			return p, true
		}
	}
	return "", false
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
