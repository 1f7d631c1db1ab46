package catalog

import "errors"

var (
	// ErrNotFound: no row with that key (in that organization).
	ErrNotFound = errors.New("catalog: not found")
	// ErrExists: a row with that unique key already exists.
	ErrExists = errors.New("catalog: already exists")
)

// ErrInvalid: a value breaks a rule (a reference to nothing, a cycle, ...).
var ErrInvalid = errors.New("catalog: invalid value")

// FieldError ties an error to the request field it comes from, so the API
// can name the field. Err is ErrExists, ErrInvalid or ErrNotFound.
type FieldError struct {
	Field   string
	Message string
	Err     error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error, message string) error {
	return &FieldError{Field: field, Message: message, Err: err}
}
