package oauth

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// BenchmarkBearerValidation measures what every API request pays for
// authentication — header parsing, RS256 signature, algorithm, issuer and
// lifetime checks — beside its floor, the bare RSA signature check of the
// same token, so the overhead of the JWT handling shows.
func BenchmarkBearerValidation(b *testing.B) {
	tokens := NewTokens(testKeys(b), testIssuer, time.Hour)
	token, _ := tokens.IssueForOperator("org-1", Scope)
	header := "Bearer " + token

	b.Run("earshot", func(b *testing.B) {
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
	})

	b.Run("baseline-rsa-verify", func(b *testing.B) {
		i := strings.LastIndexByte(token, '.')
		signed, sig := token[:i], token[i+1:]
		pub := &testKeys(b).Signing().Private.PublicKey
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				raw, _ := base64.RawURLEncoding.DecodeString(sig)
				sum := sha256.Sum256([]byte(signed))
				if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkIssue is the cost of signing one token (POST /connect/token adds
// the bcrypt check of the secret on top).
func BenchmarkIssue(b *testing.B) {
	tokens := NewTokens(testKeys(b), testIssuer, time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tokens.IssueForOperator("org-1", Scope); err != nil {
			b.Fatal(err)
		}
	}
}
