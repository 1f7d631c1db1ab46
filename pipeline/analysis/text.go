package analysis

import (
	"strings"
	"unicode"
)

// Tokenize normalizes text for matching: lower case, apostrophes removed
// inside words ("Don't" → "dont"), every other mark a separator. Phrases
// and transcripts go through it alike, so "I'd like to CANCEL!" matches the
// phrase "id like to cancel".
func Tokenize(text string) []string {
	var out []string
	var tok strings.Builder
	flush := func() {
		if tok.Len() > 0 {
			out = append(out, tok.String())
			tok.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tok.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// dropped: joins the word's parts
		default:
			flush()
		}
	}
	flush()
	return out
}
