package api

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/elimity-com/scim"
	"github.com/elimity-com/scim/schema"
	filter "github.com/scim2/filter-parser/v2"
)

// A SCIM PATCH (RFC 7644 §3.5.2) applied to a resource's attributes, after
// the library has checked each operation against the resource's schemas.
// The handlers apply every operation to a copy and save once, so a PATCH
// is applied whole or not at all, and one that cannot be applied is
// refused naming its operation (patchError).

// scimSchemas are a resource type's schema and extensions.
type scimSchemas struct {
	core       schema.Schema
	extensions []schema.Schema
}

// extension is the extension of a URN, case-insensitively.
func (s scimSchemas) extension(urn string) (schema.Schema, bool) {
	for _, e := range s.extensions {
		if strings.EqualFold(e.ID, urn) {
			return e, true
		}
	}
	return schema.Schema{}, false
}

// locate is the map that holds a path's attribute (the resource, or its
// extension's object) and the attribute's definition.
func (s scimSchemas) locate(attrs map[string]any, p filter.AttributePath) (map[string]any, schema.CoreAttribute, error) {
	container, attributes := attrs, slices.Concat(s.core.Attributes, schema.CommonAttributes())
	if uri := p.URI(); uri != "" && !strings.EqualFold(uri, s.core.ID) {
		ext, ok := s.extension(uri)
		if !ok {
			return nil, schema.CoreAttribute{}, fmt.Errorf("no schema of this resource has the URN %s", uri)
		}
		m, ok := attrs[ext.ID].(map[string]any)
		if !ok {
			m = map[string]any{}
			attrs[ext.ID] = m
		}
		container, attributes = m, ext.Attributes
	}
	for _, a := range attributes {
		if strings.EqualFold(a.Name(), p.AttributeName) {
			return container, a, nil
		}
	}
	return nil, schema.CoreAttribute{}, fmt.Errorf("the resource has no attribute %s", p.AttributeName)
}

// patchError is a PATCH refused for its operation at index i.
func patchError(i int, op scim.PatchOperation, err error) error {
	path := "no path"
	if op.Path != nil {
		path = "path " + op.Path.String()
	}
	return scimBadRequest(fmt.Sprintf("Operations[%d] (%s, %s) cannot be applied: %v; nothing was changed", i, op.Op, path, err))
}

// applyPatches applies operations in order to attrs.
func applyPatches(attrs map[string]any, operations []scim.PatchOperation, s scimSchemas) error {
	for i, op := range operations {
		if err := applyPatch(attrs, op, s); err != nil {
			return patchError(i, op, err)
		}
	}
	return nil
}

