package analysis

import (
	"unicode"
	"unicode/utf8"
)

// Tokenize normalizes text for matching: lower case, apostrophes removed
// inside words ("Don't" → "dont"), every other mark a separator. Phrases
// and transcripts go through it alike, so "I'd like to CANCEL!" matches the
// phrase "id like to cancel". The tokens share one backing string (two
// allocations a text: classifiers tokenize every turn).
func Tokenize(text string) []string {
	buf := make([]byte, 0, len(text))
	var ends []int // end of each token in buf
	inToken := false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				buf = append(buf, c)
				inToken = true
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
				inToken = true
			case c == '\'':
				// dropped: joins the word's parts
			default:
				if inToken {
					ends = append(ends, len(buf))
					inToken = false
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			inToken = true
		case r == '’':
		default:
			if inToken {
				ends = append(ends, len(buf))
				inToken = false
			}
		}
	}
	if inToken {
		ends = append(ends, len(buf))
	}
	if len(ends) == 0 {
		return nil
	}
	joined := string(buf)
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = joined[start:end]
		start = end
	}
	return out
}
