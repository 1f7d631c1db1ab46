package oauth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/earshot/earshot/warehouse/catalog"
)

const testIssuer = "http://earshot.test"

var (
	sharedKeysOnce sync.Once
	sharedKeys     *KeySet
)

// testKeys shares one generated key across the package's tests: RSA key
// generation is the slow part, not what is under test.
func testKeys(t testing.TB) *KeySet {
	sharedKeysOnce.Do(func() {
		dir, _ := os.MkdirTemp("", "earshot-keys")
		defer os.RemoveAll(dir) // the keys live in memory once loaded
		var err error
		if sharedKeys, err = LoadOrCreateKeys(dir); err != nil {
			t.Fatal(err)
		}
	})
	return sharedKeys
}

func TestKeysPersistAndRotate(t *testing.T) {
	dir := t.TempDir()
	first, err := LoadOrCreateKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pem"))
	if len(files) != 1 {
		t.Fatalf("%d key files", len(files))
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	again, err := LoadOrCreateKeys(dir)
	if err != nil || again.Signing().ID != first.Signing().ID {
		t.Fatalf("reload changed the key: %v", err)
	}
	token, _ := NewTokens(first, testIssuer, time.Hour).Issue("c", "o", Scope)

	// Rotation: a newer key signs, the old one still verifies.
	time.Sleep(2 * time.Millisecond)
	if _, err := createKey(dir); err != nil {
		t.Fatal(err)
	}
	rotated, err := LoadOrCreateKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Signing().ID == first.Signing().ID || len(rotated.JWKS().Keys) != 2 {
		t.Fatalf("rotation: signing %s, %d keys", rotated.Signing().ID, len(rotated.JWKS().Keys))
	}
	if _, err := NewTokens(rotated, testIssuer, time.Hour).Verify(token); err != nil {
		t.Fatalf("token of the old key refused after rotation: %v", err)
	}
}

func TestIssueAndVerify(t *testing.T) {
	tokens := NewTokens(testKeys(t), testIssuer, time.Hour)
	token, err := tokens.Issue("client-1", "org-1", Scope)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := tokens.Verify(token)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != "client-1" || claims.Org != "org-1" || !claims.HasScope(Scope) ||
		claims.Issuer != testIssuer || claims.ID == "" || claims.IssuedAt == nil ||
		claims.ExpiresAt.Sub(claims.IssuedAt.Time) != time.Hour {
		t.Fatalf("claims = %+v", claims)
	}
	hdr, _, _ := jwt.NewParser().ParseUnverified(token, &Claims{})
	if hdr.Header["kid"] != testKeys(t).Signing().ID || hdr.Header["alg"] != "RS256" {
		t.Fatalf("header = %v", hdr.Header)
	}
}

func TestVerifyRejects(t *testing.T) {
	keys := testKeys(t)
	tokens := NewTokens(keys, testIssuer, time.Hour)
	valid, _ := tokens.Issue("c", "o", Scope)
	parts := strings.Split(valid, ".")

	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	sign := func(method jwt.SigningMethod, key any, claims jwt.Claims, kid string) string {
		tok := jwt.NewWithClaims(method, claims)
		tok.Header["kid"] = kid
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	good := func() *Claims {
		return &Claims{Org: "o", Scope: Scope, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: testIssuer, Subject: "c", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
		}}
	}
	expired := good()
	expired.IssuedAt = jwt.NewNumericDate(now.Add(-2 * time.Hour))
	expired.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Second))
	wrongIssuer := good()
	wrongIssuer.Issuer = "http://evil.test"
	noExpiry := good()
	noExpiry.ExpiresAt = nil
	noOrg := good()
	noOrg.Org = ""
	future := good()
	future.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour))
	pubDER := keys.Signing().Private.PublicKey.N.Bytes()
	kid := keys.Signing().ID

	cases := map[string]string{
		"empty":                "",
		"garbage":              "not-a-jwt",
		"two parts":            parts[0] + "." + parts[1],
		"tampered payload":     parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"admin","org":"other"}`)) + "." + parts[2],
		"bad signature":        parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-4] + "AAAA",
		"alg none":             sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good(), kid),
		"HS256 with pub key":   sign(jwt.SigningMethodHS256, pubDER, good(), kid),
		"other key, our kid":   sign(jwt.SigningMethodRS256, otherKey, good(), kid),
		"other key, no kid":    sign(jwt.SigningMethodRS256, otherKey, good(), ""),
		"expired":              sign(jwt.SigningMethodRS256, keys.Signing().Private, expired, kid),
		"wrong issuer":         sign(jwt.SigningMethodRS256, keys.Signing().Private, wrongIssuer, kid),
		"no expiry":            sign(jwt.SigningMethodRS256, keys.Signing().Private, noExpiry, kid),
		"no organization":      sign(jwt.SigningMethodRS256, keys.Signing().Private, noOrg, kid),
		"issued in the future": sign(jwt.SigningMethodRS256, keys.Signing().Private, future, kid),
	}
	for name, token := range cases {
		if _, err := tokens.Verify(token); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: Verify = %v, want ErrInvalidToken", name, err)
		}
	}
	// And the control: the same helper with our key and good claims passes.
	if _, err := tokens.Verify(sign(jwt.SigningMethodRS256, keys.Signing().Private, good(), kid)); err != nil {
		t.Fatalf("control token refused: %v", err)
	}
}

func TestBearerToken(t *testing.T) {
	cases := []struct {
		header, want string
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi"},
		{"bearer abc.def.ghi", "abc.def.ghi"},
		{"BEARER  abc-_~+/==", "abc-_~+/=="},
		{"", ""},
		{"Bearer", ""},
		{"Bearer ", ""},
		{"Basic dXNlcjpwYXNz", ""},
		{"Bearer abc def", ""},
		{"Bearer ===", ""},
		{"Bearer a=b", ""},
		{"Bearer tok\x00en", ""},
		{"Bearer " + strings.Repeat("a", 9000), ""},
		{"Token abc", ""},
	}
	for _, c := range cases {
		got, err := BearerToken(c.header)
		if c.want == "" {
			if !errors.Is(err, ErrInvalidToken) {
				t.Errorf("BearerToken(%q) = %q, %v; want ErrInvalidToken", c.header, got, err)
			}
		} else if got != c.want || err != nil {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", c.header, got, err, c.want)
		}
	}
}

type mapStore map[string]catalog.APIClient

func (m mapStore) Client(_ context.Context, id string) (catalog.APIClient, error) {
	if c, ok := m[id]; ok {
		return c, nil
	}
	return catalog.APIClient{}, catalog.ErrNotFound
}

func TestAuthenticate(t *testing.T) {
	hash, err := HashSecret("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	store := mapStore{
		"good":     {ID: "good", OrgID: "o", SecretHash: hash},
		"disabled": {ID: "disabled", OrgID: "o", SecretHash: hash, Disabled: true},
	}
	ctx := context.Background()
	if c, err := Authenticate(ctx, store, "good", "s3cret"); err != nil || c.OrgID != "o" {
		t.Fatalf("good client: %+v, %v", c, err)
	}
	for name, creds := range map[string][2]string{
		"wrong secret": {"good", "nope"},
		"empty secret": {"good", ""},
		"long secret":  {"good", "s3cret" + strings.Repeat("x", 100)},
		"unknown":      {"nobody", "s3cret"},
		"disabled":     {"disabled", "s3cret"},
	} {
		if _, err := Authenticate(ctx, store, creds[0], creds[1]); !errors.Is(err, ErrInvalidClient) {
			t.Errorf("%s: %v, want ErrInvalidClient", name, err)
		}
	}
	if _, err := HashSecret(strings.Repeat("x", 73)); err == nil {
		t.Error("HashSecret accepted a secret bcrypt would truncate")
	}
}

// FuzzBearer feeds arbitrary Authorization headers through the bearer
// parser and the verifier: nothing may panic, and anything accepted must be
// exactly the token that was issued.
func FuzzBearer(f *testing.F) {
	tokens := NewTokens(testKeys(f), testIssuer, time.Hour)
	valid, _ := tokens.Issue("client-1", "org-1", Scope)
	for _, seed := range []string{
		"Bearer " + valid, "bearer " + valid, "Bearer", "Bearer ", "Basic Zm9vOmJhcg==",
		"Bearer " + valid + "x", "Bearer a.b.c", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, err := BearerToken(header)
		if err != nil {
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("BearerToken error does not wrap ErrInvalidToken: %v", err)
			}
			return
		}
		claims, err := tokens.Verify(token)
		if err != nil {
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify error does not wrap ErrInvalidToken: %v", err)
			}
			return
		}
		if claims.Subject != "client-1" || claims.Org != "org-1" {
			t.Fatalf("accepted a token with forged claims: %+v", claims)
		}
	})
}
