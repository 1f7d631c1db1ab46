// Package starter is the example set of classifiers an organization can
// begin with (`earshot admin classifiers import ORG --starter`, and the
// demo): greeting, identity verification, escalation request,
// cancellation intent, empathy statements, dead air, PII spoken and
// negative customer sentiment. classifiers.json is its documentation: each
// entry says what it finds.
package starter

import (
	_ "embed"
	"encoding/json"
)

// JSON is the starter set, as `earshot admin classifiers import` reads it.
//
//go:embed classifiers.json
var JSON []byte

// Spec is one classifier of an import file: the fields of
// POST /Conversations/Classifiers.
type Spec struct {
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	ClassifierType string          `json:"classifierType"`
	CategoryName   string          `json:"categoryName"`
	Reportable     bool            `json:"reportable"`
	Groupable      bool            `json:"groupable"`
	Definition     json.RawMessage `json:"definition"`
}

// Parse reads an import file: a JSON array of specs.
func Parse(data []byte) ([]Spec, error) {
	var specs []Spec
	if err := json.Unmarshal(data, &specs); err != nil {
		return nil, err
	}
	return specs, nil
}
