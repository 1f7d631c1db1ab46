package oauth

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"
)

// NewClientID makes a client id: a random UUID, easy to paste and to log.
func NewClientID() string { return uuid.NewString() }

// NewClientSecret makes a client secret of 256 random bits.
func NewClientSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics on a broken source)
	return base64.RawURLEncoding.EncodeToString(b)
}

// maxSecretBytes is bcrypt's input limit; longer secrets are refused rather
// than silently truncated.
const maxSecretBytes = 72

// HashSecret returns the bcrypt hash stored for a secret.
func HashSecret(secret string) (string, error) {
	if secret == "" || len(secret) > maxSecretBytes {
		return "", errors.New("a client secret must be 1 to 72 bytes")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.DefaultCost)
	return string(h), err
}

// minPasswordBytes is the shortest console password.
const minPasswordBytes = 8

// HashPassword is a console password's bcrypt hash: a password has 8 to
// 72 bytes.
func HashPassword(password string) (string, error) {
	if len(password) < minPasswordBytes || len(password) > maxSecretBytes {
		return "", errors.New("a password needs 8 to 72 bytes")
	}
	return HashSecret(password)
}

// dummyHash is compared against when a client is unknown, so that an
// unknown client id costs the same time as a wrong secret. Made on first
// use: a bcrypt hash is a noticeable share of a CLI command's start.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("earshot-timing-equalizer"), bcrypt.DefaultCost)
	return h
})

// SpendComparison costs what a wrong secret's check costs, for a sign-in
// whose account is unknown: the answer's time tells nothing.
func SpendComparison(secret string) { bcrypt.CompareHashAndPassword(dummyHash(), []byte(secret)) }

// SecretMatches tells whether a secret (a client's, or a user's password)
// is the one a bcrypt hash was made from.
func SecretMatches(hash, secret string) bool {
	if len(secret) > maxSecretBytes {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(secret)) == nil
}
