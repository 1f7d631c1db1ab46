package catalog

import (
	"errors"

	"github.com/earshot/earshot/internal/invalid"
)

var (
	// ErrNotFound: no row with that key (in that organization).
	ErrNotFound = errors.New("catalog: not found")
	// ErrExists: a row with that unique key already exists.
	ErrExists = errors.New("catalog: already exists")
)

// ErrInvalid: a value breaks a rule (a reference to nothing, a cycle, ...).
var ErrInvalid = errors.New("catalog: invalid value")

// fieldErr ties a broken rule to the request field it comes from, so
// every door can name the field; err is ErrExists, ErrInvalid or
// ErrNotFound, and the message is the whole sentence.
func fieldErr(field string, err error, message string) error {
	return &invalid.Field{Path: field, Message: message, Detail: message, Err: err}
}
