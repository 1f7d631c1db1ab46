package pipeline

import (
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/lake"
)

// A call's turn with a spoken card number: the text says [card], and no
// word left can spell it.
func TestRedactSegment(t *testing.T) {
	words := []string{"my", "card", "is", "four", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "one", "thanks"}
	s := lake.Segment{Text: "my card is four one one one one one one one one one one one one one one one thanks"}
	for _, w := range words {
		s.Words = append(s.Words, lake.Word{Word: w})
	}
	redact(&s)
	if s.Text != "my card is [card] thanks" {
		t.Fatalf("text %q", s.Text)
	}
	for _, w := range s.Words {
		if w.Word == "four" || w.Word == "one" {
			t.Fatalf("word %q kept", w.Word)
		}
	}
	if s.Words[0].Word != "my" || s.Words[len(s.Words)-1].Word != "thanks" {
		t.Fatalf("%+v", s.Words)
	}
	plain := lake.Segment{Text: "table for two at seven", Words: []lake.Word{{Word: "two"}}}
	redact(&plain)
	if plain.Text != "table for two at seven" || plain.Words[0].Word != "two" {
		t.Fatalf("%+v", plain)
	}
}

// A spoken e-mail address: the text says [email], and no timed word of it
// is left, while the words around it stay.
func TestRedactSpokenEmail(t *testing.T) {
	text := "mail me at jane dot doe at example dot com thanks"
	s := lake.Segment{Text: text}
	for _, w := range strings.Fields(text) {
		s.Words = append(s.Words, lake.Word{Word: w})
	}
	redact(&s)
	var words []string
	for _, w := range s.Words {
		words = append(words, w.Word)
	}
	if s.Text != "mail me at [email] thanks" ||
		strings.Join(words, " ") != "mail me at [redacted] [redacted] [redacted] [redacted] [redacted] [redacted] [redacted] thanks" {
		t.Fatalf("text %q, words %v", s.Text, words)
	}
}
