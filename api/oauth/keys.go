// Package oauth issues and verifies Earshot's access tokens (OAuth 2.0
// client credentials, RFC 6749 §4.4): RS256-signed JWTs whose keys live in
// the catalog, shared by every process on it, and are published as a JWKS.
package oauth

import (
	"context"
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
	"sync"
	"sync/atomic"
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

// KeySet is a set of signing keys: the newest signs; all of them verify and
// are published, so a new key can be added without invalidating live
// tokens.
type KeySet struct {
	signing Key
	byID    map[string]*rsa.PublicKey
	jwks    jose.JSONWebKeySet
}

// NewKeySet makes a set of keys given oldest first (the last one signs).
func NewKeySet(keys []Key) (*KeySet, error) {
	if len(keys) == 0 {
		return nil, errors.New("no signing key")
	}
	ks := &KeySet{byID: map[string]*rsa.PublicKey{}, signing: keys[len(keys)-1]}
	for _, key := range keys {
		ks.byID[key.ID] = &key.Private.PublicKey
		ks.jwks.Keys = append(ks.jwks.Keys, jose.JSONWebKey{
			Key: &key.Private.PublicKey, KeyID: key.ID, Algorithm: signingAlg, Use: "sig",
		})
	}
	return ks, nil
}

// GenerateKey makes a new RSA signing key and its PKCS #8 PEM text.
func GenerateKey() (Key, string, error) {
	priv, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return Key{}, "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return Key{}, "", err
	}
	key, err := keyOf(priv)
	return key, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), err
}

// ParseKey reads a PEM private key (PKCS #8, or PKCS #1 as older tools
// write it).
func ParseKey(text string) (Key, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return Key{}, errors.New("no PEM block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
			return Key{}, err
		}
	}
	priv, ok := parsed.(*rsa.PrivateKey)
	if !ok {
		return Key{}, errors.New("not an RSA key")
	}
	return keyOf(priv)
}

func keyOf(priv *rsa.PrivateKey) (Key, error) {
	thumb, err := (&jose.JSONWebKey{Key: &priv.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		return Key{}, err
	}
	return Key{ID: base64.RawURLEncoding.EncodeToString(thumb), Private: priv}, nil
}

// KeyFile is a signing key file of the releases that kept the keys in
// DATA/keys: its key id, PEM text and when it was made (from its name).
type KeyFile struct {
	ID        string
	PEM       string
	CreatedOn time.Time
}

// ReadKeyFiles reads the DIR/*.pem key files of earlier releases, oldest
// first (their names start with their creation time); none when dir does
// not exist.
func ReadKeyFiles(dir string) ([]KeyFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.pem"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []KeyFile
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		key, err := ParseKey(string(data))
		if err != nil {
			return nil, fmt.Errorf("signing key %s: %w", name, err)
		}
		made, err := time.Parse("20060102T150405.000000000Z", strings.TrimSuffix(filepath.Base(name), ".pem"))
		if err != nil {
			st, serr := os.Stat(name)
			if serr != nil {
				return nil, serr
			}
			made = st.ModTime()
		}
		out = append(out, KeyFile{ID: key.ID, PEM: string(data), CreatedOn: made.UTC()})
	}
	return out, nil
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

// Keyring is the current key set of a store shared by several processes:
// reloaded when the store announces a change (Reload), and when a token
// names a key it does not know (at most once per missReloadEvery), so a
// token signed by a key another process just added verifies here too.
type Keyring struct {
	load func(ctx context.Context) ([]Key, error)
	set  atomic.Pointer[KeySet]

	mu       sync.Mutex
	lastMiss time.Time
}

// missReloadEvery bounds the reloads that unknown key ids cause: a client
// sending made-up ids cannot make every request read the store.
const missReloadEvery = time.Second

// NewKeyring loads the keys (oldest first) once and keeps load for reloads.
func NewKeyring(ctx context.Context, load func(ctx context.Context) ([]Key, error)) (*Keyring, error) {
	k := &Keyring{load: load}
	return k, k.Reload(ctx)
}

// Reload reads the keys again.
func (k *Keyring) Reload(ctx context.Context) error {
	keys, err := k.load(ctx)
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	set, err := NewKeySet(keys)
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	k.set.Store(set)
	return nil
}

// Signing is the key new tokens are signed with.
func (k *Keyring) Signing() Key { return k.set.Load().Signing() }

// JWKS is the public key set served at /.well-known/jwks.json.
func (k *Keyring) JWKS() jose.JSONWebKeySet { return k.set.Load().JWKS() }

// Public returns the verification key of a key id, reloading the keys once
// when the id is unknown.
func (k *Keyring) Public(kid string) (*rsa.PublicKey, error) {
	pub, err := k.set.Load().Public(kid)
	if err == nil {
		return pub, nil
	}
	k.mu.Lock()
	reload := time.Since(k.lastMiss) >= missReloadEvery
	if reload {
		k.lastMiss = time.Now()
	}
	k.mu.Unlock()
	if !reload {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if rerr := k.Reload(ctx); rerr != nil {
		return nil, errors.Join(err, rerr)
	}
	return k.set.Load().Public(kid)
}
