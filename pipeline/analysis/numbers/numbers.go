// Package numbers reads a number however a chat wrote it or a transcript
// spelled it out — "50", "5 0", "fifty", "five oh" — as its digits ("50"),
// so that a phrase rule's number matches in chats and calls alike.
//
// A number is a run of tokens (see analysis.Tokenize): digit strings and
// number words. Words combine as speakers say them — "fifty five" is 55,
// "two hundred and five" 205, "two thousand twenty" 2020 — and what does
// not combine follows on: "five fifty" is 550, "nineteen ninety nine"
// 1999, "four one five" 415, "5 0" 50. "oh" is a zero only inside a
// number ("five oh"), never at its start.
package numbers

import (
	"strconv"

	"github.com/earshot/earshot/pipeline/analysis/words"
)

// Words are the number words, each numbered by its value (0 to 19, then
// the tens from 20 to 27), then the words that join them.
var Words = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
	"twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
	"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
	"oh", "hundred", "thousand", "and"}

var known = words.New(Words)

// Starters are the words a number can begin with (Words without the
// joining ones): a run that begins with another is no number.
var Starters = Words[:28]

// value is a number word's value.
func value(token string) (int, bool) {
	k, ok := known.Find(token)
	switch {
	case !ok || k >= 28:
		return 0, false
	case k >= 20:
		return 20 + 10*(k-20), true
	}
	return k, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Read reads the number at the start of tokens (token(i) is the i-th, ok
// false past the last): its digits and how many tokens it took; 0 tokens
// when there is no number there.
func Read(token func(i int) (string, bool)) (digits string, used int) {
	var out []byte
	cur := -1    // the group being read, -1 none
	open := none // what may still join cur
	flush := func() {
		if cur >= 0 {
			out = strconv.AppendInt(out, int64(cur), 10)
		}
		cur, open = -1, none
	}
	for i := 0; ; i++ {
		t, ok := token(i)
		if !ok {
			break
		}
		v, isValue := value(t)
		switch {
		case isDigits(t):
			flush()
			out = append(out, t...)
		case isValue && v < 10:
			if open == units || open == unitsOrTens {
				cur += v
				flush()
			} else {
				flush()
				cur, open = v, none
			}
		case isValue && v < 20:
			if open == unitsOrTens {
				cur += v
				flush()
			} else {
				flush()
				cur = v
				flush()
			}
		case isValue:
			if open == unitsOrTens {
				cur, open = cur+v, units
			} else {
				flush()
				cur, open = v, units
			}
		case t == "oh" && used > 0:
			flush()
			out = append(out, '0')
		case (t == "hundred" || t == "thousand") && used > 0 && cur >= 0:
			scale := 100
			if t == "thousand" {
				scale = 1000
			}
			cur, open = cur*scale, unitsOrTens
		case t == "and" && open == unitsOrTens:
			// "two hundred and five": and joins, and is part of the number
			// only if one follows.
			if next, ok := token(i + 1); !ok || !joinsAfterScale(next) {
				flush()
				return string(out), used
			}
		default:
			flush()
			return string(out), used
		}
		used = i + 1
	}
	flush()
	return string(out), used
}

// What may still join the group being read.
const (
	none        = iota
	units       // after "fifty": "five"
	unitsOrTens // after "hundred": "twenty", "five", "fifteen"
)

func joinsAfterScale(t string) bool {
	_, ok := value(t)
	return ok
}

// Canonical is tokens with each number written as its digits, one token
// ("five oh" → "50").
func Canonical(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	for i := 0; i < len(tokens); {
		digits, used := Read(func(k int) (string, bool) {
			if i+k < len(tokens) {
				return tokens[i+k], true
			}
			return "", false
		})
		if used == 0 {
			out = append(out, tokens[i])
			i++
			continue
		}
		out = append(out, digits)
		i += used
	}
	return out
}

// IsDigits reports whether a token is a number written in digits.
func IsDigits(token string) bool { return isDigits(token) }
