// Package numbers reads a number however a chat wrote it or a transcript
// spelled it out — "50", "5 0", "fifty", "five oh", "50.00" — as one
// canonical form ("50"), so that a phrase rule's number matches in chats
// and calls alike, and only that number.
//
// A number is a run of tokens (see analysis.Tokenize): digit strings and
// number words. Words combine as speakers say them — "fifty five" is 55,
// "two hundred and five" 205, "two thousand twenty" 2020, "twelve hundred"
// 1200, "a hundred" 100 — and what does not combine follows on: "five
// fifty" is 550, "nineteen ninety nine" 1999, "four one five" 415, "5 0"
// 50. "oh" is a zero only inside a number ("five oh"), never at its start.
//
// A written numeral keeps its decimal point, thousands separators and
// percent sign (the tokenizer keeps them): "1,200.00" is 1200, "3.5" is
// 3.5, never 35, and "5.0" is 5, never 50. Spoken, "three point five" is
// 3.5. A percent — "100%", "100 percent", "a hundred percent" — is the
// number with a "%" ("100%"), a different number from 100. Such a number
// ends where its decimals or its percent end: it does not join the digits
// that follow.
package numbers

import (
	"bytes"
	"strconv"
	"strings"

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

// Leaders are the words that begin a number only before a scale: "a
// hundred", "a thousand".
var Leaders = []string{"a"}

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
	// ends closes the number after token i: its decimals spoken with
	// "point", then "percent".
	ends := func(i int) (string, int) {
		flush()
		if t, _ := token(i); t == "point" && bytes.IndexByte(out, '.') < 0 {
			var decimals []byte
			k := i + 1
			for ; ; k++ {
				d, _ := token(k)
				if v, ok := value(d); ok && v < 10 || d == "oh" {
					decimals = append(decimals, byte('0'+v)) // "oh" is a zero here
				} else if isDigits(d) {
					decimals = append(decimals, d...)
				} else {
					break
				}
			}
			if len(decimals) > 0 {
				out, i = appendDecimals(append(out, '.'), decimals), k
			}
		}
		if t, _ := token(i); t == "percent" {
			out, i = append(out, '%'), i+1
		}
		return string(out), i
	}
	for i := 0; ; i++ {
		t, ok := token(i)
		if !ok {
			break
		}
		v, isValue := value(t)
		switch {
		case isNumeral(t):
			// A written numeral with marks is a number of its own.
			if used > 0 {
				return ends(i)
			}
			n, ok := numeral(t)
			if !ok {
				return "", 0
			}
			out = append(out, n...)
			if n[len(n)-1] == '%' {
				return string(out), 1
			}
			return ends(1)
		case isDigits(t):
			flush()
			out = append(out, t...)
		case t == "a" && used == 0:
			// "a hundred", "a thousand": a leads only those.
			if next, _ := token(1); next != "hundred" && next != "thousand" {
				return "", 0
			}
			cur, open = 1, none
		case isValue && v < 10:
			next, _ := token(i + 1)
			switch {
			case open == unitsOrTens && cur >= 1000 && cur%1000 == 0 && next == "hundred":
				// "one thousand two hundred": the hundreds of a thousand.
				cur += v * 100
				i++
			case open == units || open == unitsOrTens:
				cur += v
				flush()
			default:
				flush()
				cur, open = v, none
			}
		case isValue && v < 20:
			if open == unitsOrTens {
				cur += v
				flush()
			} else {
				// Open for a scale only: "twelve hundred".
				flush()
				cur = v
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
				return ends(used)
			}
		default:
			if used == 0 {
				return "", 0
			}
			return ends(used)
		}
		used = i + 1
	}
	if used == 0 {
		return "", 0
	}
	return ends(used)
}

// isNumeral reports whether a token is a numeral with marks (a decimal
// point, thousands separators, a percent sign), well formed or not.
func isNumeral(t string) bool {
	return StartsNumber(t) && strings.ContainsAny(t, ".,%")
}

// numeral is a written numeral's canonical form: thousands separators
// dropped, trailing decimal zeros dropped, a percent sign kept
// ("1,200.50%" → "1200.5%"); false when it is no well-formed numeral
// ("1.2.3", "12,00").
func numeral(t string) (string, bool) {
	body, percent := strings.CutSuffix(t, "%")
	whole, decimals, hasPoint := strings.Cut(body, ".")
	if hasPoint && !isDigits(decimals) {
		return "", false
	}
	groups := strings.Split(whole, ",")
	if !isDigits(groups[0]) || len(groups) > 1 && len(groups[0]) > 3 {
		return "", false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !isDigits(g) {
			return "", false
		}
	}
	out := appendDecimals([]byte(strings.Join(groups, "")+"."), []byte(decimals))
	if percent {
		out = append(out, '%')
	}
	return string(out), true
}

// appendDecimals writes decimals after dst (which ends with a point)
// without their trailing zeros, and without the point when none is left.
func appendDecimals(dst, decimals []byte) []byte {
	for len(decimals) > 0 && decimals[len(decimals)-1] == '0' {
		decimals = decimals[:len(decimals)-1]
	}
	if len(decimals) == 0 {
		return dst[:len(dst)-1]
	}
	return append(dst, decimals...)
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

// IsNumber reports whether a token is a number's canonical form (see
// Read): digits, maybe decimals, maybe a percent sign.
func IsNumber(token string) bool {
	n, ok := numeral(token)
	return ok && n == token || isDigits(token)
}

// StartsNumber reports whether a token written in digits may begin a
// number: digits, or a numeral with marks.
func StartsNumber(token string) bool { return token != "" && token[0] >= '0' && token[0] <= '9' }
