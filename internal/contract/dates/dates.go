// Package dates parses the date forms the HTTP contract accepts and formats
// the one form it writes. Accepted (CONTRACT §1):
//
//	2025-10-03                           date only, UTC
//	2025-10-03T21:52:26                  no zone = UTC
//	2025-10-03T21:52:26.8816090Z         up to 7 fraction digits
//	2025-10-03T17:56:09.8683110-04:00    offset
//
// and what .NET and JavaScript clients commonly send besides: a space or a
// lower-case t for the T, a lower-case z, no seconds (21:52), an offset
// without its colon (+0000), and an offset whose + an unencoded query
// string turned into a space (2025-10-03T21:52:26 00:00).
//
// Output is RFC 3339 in UTC with milliseconds: 2025-10-03T21:52:26.881Z.
package dates

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is wrapped by every parse failure.
var ErrInvalid = errors.New("invalid date")

// Accepted names the forms, for error messages a person can act on.
const Accepted = "2025-10-03, 2025-10-03T21:52:26, 2025-10-03T21:52:26.8816090Z or 2025-10-03T17:56:09.8683110-04:00 " +
	"(also: a space for the T, no seconds, +0000 for +00:00)"

// maxFractionDigits is the .NET "o" format's precision, which clients send.
const maxFractionDigits = 7

// Parse reads one accepted form. A date-only value is midnight UTC.
func Parse(s string) (time.Time, error) {
	t, _, err := parse(s)
	return t, err
}

// ParseEnd reads the end of a range: like Parse, except that a date-only
// value means the end of that day, inclusive (its last microsecond, the
// precision of every stored timestamp).
func ParseEnd(s string) (time.Time, error) {
	t, dateOnly, err := parse(s)
	if dateOnly {
		t = t.Add(24*time.Hour - time.Microsecond)
	}
	return t, err
}

// layout is the contract's output form of a time (always UTC).
const layout = "2006-01-02T15:04:05.000Z"

// Format writes t as the contract's output form.
func Format(t time.Time) string {
	return t.UTC().Format(layout)
}

func parse(s string) (t time.Time, dateOnly bool, err error) {
	fail := func() (time.Time, bool, error) {
		return time.Time{}, false, fmt.Errorf("%w: %q: use %s", ErrInvalid, truncate(s), Accepted)
	}
	if !digitsAt(s, 0, 4) || !byteAt(s, 4, '-') || !digitsAt(s, 5, 2) || !byteAt(s, 7, '-') || !digitsAt(s, 8, 2) {
		return fail()
	}
	if len(s) == 10 {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil || !inRange(t) {
			return fail()
		}
		return t, true, nil
	}
	// The rest is rebuilt in RFC 3339 from the forms clients send.
	if len(s) < 11 || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digitsAt(s, 11, 2) || !byteAt(s, 13, ':') || !digitsAt(s, 14, 2) {
		return fail()
	}
	seconds, i := ":00", 16 // HH:MM
	if byteAt(s, i, ':') && digitsAt(s, i+1, 2) {
		i += 3
		if byteAt(s, i, '.') {
			n := 0
			for i+1+n < len(s) && isDigit(s[i+1+n]) {
				n++
			}
			if n == 0 || n > maxFractionDigits {
				return fail()
			}
			i += 1 + n
		}
		seconds = s[16:i]
	}
	zone, ok := normalZone(s[i:])
	if !ok {
		return fail()
	}
	rfc3339 := s // most values come in this form already: no copy
	if s[10] != 'T' || seconds != s[16:i] || zone != s[i:] {
		rfc3339 = s[:10] + "T" + s[11:16] + seconds + zone
	}
	t, err = time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil || !inRange(t) {
		return fail()
	}
	return t.UTC(), false, nil
}

// normalZone is a zone as RFC 3339 writes it: none (UTC), Z or z, an
// offset with or without its colon, or one whose + a query string turned
// into a space (an unencoded +00:00).
func normalZone(zone string) (string, bool) {
	switch {
	case zone == "" || zone == "Z" || zone == "z":
		return "Z", true
	case zone[0] != '+' && zone[0] != '-' && zone[0] != ' ':
		return "", false
	}
	sign := zone[:1]
	if sign == " " {
		sign = "+"
	}
	switch {
	case len(zone) == 6 && digitsAt(zone, 1, 2) && zone[3] == ':' && digitsAt(zone, 4, 2):
		return sign + zone[1:], true
	case len(zone) == 5 && digitsAt(zone, 1, 4):
		return sign + zone[1:3] + ":" + zone[3:], true
	}
	return "", false
}

// inRange keeps years 1 to 9999 in UTC: year 0 and an offset that carries
// 9999-12-31 into year 10000 have no form the contract can write back.
func inRange(t time.Time) bool {
	y := t.UTC().Year()
	return 1 <= y && y <= 9999
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func byteAt(s string, i int, b byte) bool { return i < len(s) && s[i] == b }

func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for j := i; j < i+n; j++ {
		if !isDigit(s[j]) {
			return false
		}
	}
	return true
}

// truncate keeps error messages short whatever a client sends.
func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Timestamp marshals a time as the contract's output form.
type Timestamp time.Time

// MarshalJSON writes "2025-10-03T21:52:26.881Z".
func (t Timestamp) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// AppendJSON appends what MarshalJSON writes (for encoders that write
// into one buffer).
func (t Timestamp) AppendJSON(dst []byte) []byte {
	u := time.Time(t).UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 { // not four digits: as AppendFormat writes it
		return append(u.AppendFormat(append(dst, '"'), layout), '"')
	}
	// A result page writes thousands of times: digit by digit, the layout
	// is not read again for each.
	hour, minute, second := u.Clock()
	milli := u.Nanosecond() / int(time.Millisecond)
	dst = append(dst, '"')
	dst = appendDigits(dst, year, 4)
	dst = appendDigits(append(dst, '-'), int(month), 2)
	dst = appendDigits(append(dst, '-'), day, 2)
	dst = appendDigits(append(dst, 'T'), hour, 2)
	dst = appendDigits(append(dst, ':'), minute, 2)
	dst = appendDigits(append(dst, ':'), second, 2)
	dst = appendDigits(append(dst, '.'), milli, 3)
	return append(dst, 'Z', '"')
}

// appendDigits writes v (not negative) in exactly width decimal digits.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}

// Ptr converts an optional time for JSON output (nil stays null).
func Ptr(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	ts := Timestamp(*t)
	return &ts
}
