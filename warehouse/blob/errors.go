package blob

import "errors"

var (
	// ErrNotFound: no object with that key.
	ErrNotFound = errors.New("blob: object not found")
	// ErrExists: a create-only write found the key taken.
	ErrExists = errors.New("blob: object already exists")
	// ErrInvalidKey: the key breaks the rules of the package comment.
	ErrInvalidKey = errors.New("blob: invalid key")
)
