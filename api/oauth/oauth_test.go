package oauth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
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
		key, _, err := GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if sharedKeys, err = NewKeySet([]Key{key}); err != nil {
			t.Fatal(err)
		}
	})
	return sharedKeys
}

// TestKeyringRotation: two processes' keyrings over one store. A key added
// to the store signs on the process that reloaded, and the other verifies
// its tokens before it was told (an unknown key id reloads, at most once a
// second); tokens of the old key still verify; both publish the same JWKS.
func TestKeyringRotation(t *testing.T) {
	ctx := context.Background()
	first, firstPEM, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	store := []string{firstPEM}
	loads := 0
	load := func(context.Context) ([]Key, error) {
		mu.Lock()
		defer mu.Unlock()
		loads++
		var keys []Key
		for _, text := range store {
			k, err := ParseKey(text)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		return keys, nil
	}
	a, err := NewKeyring(ctx, load)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewKeyring(ctx, load)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := NewTokens(a, testIssuer, time.Hour).IssueForOperator("o", Scope)

	second, secondPEM, _ := GenerateKey()
	mu.Lock()
	store = append(store, secondPEM)
	mu.Unlock()
	if err := a.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Signing().ID != second.ID || b.Signing().ID != first.ID {
		t.Fatalf("signing: A %s, B %s", a.Signing().ID, b.Signing().ID)
	}
	fresh, _ := NewTokens(a, testIssuer, time.Hour).IssueForOperator("o", Scope)
	for name, tok := range map[string]string{"the new key's token": fresh, "the old key's token": old} {
		if _, err := NewTokens(b, testIssuer, time.Hour).Verify(tok); err != nil {
			t.Fatalf("%s refused by the other process: %v", name, err)
		}
	}
	if ja, jb := a.JWKS(), b.JWKS(); len(ja.Keys) != 2 || len(jb.Keys) != 2 || ja.Keys[1].KeyID != jb.Keys[1].KeyID {
		t.Fatalf("JWKS differ: %d and %d keys", len(ja.Keys), len(jb.Keys))
	}
	mu.Lock()
	before := loads
	mu.Unlock()
	for range 20 {
		if _, err := b.Public("made-up"); err == nil {
			t.Fatal("a made-up key id verified")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if loads-before > 1 {
		t.Fatalf("20 unknown key ids within a second read the store %d times", loads-before)
	}
}

// TestReadKeyFiles reads the key files of earlier releases, oldest first.
func TestReadKeyFiles(t *testing.T) {
	dir := t.TempDir()
	if files, err := ReadKeyFiles(filepath.Join(dir, "none")); err != nil || len(files) != 0 {
		t.Fatalf("no directory: %v %v", files, err)
	}
	_, newer, _ := GenerateKey()
	older := pemOf(testKeys(t).Signing())
	os.WriteFile(filepath.Join(dir, "20261001T120000.000000000Z.pem"), []byte(newer), 0o600)
	os.WriteFile(filepath.Join(dir, "20250101T000000.000000000Z.pem"), []byte(older), 0o600)
	files, err := ReadKeyFiles(dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("%d files: %v", len(files), err)
	}
	if files[0].PEM != older || files[1].CreatedOn != time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC) {
		t.Fatalf("order or time: %v", files[1].CreatedOn)
	}
	os.WriteFile(filepath.Join(dir, "broken.pem"), []byte("not a key"), 0o600)
	if _, err := ReadKeyFiles(dir); err == nil || !strings.Contains(err.Error(), "broken.pem") {
		t.Fatalf("a broken file: %v", err)
	}
}

// pemOf is a key's PKCS #1 PEM text, as older tools write it.
func pemOf(k Key) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k.Private)}))
}

