package trained

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Labelled is one conversation of a labelled file: its turns (or the id of
// a stored conversation) and its labels. No labels is an explicit "none
// of these".
type Labelled struct {
	Line           int
	ID             string // the line's own id, when it gives one
	ConversationID string // a stored conversation, instead of turns
	Turns          []analysis.Turn
	Labels         []string
	Group          string // conversations alike (a campaign, a script): cross-validated together
}

// maxLine bounds one line of a labelled file.
const maxLine = 16 << 20

// Sizes a labelled file may have once decompressed: one sent through the
// console or the API (its examples are held in memory together), and one
// an operator trains from on the command line.
const (
	MaxUploadedLabelled = 64 << 20
	MaxLocalLabelled    = 1 << 30
)

// MaxLabelledLines bounds the conversations of a labelled file: each is
// held in memory until training starts.
const MaxLabelledLines = 100_000

// ReadLabelled reads a labelled file: JSON Lines, gzipped or not, one
// conversation a line in one of three forms:
//
//	{"turns": [{"speaker": "customer", "text": "…"}, …], "labels": ["Hotels"]}
//	{"text": "…", "labels": ["Hotels", "Flights"]}
//	{"conversationId": "…", "labels": []}
//
// and optionally "group": conversations alike (of one campaign, script or
// customer) that cross-validation keeps in one fold, so that its figures
// are those of wording the models did not see.
//
// "services" may stand for "labels" (the dialogue corpus's own format,
// whose "dialogue_id" and "intents" are read and ignored). Blank lines are
// skipped; an error names its line. The file may hold at most maxBytes
// once decompressed: a small gzip that expands without end is refused
// when it passes them, not read into memory.
func ReadLabelled(r io.Reader, maxBytes int64) ([]Labelled, error) {
	br := bufio.NewReader(r)
	var content io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("the file looks gzipped but is not: %w", err)
		}
		content = gz
	}
	limited := &capped{r: content, left: maxBytes}
	tooLarge := fmt.Errorf("the labelled file is larger than %d MiB (decompressed)", maxBytes>>20)
	sc := bufio.NewScanner(limited)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Labelled
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if len(out) == MaxLabelledLines {
			return nil, fmt.Errorf("the labelled file has more than %d conversations", MaxLabelledLines)
		}
		l, err := ParseLabelled(sc.Bytes())
		if err != nil && limited.over { // the last line, cut at the limit
			return nil, tooLarge
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		l.Line = line
		out = append(out, l)
	}
	if err := sc.Err(); limited.over {
		return nil, tooLarge
	} else if err != nil {
		return nil, fmt.Errorf("reading the labelled file: %w (a line may be at most %d MiB)", err, maxLine>>20)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the labelled file has no conversations")
	}
	return out, nil
}

// ParseLabelled reads one labelled conversation (a line of a labelled
// file, or an item of a request's list).
func ParseLabelled(raw []byte) (Labelled, error) {
	var l Labelled
	o, err := analysis.Decode(raw, "")
	if err != nil {
		return Labelled{}, err
	}
	if err := o.Allow("turns", "text", "conversationId", "labels", "services", "dialogue_id", "id", "intents", "group"); err != nil {
		return Labelled{}, err
	}
	if l.Group, err = o.String("group", ""); err != nil {
		return Labelled{}, err
	}
	for _, key := range []string{"id", "dialogue_id"} {
		if l.ID == "" {
			if l.ID, err = o.String(key, ""); err != nil {
				return Labelled{}, err
			}
		}
	}
	given := 0
	for _, key := range []string{"turns", "text", "conversationId"} {
		if o.Has(key) {
			given++
		}
	}
	if given != 1 {
		return Labelled{}, fmt.Errorf("give one of turns, text or conversationId")
	}
	switch {
	case o.Has("conversationId"):
		if l.ConversationID, err = o.String("conversationId", ""); err != nil {
			return Labelled{}, err
		}
		if strings.TrimSpace(l.ConversationID) == "" {
			return Labelled{}, analysis.Invalid("must be a non-blank string", o.Path, "conversationId")
		}
	case o.Has("text"):
		text, err := o.String("text", "")
		if err != nil {
			return Labelled{}, err
		}
		l.Turns = []analysis.Turn{{Speaker: analysis.Any, Text: text}}
	default:
		turns, err := o.Objects("turns", true)
		if err != nil {
			return Labelled{}, err
		}
		for _, t := range turns {
			if err := t.Allow("speaker", "text"); err != nil {
				return Labelled{}, err
			}
			speaker, err := t.String("speaker", analysis.Any, analysis.Agent, analysis.Customer, analysis.Any)
			if err != nil {
				return Labelled{}, err
			}
			text, err := t.String("text", "")
			if err != nil {
				return Labelled{}, err
			}
			l.Turns = append(l.Turns, analysis.Turn{Speaker: speaker, Text: text})
		}
	}
	if o.Has("labels") == o.Has("services") {
		return Labelled{}, fmt.Errorf("give labels (or services): a list of labels, empty for none of these")
	}
	key := "labels"
	if o.Has("services") {
		key = "services"
	}
	if l.Labels, err = o.Strings(key, false); err != nil {
		return Labelled{}, err
	}
	for i, label := range l.Labels {
		l.Labels[i] = strings.TrimSpace(label)
	}
	if l.Labels == nil {
		l.Labels = []string{}
	}
	return l, nil
}

// Example is the line as a training example (a line with turns or text).
func (l Labelled) Example() Example {
	id := l.ID
	if id == "" {
		id = fmt.Sprintf("line %d", l.Line)
	}
	return Example{Conversation: &analysis.Conversation{ID: id, Turns: l.Turns}, Labels: l.Labels, Group: l.Group}
}

// MarshalJSON writes the conversation in the form ParseLabelled reads:
// its stored conversation's id, or its turns, with its labels.
func (l Labelled) MarshalJSON() ([]byte, error) {
	type turn struct {
		Speaker string `json:"speaker"`
		Text    string `json:"text"`
	}
	out := struct {
		ID             string   `json:"id,omitempty"`
		ConversationID string   `json:"conversationId,omitempty"`
		Turns          []turn   `json:"turns,omitempty"`
		Labels         []string `json:"labels"`
		Group          string   `json:"group,omitempty"`
	}{ID: l.ID, ConversationID: l.ConversationID, Labels: l.Labels, Group: l.Group}
	for _, t := range l.Turns {
		out.Turns = append(out.Turns, turn{t.Speaker, t.Text})
	}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	return json.Marshal(out)
}

// capped reads at most left bytes of r, then fails; over says r had more.
type capped struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One more byte tells a file of exactly the size from a larger one.
		if n, _ := io.ReadFull(c.r, make([]byte, 1)); n > 0 {
			c.over = true
			return 0, errors.New("the labelled file is too large")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
