package core

import (
	"context"
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
)

// pii is a boolean: did the conversation carry personal data of the kinds?
type pii struct {
	kinds   map[string]bool
	speaker string
}

func compilePII(def *analysis.Object) (analysis.Engine, error) {
	if err := def.Allow("model", "kinds", "speaker"); err != nil {
		return nil, err
	}
	p := pii{kinds: map[string]bool{}}
	kinds, err := def.Strings("kinds", false)
	if err != nil {
		return nil, err
	}
	if len(kinds) == 0 {
		kinds = defaultPIIKinds
	}
	for i, k := range kinds {
		found := false
		for _, known := range piiKinds {
			if strings.EqualFold(k, known) {
				p.kinds[known], found = true, true
			}
		}
		if !found {
			return nil, analysis.Invalid("must be one of card, ssn, phone, email, dob", "definition", "kinds", i)
		}
	}
	if p.speaker, err = speakerOf(def); err != nil {
		return nil, err
	}
	return p, nil
}

// written reports whether a text has a digit or an @: personal data
// written out needs one.
func written(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c-'0' < 10 || c == '@' {
			return true
		}
	}
	return false
}

// spokenRun reports whether turn i's normalized tokens hold four spoken
// digits in a row (confusions and fillers between them do not break the
// row). When they do not, no run of spoken words a recognizer wrote does
// either (such words are tokens of their own), and the text needs no
// rewriting.
func spokenRun(text *analysis.Normalized, i int) bool {
	run := 0
	for g, end := text.TokensBefore(i), text.TokensBefore(i+1); g < end; g++ {
		p := text.Prefix(g)
		switch {
		case isSpokenDigit(p):
			if run++; run >= 4 {
				return true
			}
		case run > 0 && (!inRunStart[byte(p)] || !slices.Contains(inRunPrefixes, p)):
			run = 0 // only a run begun can be broken: most words are looked at no further
		}
	}
	return false
}

// inRunPrefixes are the words.Prefix values of the confusions and fillers.
var inRunPrefixes = func() []uint64 {
	var out []uint64
	for w := range spokenConfusions {
		out = append(out, words.Prefix(w))
	}
	for w := range spokenFillers {
		out = append(out, words.Prefix(w))
	}
	for w := range spokenShapes {
		out = append(out, words.Prefix(w))
	}
	return out
}()

// findInTurn is FindPII for turn i of a conversation: most turns are ruled
// out by a glance at their characters and normalized tokens.
func findInTurn(c *analysis.Conversation, i int) []Finding {
	text := c.Turns[i].Text
	switch {
	case spokenRun(c.Normalized(), i):
		return FindPII(text)
	case mentionsBirth(text):
		return FindPII(text)
	case written(text) || saysDot(text):
		return findWritten(text)
	}
	return nil
}

func (p pii) Evaluate(_ context.Context, c *analysis.Conversation) (analysis.Result, error) {
	var evidence []analysis.Evidence
	for i, t := range c.Turns {
		if !speaks(p.speaker, t.Speaker) {
			continue
		}
		for _, f := range findInTurn(c, i) {
			if p.kinds[f.Kind] && len(evidence) < 10 {
				// The evidence names the kind, never the data.
				evidence = append(evidence, analysis.Evidence{Turn: i, StartMs: t.StartMs, EndMs: t.EndMs, Text: "[" + f.Kind + "]"})
			}
		}
	}
	return analysis.BoolResult(len(evidence) > 0, evidence), nil
}
