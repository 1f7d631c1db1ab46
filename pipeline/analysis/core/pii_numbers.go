package core

import (
	"regexp"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// The rules that tell digit runs apart: phone numbers dialled abroad or at
// home, the words that name a number as an identifier or as personal data,
// a card's details.

// internationalNumber tells whether a run dialled internationally — with
// a leading +, or the exit codes 00 (most of the world) and 011 (North
// America) — is a phone number of some country (E.164: a known country
// code, and a length possible there by libphonenumber's rules). Possible,
// not valid: for redaction a number in a range not yet assigned (or kept
// for fiction) is still a phone number.
func internationalNumber(run string) bool {
	digits := onlyDigits(run)
	switch {
	case run[0] == '+':
	case strings.HasPrefix(digits, "00") && len(digits) > 2:
		run = "+" + digits[2:]
	case strings.HasPrefix(digits, "011") && len(digits) > 3:
		run = "+" + digits[3:]
	default:
		return false
	}
	n, err := phonenumbers.Parse(run, "")
	return err == nil && phonenumbers.IsPossibleNumber(n)
}

// nationalRegions are the countries whose national numbers (a trunk 0,
// then the area code) are read as phone numbers: the callers a contact
// centre of the corpus's kind hears besides North America's.
var nationalRegions = []string{"GB", "DE"}

// nationalNumber tells whether digits dialled with a trunk 0 are a
// possible national number of one of the nationalRegions.
func nationalNumber(digits string) bool {
	if len(digits) < 10 || len(digits) > 12 || digits[0] != '0' || digits[1] == '0' {
		return false
	}
	for _, region := range nationalRegions {
		if n, err := phonenumbers.Parse(digits, region); err == nil && phonenumbers.IsValidNumber(n) {
			return true
		}
	}
	return false
}

// identifierWords name numbers that look like cards or phone numbers and
// are neither: an order's, a parcel's, a device's (an IMEI is 15 digits
// that pass the Luhn check).
var identifierWords = []string{"order", "tracking", "reference", "ref", "confirmation", "invoice", "booking", "ticket", "case",
	"imei", "serial", "sku", "model", "part"}

// personalWords say that the number after them is personal data: one to
// call, a card's.
var personalWords = []string{"call", "phone", "mobile", "cell", "dial", "reach", "text me", "landline", "fax", "card", "visa", "amex"}

// identifierBefore tells whether the words just before a number, in its
// sentence, name it as an identifier: an identifier word closer to it than
// any word that names personal data.
func identifierBefore(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	if i := strings.LastIndexAny(before, ".!?;"); i >= 0 {
		before = before[i+1:]
	}
	before = strings.ToLower(before)
	lastOf := func(list []string) int {
		at := -1
		for _, w := range list {
			for i := strings.LastIndex(before, w); i >= 0; i = strings.LastIndex(before[:i], w) {
				if wordAt(before, i, len(w)) {
					at = max(at, i)
					break
				}
			}
		}
		return at
	}
	id := lastOf(identifierWords)
	return id >= 0 && id > lastOf(personalWords)
}

// ssnBefore tells whether the number's sentence names a social security
// number before it: nine digits said or written without its dashes are
// one then.
func ssnBefore(before string) bool {
	if i := strings.LastIndexAny(before, ".!?;"); i >= 0 {
		before = before[i+1:]
	}
	before = strings.ToLower(before)
	return strings.Contains(before, "social") || strings.Contains(before, "ssn")
}

// wordAt tells whether s[i:i+n] is a whole word (or starts one: "order's").
func wordAt(s string, i, n int) bool {
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' }
	return (i == 0 || !letter(s[i-1])) && (i+n == len(s) || !letter(s[i+n]) || s[i+n] == 's')
}

// cardDetails are an expiry date and a security code, which PCI DSS
// forbids keeping beside a card number: within a few words after one,
// they are redacted with it.
var cardDetails = regexp.MustCompile(`(?i)(?:\b(?:0?[1-9]|1[0-2])\s*[/-]\s*(?:20)?\d{2}\b)|(?:\b(?:cvv|cvc|cv2|cid|security code|code)\D{0,16}?\b\d{3,4}\b)`)

// cardDetailsAfter finds the expiry and security code after a card
// number ending at end.
func cardDetailsAfter(text string, end int) []Finding {
	window := text[end:min(len(text), end+80)]
	var out []Finding
	for _, m := range cardDetails.FindAllStringIndex(window, -1) {
		span := window[m[0]:m[1]]
		start := m[0] + strings.IndexAny(span, "0123456789")
		out = append(out, Finding{Card, end + start, end + m[1]})
	}
	return out
}
