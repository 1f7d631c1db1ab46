package oauth

import (
	"testing"
	"time"
)

// BenchmarkBearerValidation measures what every API request pays for
// authentication: header parsing plus RS256 signature and claim checks.
// BenchmarkBaselineIssue (signing) is printed beside it for scale.
func BenchmarkBearerValidation(b *testing.B) {
	tokens := NewTokens(testKeys(b), testIssuer, time.Hour)
	token, _ := tokens.Issue("client-1", "org-1", Scope)
	header := "Bearer " + token
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tok, err := BearerToken(header)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tokens.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkBaselineIssue(b *testing.B) {
	tokens := NewTokens(testKeys(b), testIssuer, time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tokens.Issue("client-1", "org-1", Scope); err != nil {
			b.Fatal(err)
		}
	}
}