// applyPatch applies one operation. Without a path, each attribute of the
// value (or of an extension's object in it) is the operation of its path.
// A complex attribute's sub-attributes are merged; an add to a
// multi-valued attribute adds its entries; a remove with a value removes
// those entries; a value filter ("type eq …") chooses entries.
func applyPatch(attrs map[string]any, op scim.PatchOperation, s scimSchemas) error {
	remove := strings.EqualFold(op.Op, scim.PatchOperationRemove)
	if op.Path == nil {
		values, ok := op.Value.(map[string]any)
		if !ok || remove {
			return errors.New("an operation without a path needs an object value")
		}
		for k, v := range values {
			paths := map[string]any{k: v}
			if ext, isExt := s.extension(k); isExt {
				sub, _ := v.(map[string]any)
				paths = map[string]any{}
				for sk, sv := range sub {
					paths[ext.ID+":"+sk] = sv
				}
			}
			for path, value := range paths {
				p, err := filter.ParsePath([]byte(path))
				if err != nil {
					return fmt.Errorf("the value's attribute %s is not a path: %v", path, err)
				}
				if err := applyPatch(attrs, scim.PatchOperation{Op: op.Op, Path: &p, Value: value}, s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	container, attr, err := s.locate(attrs, op.Path.AttributePath)
	if err != nil {
		return err
	}
	name := attr.Name()
	switch {
	case op.Path.ValueExpression != nil:
		return patchEntries(container, name, op, remove)
	case op.Path.AttributePath.SubAttribute != nil:
		sub := *op.Path.AttributePath.SubAttribute
		if !remove {
			setSub(container, name, sub, op.Value)
		} else if m, ok := container[name].(map[string]any); ok {
			delete(m, keyOf(m, sub))
		}
	case remove && op.Value != nil && attr.MultiValued():
		container[name] = withoutEntries(container[name], op.Value)
	case remove:
		delete(container, name)
	case attr.MultiValued() && strings.EqualFold(op.Op, scim.PatchOperationAdd):
		container[name] = withEntries(container[name], op.Value)
	case attr.HasSubAttributes() && !attr.MultiValued():
		sub, ok := op.Value.(map[string]any)
		if !ok {
			return fmt.Errorf("%s takes an object", name)
		}
		for k, v := range sub {
			setSub(container, name, k, v)
		}
	default:
		container[name] = op.Value
	}
	return nil
}

// keyOf is the key of m that is name case-insensitively, else name.
func keyOf(m map[string]any, name string) string {
	for k := range m {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return name
}

func setSub(attrs map[string]any, name, sub string, v any) {
	m, ok := attrs[name].(map[string]any)
	if !ok {
		m = map[string]any{}
		attrs[name] = m
	}
	m[keyOf(m, sub)] = v
}

// entryValue is a multi-valued attribute's entry's value, as text.
func entryValue(entry any) (string, bool) {
	m, ok := entry.(map[string]any)
	if !ok {
		return "", false
	}
	v, ok := m[keyOf(m, "value")]
	if !ok || v == nil {
		return "", false
	}
	return fmt.Sprint(v), true
}

// withEntries adds entries to a multi-valued attribute: an entry with the
// value of one there replaces it, and a primary entry makes the others
// not primary.
func withEntries(current, added any) []any {
	list, _ := current.([]any)
	adding, ok := added.([]any)
	if !ok {
		adding = []any{added}
	}
	for _, entry := range adding {
		if m, ok := entry.(map[string]any); ok && m[keyOf(m, "primary")] == true {
			for _, other := range list {
				if o, ok := other.(map[string]any); ok {
					delete(o, keyOf(o, "primary"))
				}
			}
		}
		value, hasValue := entryValue(entry)
		replaced := false
		for i, other := range list {
			if v, ok := entryValue(other); hasValue && ok && v == value {
				list[i], replaced = entry, true
			}
		}
		if !replaced {
			list = append(list, entry)
		}
	}
	return list
}

// withoutEntries removes the entries whose values are removed's.
func withoutEntries(current, removed any) []any {
	list, _ := current.([]any)
	removing, ok := removed.([]any)
	if !ok {
		removing = []any{removed}
	}
	gone := map[string]bool{}
	for _, entry := range removing {
		if v, ok := entryValue(entry); ok {
			gone[v] = true
		}
	}
	var out []any
	for _, entry := range list {
		if v, ok := entryValue(entry); !ok || !gone[v] {
			out = append(out, entry)
		}
	}
	return out
}

// patchEntries changes the entries of a multi-valued attribute its value
// filter chooses; an add or replace of a sub-attribute that chooses none
// adds the entry.
func patchEntries(attrs map[string]any, name string, op scim.PatchOperation, remove bool) error {
	expr, ok := op.Path.ValueExpression.(*filter.AttributeExpression)
	if !ok || expr.Operator != filter.EQ {
		return fmt.Errorf("entries are chosen by one \"eq\" comparison, such as type eq \"work\" or value eq \"…\"")
	}
	key := expr.AttributePath.AttributeName
	matches := func(m map[string]any) bool {
		v, ok := m[keyOf(m, key)]
		return ok && strings.EqualFold(fmt.Sprint(v), fmt.Sprint(expr.CompareValue))
	}
	list, _ := attrs[name].([]any)
	var out []any
	found := false
	for _, item := range list {
		m, _ := item.(map[string]any)
		if m == nil || !matches(m) {
			out = append(out, item)
			continue
		}
		found = true
		if remove {
			continue
		}
		if op.Path.SubAttribute != nil {
			m[keyOf(m, *op.Path.SubAttribute)] = op.Value
		} else if v, ok := op.Value.(map[string]any); ok {
			for k, x := range v {
				m[keyOf(m, k)] = x
			}
		}
		out = append(out, m)
	}
	if !found && !remove && op.Path.SubAttribute != nil {
		out = append(out, map[string]any{key: expr.CompareValue, *op.Path.SubAttribute: op.Value})
	}
	attrs[name] = out
	return nil
}