func TestIssueAndVerify(t *testing.T) {
	tokens := NewTokens(testKeys(t), testIssuer, time.Hour)
	token, err := tokens.IssueForOperator("org-1", Scope)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := tokens.Verify(token)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != OperatorSubject || claims.Org != "org-1" || !claims.HasScope(Scope) ||
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
	valid, _ := tokens.IssueForOperator("o", Scope)
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
	generation := 3
	good := func() *Claims {
		return &Claims{Org: "o", Scope: Scope, Generation: &generation, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: testIssuer, Subject: "c", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)), ID: "t-1",
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
	// Claims this server never issues, even signed with its key.
	century := good()
	century.ExpiresAt = jwt.NewNumericDate(now.AddDate(100, 0, 0))
	longer := good()
	longer.ExpiresAt = jwt.NewNumericDate(now.Add(time.Hour + time.Second))
	noGeneration := good()
	noGeneration.Generation = nil
	noIssueTime := good()
	noIssueTime.IssuedAt = nil
	noID := good()
	noID.ID = ""
	// A provisioning token lives long only with scope scim alone, a
	// client's generation, and within the longest provisioning life.
	provisioning := func(scope string, life time.Duration, gen *int) *Claims {
		c := good()
		c.Scope, c.Generation, c.ExpiresAt = scope, gen, jwt.NewNumericDate(now.Add(life))
		return c
	}
	year := 365 * 24 * time.Hour
	pubDER := keys.Signing().Private.PublicKey.N.Bytes()
	kid := keys.Signing().ID

	cases := map[string]string{
		"empty":                                 "",
		"garbage":                               "not-a-jwt",
		"two parts":                             parts[0] + "." + parts[1],
		"tampered payload":                      parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"admin","org":"other"}`)) + "." + parts[2],
		"bad signature":                         parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-4] + "AAAA",
		"alg none":                              sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good(), kid),
		"HS256 with pub key":                    sign(jwt.SigningMethodHS256, pubDER, good(), kid),
		"other key, our kid":                    sign(jwt.SigningMethodRS256, otherKey, good(), kid),
		"other key, no kid":                     sign(jwt.SigningMethodRS256, otherKey, good(), ""),
		"expired":                               sign(jwt.SigningMethodRS256, keys.Signing().Private, expired, kid),
		"wrong issuer":                          sign(jwt.SigningMethodRS256, keys.Signing().Private, wrongIssuer, kid),
		"no expiry":                             sign(jwt.SigningMethodRS256, keys.Signing().Private, noExpiry, kid),
		"no organization":                       sign(jwt.SigningMethodRS256, keys.Signing().Private, noOrg, kid),
		"issued in the future":                  sign(jwt.SigningMethodRS256, keys.Signing().Private, future, kid),
		"a 100-year lifetime":                   sign(jwt.SigningMethodRS256, keys.Signing().Private, century, kid),
		"a second too long":                     sign(jwt.SigningMethodRS256, keys.Signing().Private, longer, kid),
		"a client without its token generation": sign(jwt.SigningMethodRS256, keys.Signing().Private, noGeneration, kid),
		"no issue time":                         sign(jwt.SigningMethodRS256, keys.Signing().Private, noIssueTime, kid),
		"no token id":                           sign(jwt.SigningMethodRS256, keys.Signing().Private, noID, kid),
		"a year-long token of the API":          sign(jwt.SigningMethodRS256, keys.Signing().Private, provisioning(Scope, year, &generation), kid),
		"a year-long token of scim and the API": sign(jwt.SigningMethodRS256, keys.Signing().Private, provisioning("scim acxapi", year, &generation), kid),
		"a year-long scim token of no client":   sign(jwt.SigningMethodRS256, keys.Signing().Private, provisioning("scim", year, nil), kid),
		"a scim token past the longest life":    sign(jwt.SigningMethodRS256, keys.Signing().Private, provisioning("scim", MaxProvisioningLifetime+time.Second, &generation), kid),
	}
	for name, token := range cases {
		if _, err := tokens.Verify(token); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: Verify = %v, want ErrInvalidToken", name, err)
		}
	}
	// And the controls: the same helper with our key and good claims
	// passes, and so does the operator's token, which has no generation.
	operator := good()
	operator.Subject, operator.Generation = OperatorSubject, nil
	for _, claims := range []*Claims{good(), operator, provisioning("scim", MaxProvisioningLifetime, &generation)} {
		if _, err := tokens.Verify(sign(jwt.SigningMethodRS256, keys.Signing().Private, claims, kid)); err != nil {
			t.Fatalf("control token %s refused: %v", claims.Subject, err)
		}
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
	valid, _ := tokens.IssueForOperator("org-1", Scope)
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
		if claims.Subject != OperatorSubject || claims.Org != "org-1" {
			t.Fatalf("accepted a token with forged claims: %+v", claims)
		}
	})
}
