package oauth

import (
	"crypto/rsa"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Scope is the one scope the API knows; every operation needs it.
const Scope = "acxapi"

// ProvisioningScope is the scope of SCIM provisioning (/scim/v2).
const ProvisioningScope = "scim"

// MaxProvisioningLifetime is the longest life of a provisioning token
// (IssueForProvisioning): identity providers keep one bearer token, and
// cannot ask for a new one as API clients do.
const MaxProvisioningLifetime = 2 * 365 * 24 * time.Hour

// Claims are the claims of an Earshot access token (CONTRACT §2).
type Claims struct {
	Org   string `json:"org"`
	Scope string `json:"scope"`
	// Generation is the client's token generation when the token was
	// issued to an API client (IssueForClient); a token without it was
	// issued to the operator by this installation.
	Generation *int `json:"gen,omitempty"`
	jwt.RegisteredClaims
}

// HasScope tells whether the space-separated scope claim holds s.
func (c *Claims) HasScope(s string) bool {
	return slices.Contains(strings.Fields(c.Scope), s)
}

// Keys are the signing keys tokens are signed and verified with (a KeySet,
// or the Keyring of a catalog shared by several processes).
type Keys interface {
	Signing() Key
	Public(kid string) (*rsa.PublicKey, error)
}

// Tokens issues and verifies access tokens for one issuer URL.
type Tokens struct {
	keys   Keys
	issuer string
	ttl    time.Duration
	parser *jwt.Parser
	now    func() time.Time
}

// NewTokens makes a token service. issuer is the public base URL, written to
// and required in the iss claim.
func NewTokens(keys Keys, issuer string, ttl time.Duration) *Tokens {
	t := &Tokens{keys: keys, issuer: issuer, ttl: ttl, now: time.Now}
	t.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{signingAlg}), // refuses alg "none", HS256 with the public key, …
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(func() time.Time { return t.now() }),
	)
	return t
}

// TTL is the lifetime of the tokens issued.
func (t *Tokens) TTL() time.Duration { return t.ttl }

// OperatorSubject is the subject of the tokens the operator is given for
// an organization (earshot admin, earshot ingest): the only tokens
// without a client's token generation.
const OperatorSubject = "operator"

// IssueForOperator signs a token of an organization for the operator: no
// client state is checked for it.
func (t *Tokens) IssueForOperator(orgID, scope string) (string, error) {
	return t.issue(OperatorSubject, orgID, scope, nil)
}

// IssueForClient signs a token for an API client, under its current token
// generation: disabling the client, rotating its secret or deleting it
// ends the token.
func (t *Tokens) IssueForClient(client catalog.APIClient, scope string) (string, error) {
	gen := client.TokenGeneration
	return t.issue(client.ID, client.OrgID, scope, &gen)
}

// IssueForProvisioning signs a token of scope scim only, for an identity
// provider's provisioning (Okta, Entra ID), that lives for lifetime (at
// most MaxProvisioningLifetime) under the client's token generation: the
// client's rotation, disabling, deletion or new scopes end it.
func (t *Tokens) IssueForProvisioning(client catalog.APIClient, lifetime time.Duration) (string, error) {
	if lifetime <= 0 || lifetime > MaxProvisioningLifetime {
		return "", fmt.Errorf("a provisioning token lives for up to %d days", int(MaxProvisioningLifetime.Hours()/24))
	}
	gen := client.TokenGeneration
	return t.issueFor(client.ID, client.OrgID, ProvisioningScope, &gen, lifetime)
}

func (t *Tokens) issue(clientID, orgID, scope string, gen *int) (string, error) {
	return t.issueFor(clientID, orgID, scope, gen, t.ttl)
}

func (t *Tokens) issueFor(clientID, orgID, scope string, gen *int, lifetime time.Duration) (string, error) {
	now := t.now().UTC().Truncate(time.Second)
	claims := Claims{
		Org:        orgID,
		Scope:      scope,
		Generation: gen,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    t.issuer,
			Subject:   clientID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(lifetime)),
			ID:        uuid.Must(uuid.NewV7()).String(),
		},
	}
	key := t.keys.Signing()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = key.ID
	return tok.SignedString(key.Private)
}

// Verify checks a token's signature, algorithm, issuer and lifetime and
// returns its claims. A token this server would not have issued is
// refused even when its signature holds (a leaked key's forgeries): a
// lifetime longer than the server's (a client's provisioning token of scope
// scim alone: longer than MaxProvisioningLifetime), no issue time or token
// id, a client's token without its token generation. Every failure wraps
// ErrInvalidToken.
func (t *Tokens) Verify(token string) (*Claims, error) {
	var claims Claims
	_, err := t.parser.ParseWithClaims(token, &claims, func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		return t.keys.Public(kid)
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	switch {
	case claims.Subject == "" || claims.Org == "":
		return nil, fmt.Errorf("%w: no subject or organization", ErrInvalidToken)
	case claims.IssuedAt == nil || claims.ID == "":
		return nil, fmt.Errorf("%w: no issue time or token id", ErrInvalidToken)
	case claims.ExpiresAt.Sub(claims.IssuedAt.Time) > t.longestLife(&claims):
		return nil, fmt.Errorf("%w: a lifetime longer than this server issues", ErrInvalidToken)
	case claims.Generation == nil && claims.Subject != OperatorSubject:
		return nil, fmt.Errorf("%w: a client's token without its token generation", ErrInvalidToken)
	}
	return &claims, nil
}

// longestLife is the longest lifetime this server issues a token like
// claims: a client's provisioning token lives longer than the others.
func (t *Tokens) longestLife(claims *Claims) time.Duration {
	if claims.Scope == ProvisioningScope && claims.Generation != nil {
		return max(t.ttl, MaxProvisioningLifetime)
	}
	return t.ttl
}

// BearerToken extracts the token of an "Authorization: Bearer <token>"
// header (RFC 6750 §2.1: the scheme is case-insensitive, the token is
// b64token characters).
func BearerToken(header string) (string, error) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("%w: no Bearer credentials", ErrInvalidToken)
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || len(token) > 8192 || !isB64Token(token) {
		return "", fmt.Errorf("%w: malformed bearer token", ErrInvalidToken)
	}
	return token, nil
}

// isB64Token checks RFC 6750's b64token: 1*( ALPHA / DIGIT / "-" / "." /
// "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}
