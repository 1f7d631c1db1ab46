// Package oauth issues and verifies Earshot's access tokens (OAuth 2.0
// client credentials, RFC 6749 §4.4): RS256-signed JWTs whose keys live in
// the data directory and are published as a JWKS.
package oauth

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// signingAlg is RS256: every JWT library and every API gateway verifies it.
const signingAlg = "RS256"

const rsaBits = 2048

// Key is one signing key with its key id (its RFC 7638 thumbprint).
type Key struct {
	ID      string
	Private *rsa.PrivateKey
}

// KeySet is the signing keys in KEYDIR/*.pem. The newest (by file name,
// which starts with its creation time) signs; all of them verify and are
// published, so a new key can be added without invalidating live tokens.
type KeySet struct {
	signing Key
	byID    map[string]*rsa.PublicKey
	jwks    jose.JSONWebKeySet
}

// LoadOrCreateKeys reads the keys in dir, creating dir and a first key when
// there is none.
func LoadOrCreateKeys(dir string) (*KeySet, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.pem"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		name, err := createKey(dir)
		if err != nil {
			return nil, fmt.Errorf("create signing key: %w", err)
		}
		names = []string{name}
	}
	sort.Strings(names)
	ks := &KeySet{byID: map[string]*rsa.PublicKey{}}
	for _, name := range names {
		key, err := readKey(name)
		if err != nil {
			return nil, err
		}
		ks.signing = key // sorted: the last one read is the newest
		ks.byID[key.ID] = &key.Private.PublicKey
		ks.jwks.Keys = append(ks.jwks.Keys, jose.JSONWebKey{
			Key: &key.Private.PublicKey, KeyID: key.ID, Algorithm: signingAlg, Use: "sig",
		})
	}
	return ks, nil
}

// createKey writes a new RSA key, mode 0600, named by its creation time.
func createKey(dir string) (string, error) {
	priv, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, time.Now().UTC().Format("20060102T150405.000000000Z")+".pem")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	return name, f.Close()
}

func readKey(name string) (Key, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return Key{}, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return Key{}, fmt.Errorf("signing key %s: no PEM block", name)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
			return Key{}, fmt.Errorf("signing key %s: %w", name, err)
		}
	}
	priv, ok := parsed.(*rsa.PrivateKey)
	if !ok {
		return Key{}, fmt.Errorf("signing key %s: not an RSA key", name)
	}
	thumb, err := (&jose.JSONWebKey{Key: &priv.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		return Key{}, err
	}
	return Key{ID: base64.RawURLEncoding.EncodeToString(thumb), Private: priv}, nil
}

// Signing is the key new tokens are signed with.
func (ks *KeySet) Signing() Key { return ks.signing }

// Public returns the verification key of a key id.
func (ks *KeySet) Public(kid string) (*rsa.PublicKey, error) {
	if pub, ok := ks.byID[kid]; ok {
		return pub, nil
	}
	return nil, errors.New("unknown key id " + strings.ToValidUTF8(kid, "?"))
}

// JWKS is the public key set served at /.well-known/jwks.json.
func (ks *KeySet) JWKS() jose.JSONWebKeySet { return ks.jwks }
