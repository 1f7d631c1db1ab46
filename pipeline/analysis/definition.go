package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Object is one JSON object of a definition, read strictly: keys match in
// any casing (as request keys do), unknown keys are errors, and every
// error names its path.
type Object struct {
	Path   string
	fields map[string]any // lower-cased key → value
	names  map[string]string
}

// Decode reads a definition: a JSON object.
func Decode(raw []byte, path string) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Invalid("must be a JSON object: "+err.Error(), path)
	}
	if dec.More() {
		return nil, Invalid("must be one JSON object", path)
	}
	return asObject(v, path)
}

func asObject(v any, path string) (*Object, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, Invalid("must be an object", path)
	}
	o := &Object{Path: path, fields: make(map[string]any, len(m)), names: make(map[string]string, len(m))}
	for k, v := range m {
		lk := strings.ToLower(k)
		if _, dup := o.fields[lk]; dup {
			return nil, Invalid("is given twice", path, k)
		}
		o.fields[lk], o.names[lk] = v, k
	}
	return o, nil
}

// Allow reports the first key that is not one of keys.
func (o *Object) Allow(keys ...string) error {
	var unknown []string
	for lk, name := range o.names {
		if !slices.ContainsFunc(keys, func(k string) bool { return strings.ToLower(k) == lk }) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return Invalid(fmt.Sprintf("unknown field (known: %s)", strings.Join(keys, ", ")), o.Path, unknown[0])
}

// Has reports whether key is present (and not null).
func (o *Object) Has(key string) bool {
	v, ok := o.fields[strings.ToLower(key)]
	return ok && v != nil
}

func (o *Object) get(key string) (any, bool) {
	v, ok := o.fields[strings.ToLower(key)]
	return v, ok && v != nil
}

// String is a string field; def when absent; when oneOf is given the value
// must be one of them (matched in any casing, returned as listed).
func (o *Object) String(key, def string, oneOf ...string) (string, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", Invalid("must be a string", o.Path, key)
	}
	if len(oneOf) == 0 {
		return s, nil
	}
	for _, want := range oneOf {
		if strings.EqualFold(s, want) {
			return want, nil
		}
	}
	return "", Invalid(fmt.Sprintf("must be one of %s", strings.Join(oneOf, ", ")), o.Path, key)
}

// Bool is a boolean field (false when absent).
func (o *Object) Bool(key string) (bool, error) {
	v, ok := o.get(key)
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, Invalid("must be true or false", o.Path, key)
	}
	return b, nil
}

// Number is a numeric field within [lo, hi]; nil when absent.
func (o *Object) Number(key string, lo, hi float64) (*float64, error) {
	v, ok := o.get(key)
	if !ok {
		return nil, nil
	}
	n, isNumber := v.(json.Number)
	if !isNumber {
		return nil, Invalid("must be a number", o.Path, key)
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return nil, Invalid(fmt.Sprintf("must be a number from %g to %g", lo, hi), o.Path, key)
	}
	return &f, nil
}

// Int is a whole-number field within [lo, hi]; nil when absent.
func (o *Object) Int(key string, lo, hi int64) (*int64, error) {
	f, err := o.Number(key, float64(lo), float64(hi))
	if err != nil || f == nil {
		return nil, err
	}
	if *f != math.Trunc(*f) {
		return nil, Invalid("must be a whole number", o.Path, key)
	}
	n := int64(*f)
	return &n, nil
}

// Strings is a list of non-blank strings; required lists must not be
// empty.
func (o *Object) Strings(key string, required bool) ([]string, error) {
	v, ok := o.get(key)
	if !ok {
		if required {
			return nil, Invalid("is required: a non-empty list of strings", o.Path, key)
		}
		return nil, nil
	}
	list, isList := v.([]any)
	if !isList {
		return nil, Invalid("must be a list of strings", o.Path, key)
	}
	if required && len(list) == 0 {
		return nil, Invalid("must not be empty", o.Path, key)
	}
	out := make([]string, len(list))
	for i, item := range list {
		s, isString := item.(string)
		if !isString || strings.TrimSpace(s) == "" {
			return nil, Invalid("must be a non-blank string", o.Path, key, i)
		}
		out[i] = s
	}
	return out, nil
}

// Object is a nested object field; nil when absent.
func (o *Object) Object(key string) (*Object, error) {
	v, ok := o.get(key)
	if !ok {
		return nil, nil
	}
	return asObject(v, PathOf(o.Path, key))
}

// Objects is a list of objects; required lists must not be empty.
func (o *Object) Objects(key string, required bool) ([]*Object, error) {
	v, ok := o.get(key)
	if !ok {
		if required {
			return nil, Invalid("is required: a non-empty list", o.Path, key)
		}
		return nil, nil
	}
	list, isList := v.([]any)
	if !isList {
		return nil, Invalid("must be a list of objects", o.Path, key)
	}
	if required && len(list) == 0 {
		return nil, Invalid("must not be empty", o.Path, key)
	}
	out := make([]*Object, len(list))
	for i, item := range list {
		obj, err := asObject(item, PathOf(o.Path, key, i))
		if err != nil {
			return nil, err
		}
		out[i] = obj
	}
	return out, nil
}

// Keys are the object's keys as written, sorted.
func (o *Object) Keys() []string {
	keys := make([]string, 0, len(o.names))
	for _, name := range o.names {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	return keys
}
