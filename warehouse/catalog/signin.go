package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Console sign-in: users' passwords, and the sessions of signed-in users.
// Failed sign-ins are bounded by the secret guard (internal/secretguard),
// in memory: the users table's failed_sign_ins and locked_until columns of
// an earlier release are no longer read.

// SignInState is what signing a user in needs to know.
type SignInState struct {
	User         User
	PasswordHash *string // nil: the user has no password (cannot sign in)
}

// SignInState reads the user of an organization (by their names) who is
// signing in.
func (c *PeopleStore) SignInState(ctx context.Context, orgName, userName string) (SignInState, error) {
	org, err := c.orgNamed(ctx, orgName)
	if err != nil {
		return SignInState{}, err
	}
	u, err := c.UserByName(ctx, org, userName)
	if err != nil {
		return SignInState{}, err
	}
	st := SignInState{User: u}
	err = c.db.QueryRowContext(ctx, `SELECT password_hash FROM users WHERE org_id = ? AND id = ?`, org, u.ID).Scan(&st.PasswordHash)
	return st, err
}

// SetPassword gives a user a password (its bcrypt hash) and ends the
// user's sessions.
func (c *PeopleStore) SetPassword(ctx context.Context, orgID, userID, hash string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, modified_on = ?
			WHERE org_id = ? AND id = ?`, hash, now(), orgID, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE org_id = ? AND user_id = ?`, orgID, userID)
		return err
	})
}

// Session is a signed-in user's session.
type Session struct {
	TokenHash string
	OrgID     string
	UserID    string
	CSRF      string // what the session's forms carry
	CreatedOn time.Time
	ExpiresOn time.Time
}

// StartSession records a sign-in: the session and the user's last login.
func (c *PeopleStore) StartSession(ctx context.Context, s Session) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET last_login = ? WHERE org_id = ? AND id = ?`,
			now(), s.OrgID, s.UserID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token_hash, org_id, user_id, csrf_token, created_on, expires_on) VALUES (?, ?, ?, ?, ?, ?)`,
			s.TokenHash, s.OrgID, s.UserID, s.CSRF, stamp(s.CreatedOn), stamp(s.ExpiresOn))
		return err
	})
}

// Session is the live session of a token hash (ErrNotFound when none, or
// expired).
func (c *PeopleStore) Session(ctx context.Context, tokenHash string) (Session, error) {
	var s Session
	err := c.db.QueryRowContext(ctx, `SELECT token_hash, org_id, user_id, csrf_token, created_on, expires_on FROM sessions
		WHERE token_hash = ? AND expires_on > ?`, tokenHash, now()).Scan(&s.TokenHash, &s.OrgID, &s.UserID, &s.CSRF, &s.CreatedOn, &s.ExpiresOn)
	if errors.Is(err, sql.ErrNoRows) {
		return s, ErrNotFound
	}
	return s, err
}

// RenewSession moves a live session's end to expiresOn (a session in
// use); an ended session stays ended.
func (c *PeopleStore) RenewSession(ctx context.Context, tokenHash string, expiresOn time.Time) error {
	_, err := c.exec(ctx, `UPDATE sessions SET expires_on = ? WHERE token_hash = ? AND expires_on > ?`, stamp(expiresOn), tokenHash, now())
	return err
}

// EndSession signs a session out (and sweeps the expired ones).
func (c *PeopleStore) EndSession(ctx context.Context, tokenHash string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ? OR expires_on <= ?`, tokenHash, now())
		return err
	})
}

// orgNamed is the id of the organization of a name, case-insensitively.
func (c *PeopleStore) orgNamed(ctx context.Context, name string) (string, error) {
	var org string
	err := c.db.QueryRowContext(ctx, `SELECT id FROM organizations WHERE lower(name) = lower(?)`, name).Scan(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return org, err
}

// SingleSignOnUser is the user of an organization (by name) whom an
// identity provider's claim names: by e-mail address when byEmail, else
// by user name.
func (c *PeopleStore) SingleSignOnUser(ctx context.Context, orgName, value string, byEmail bool) (User, error) {
	org, err := c.orgNamed(ctx, orgName)
	if err != nil {
		return User{}, err
	}
	if byEmail {
		return c.UserByEmail(ctx, org, value)
	}
	return c.UserByName(ctx, org, value)
}
