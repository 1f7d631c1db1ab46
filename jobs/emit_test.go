package jobs

import "testing"

// FuzzAcknowledgement reads whatever an endpoint answers: a receipt id is
// a non-empty string when there is one, never a panic.
func FuzzAcknowledgement(f *testing.F) {
	for _, s := range []string{`{"receiptId":"R-1","uid":"U"}`, `{"id":"x","ReceiptID":"y"}`, `{"receiptId":5}`, `[]`, `null`, ``, `{"uid":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		receipt, uid := acknowledgement(answer)
		if receipt != nil && *receipt == "" || uid != nil && *uid == "" {
			t.Fatalf("an empty id from %q", answer)
		}
	})
}
