package catalog

import "errors"

var (
	// ErrNotFound: no row with that key (in that organization).
	ErrNotFound = errors.New("catalog: not found")
	// ErrExists: a row with that unique key already exists.
	ErrExists = errors.New("catalog: already exists")
)
