// Package invalid is the one error of input that breaks a rule. A use
// case, or the domain or store under it, answers a *Field naming what is
// wrong; each door renders it one way: the API as the contract's 400
// problem (errors[Path] holds Message, detail is the Sentence), the
// console as the form's message, the admin socket and the CLI as its text.
package invalid

import "errors"

// Field is input that breaks a rule.
type Field struct {
	// Path is the field, such as "modules[0].questions[2].weight"; "" when
	// the input as a whole is wrong.
	Path string
	// Message is what is wrong with the field.
	Message string
	// Detail is the sentence for the whole input; "" reads Path and
	// Message together.
	Detail string
	// Err is the kind of rule broken, for errors.Is (a store's "exists" or
	// "not found"); nil when only the message tells.
	Err error
}

// At is a mistake at a field.
func At(path, message string) *Field { return &Field{Path: path, Message: message} }

// Sentence tells the whole mistake.
func (e *Field) Sentence() string {
	switch {
	case e.Detail != "":
		return e.Detail
	case e.Path == "":
		return e.Message
	}
	return e.Path + " " + e.Message
}

func (e *Field) Error() string { return e.Sentence() }
func (e *Field) Unwrap() error { return e.Err }

// As is the *Field in err's chain, if any.
func As(err error) (*Field, bool) {
	var f *Field
	ok := errors.As(err, &f)
	return f, ok
}
