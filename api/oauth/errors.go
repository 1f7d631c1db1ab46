package oauth

import "errors"

var (
	// ErrInvalidClient: unknown client, wrong secret or disabled client.
	// One error for all three so that callers cannot tell them apart.
	ErrInvalidClient = errors.New("invalid client credentials")
	// ErrInvalidToken: a bearer token that is missing, malformed, expired,
	// badly signed or not ours.
	ErrInvalidToken = errors.New("invalid token")
)
