package api

import (
	"strings"
)

// The attributes and excludedAttributes query parameters (RFC 7644
// §3.4.2.5): a resource, or each resource of a list, cut to the attributes
// asked for, or without those excluded. id and schemas are always
// returned.

// scimAttributeName is an attribute a client names: an extension's URN
// when it is one of its attributes, the attribute and a sub-attribute.
type scimAttributeName struct{ urn, attribute, sub string }

// scimNames reads the comma-separated attribute names of query values.
func scimNames(values []string) []scimAttributeName {
	var out []scimAttributeName
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			var n scimAttributeName
			if strings.HasPrefix(strings.ToLower(name), "urn:") {
				at := strings.LastIndex(name, ":")
				n.urn, name = name[:at], name[at+1:]
				if strings.EqualFold(n.urn, userSchemas.core.ID) || strings.EqualFold(n.urn, groupSchemas.core.ID) {
					n.urn = ""
				}
			}
			n.attribute, n.sub, _ = strings.Cut(name, ".")
			out = append(out, n)
		}
	}
	return out
}

// scimAlwaysReturned are the attributes returned whatever is asked.
var scimAlwaysReturned = []string{"id", "schemas"}

// scimProject cuts a resource, or a list's resources, to the attributes
// asked for (when any are), without those excluded.
func scimProject(body []byte, attributes, excluded []scimAttributeName) []byte {
	return rewriteJSON(body, func(doc map[string]any) {
		resources, isList := doc["Resources"].([]any)
		if !isList {
			projectResource(doc, attributes, excluded)
			return
		}
		for _, r := range resources {
			if m, ok := r.(map[string]any); ok {
				projectResource(m, attributes, excluded)
			}
		}
	})
}

func projectResource(res map[string]any, attributes, excluded []scimAttributeName) {
	if len(attributes) > 0 {
		kept := map[string]any{}
		for _, name := range scimAlwaysReturned {
			if v, ok := res[name]; ok {
				kept[name] = v
			}
		}
		for _, n := range attributes {
			from, to := scimHolder(res, n.urn, false), scimHolder(kept, n.urn, true)
			if from == nil {
				continue
			}
			key := keyOf(from, n.attribute)
			v, ok := from[key]
			if !ok {
				continue
			}
			if sub, isMap := v.(map[string]any); isMap && n.sub != "" {
				subKey := keyOf(sub, n.sub)
				if sv, ok := sub[subKey]; ok {
					setSub(to, key, subKey, sv)
				}
				continue
			}
			to[key] = v
		}
		clear(res)
		for k, v := range kept {
			res[k] = v
		}
	}
	for _, n := range excluded {
		holder := scimHolder(res, n.urn, false)
		if holder == nil || (n.urn == "" && isAlwaysReturned(n.attribute)) {
			continue
		}
		key := keyOf(holder, n.attribute)
		if sub, isMap := holder[key].(map[string]any); isMap && n.sub != "" {
			delete(sub, keyOf(sub, n.sub))
			continue
		}
		delete(holder, key)
	}
}

// scimHolder is the object that holds an extension's attributes (the
// resource itself for the core schema's); made when create is set.
func scimHolder(res map[string]any, urn string, create bool) map[string]any {
	if urn == "" {
		return res
	}
	key := keyOf(res, urn)
	m, ok := res[key].(map[string]any)
	if !ok && create {
		m = map[string]any{}
		res[key] = m
	}
	return m
}

func isAlwaysReturned(name string) bool {
	for _, a := range scimAlwaysReturned {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}
