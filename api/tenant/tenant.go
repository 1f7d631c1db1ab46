// Package tenant carries the authenticated caller through a request's
// context. Every catalog or lake query of an API handler takes the caller's
// organization from here, so no handler can forget to scope by tenant.
package tenant

import (
	"context"

	"github.com/earshot/earshot/internal/app/access"
)

// Principal is who made the request.
type Principal struct {
	ClientID string
	OrgID    string
	Scope    string
	// Actor is who the request acts as: the user the client acts for
	// (X-Earshot-User), else the organization itself.
	Actor access.Actor
}

type key struct{}

// With returns ctx carrying p.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, key{}, p)
}

// From returns the principal of ctx, and false on an unauthenticated request.
func From(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(key{}).(Principal)
	return p, ok && p.OrgID != ""
}
