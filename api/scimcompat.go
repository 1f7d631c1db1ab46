package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// What Okta's and Microsoft Entra ID's provisioning clients send that the
// SCIM library reads too strictly, made into what it reads, before it
// does; and what it answers that RFC 7644 words otherwise, after.

// scimQueryNames are the SCIM query parameters by their lower-cased
// names: RFC 7644 names are case-insensitive, the library reads them as
// spelt here (and the API's conventions lower-case every name).
var scimQueryNames = map[string]string{"startindex": "startIndex", "count": "count", "filter": "filter", "attributes": "attributes",
	"excludedattributes": "excludedAttributes", "sortby": "sortBy", "sortorder": "sortOrder"}

// scimQuery spells a query's SCIM parameters as the library reads them.
func scimQuery(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, vs := range q {
		if name, ok := scimQueryNames[strings.ToLower(k)]; ok {
			k = name
		}
		out[k] = append(out[k], vs...)
	}
	return out
}

// scimBooleans are the attributes of boolean type a client may send as
// strings ("True", "false": Entra ID does unless told otherwise).
var scimBooleans = map[string]bool{"active": true, "primary": true}

// scimSingleValued are the single-valued complex attributes a client may
// send as a list of one (Entra ID's enterprise manager).
var scimSingleValued = map[string]bool{"manager": true}

// scimClientBody makes what clients send of a SCIM body into what RFC
// 7643 says: string booleans into booleans, a single-valued attribute
// sent as a list of one into that one; in a resource, and in a PATCH
// operation's value (by its path, or as a value's attribute). Anything
// else, and any body that is not JSON, is left as it is for the library
// to judge.
func scimClientBody(body []byte) []byte {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	changed := false
	var walk func(v any, key string) any
	walk = func(v any, key string) any {
		switch x := v.(type) {
		case map[string]any:
			path, _ := x["path"].(string)
			for k, child := range x {
				at := k
				if strings.EqualFold(k, "value") && path != "" {
					at = path // a PATCH operation's value is its path's
				}
				x[k] = walk(child, at)
			}
		case []any:
			if len(x) == 1 && scimSingleValued[strings.ToLower(lastAttribute(key))] {
				changed = true
				return walk(x[0], key)
			}
			for i, child := range x {
				x[i] = walk(child, key)
			}
		case string:
			if scimBooleans[strings.ToLower(lastAttribute(key))] {
				switch strings.ToLower(x) {
				case "true":
					changed = true
					return true
				case "false":
					changed = true
					return false
				}
			}
		}
		return v
	}
	doc = walk(doc, "")
	if !changed {
		return body
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// lastAttribute is the attribute a path ends in: "emails[type eq
// \"work\"].primary" ends in primary.
func lastAttribute(path string) string {
	if i := strings.LastIndexAny(path, ".:"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// scimRequest makes a request into what the library reads, and returns
// the body it now has.
func scimRequest(r *http.Request) ([]byte, error) {
	if r.URL.RawQuery != "" {
		r.URL.RawQuery = scimQuery(r.URL.Query()).Encode()
	}
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodDelete {
		return nil, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	body = scimClientBody(body)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return body, nil
}

// scimResponse rewrites a successful answer: a list gets its itemsPerPage
// (scimListBody); the ServiceProviderConfig says that ETags are supported
// (If-Match is checked), which the library cannot say; the resources are
// cut to the attributes or excludedAttributes asked for (scimProject).
func scimResponse(r *http.Request, body []byte) []byte {
	switch {
	case r.Method == http.MethodGet && (strings.HasSuffix(r.URL.Path, "/Users") || strings.HasSuffix(r.URL.Path, "/Groups")):
		body = scimListBody(body)
	case strings.HasSuffix(r.URL.Path, "/ServiceProviderConfig"):
		body = scimWithETags(body)
	}
	q := r.URL.Query()
	if q.Has("attributes") || q.Has("excludedAttributes") {
		body = scimProject(body, scimNames(q["attributes"]), scimNames(q["excludedAttributes"]))
	}
	return body
}

// scimWithETags is a ServiceProviderConfig that says ETags are supported.
func scimWithETags(body []byte) []byte {
	return rewriteJSON(body, func(config map[string]any) { config["etag"] = map[string]bool{"supported": true} })
}

// rewriteJSON is a JSON object's body changed by change; a body that is
// not one is left as it is.
func rewriteJSON(body []byte, change func(map[string]any)) []byte {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	change(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// scimListBody sets a list response's itemsPerPage to the number of
// resources it returns (RFC 7644 §3.4.2), which the library sets to the
// count asked for.
func scimListBody(body []byte) []byte {
	return rewriteJSON(body, func(list map[string]any) {
		if _, isList := list["totalResults"]; !isList {
			return
		}
		resources, ok := list["Resources"].([]any)
		list["itemsPerPage"] = len(resources)
		if !ok {
			list["Resources"] = []any{}
		}
	})
}
