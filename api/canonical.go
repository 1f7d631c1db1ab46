package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// canonicalize implements CONTRACT §1's path and query conventions in front
// of the router: a path segment that spells a route's literal segment in any
// casing is rewritten to the registered casing, a trailing slash is
// dropped, and query parameter names are lower-cased (handlers read them
// through query(), which lower-cases too). Parameter segments (ids) are
// left as they are.
func canonicalize(e *gin.Engine) http.Handler {
	literal := map[string]string{}
	for _, r := range e.Routes() {
		if isConsole(r.Path) {
			continue
		}
		for _, seg := range strings.Split(r.Path, "/") {
			if seg != "" && !strings.HasPrefix(seg, ":") && !strings.HasPrefix(seg, "*") {
				literal[strings.ToLower(seg)] = seg
			}
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isConsole(r.URL.Path) { // the console's pages keep their own paths and casing
			e.ServeHTTP(w, r)
			return
		}
		path := r.URL.Path
		if len(path) > 1 {
			path = strings.TrimSuffix(path, "/")
		}
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			if canon, ok := literal[strings.ToLower(seg)]; ok {
				segs[i] = canon
			}
		}
		r.URL.Path = strings.Join(segs, "/")
		r.URL.RawPath = ""
		if r.URL.RawQuery != "" {
			r.URL.RawQuery = lowerQueryNames(r.URL.Query()).Encode()
		}
		e.ServeHTTP(w, r)
	})
}

func lowerQueryNames(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, vs := range q {
		lk := strings.ToLower(k)
		out[lk] = append(out[lk], vs...)
	}
	return out
}

// query reads a query parameter by its contract name, in any casing.
func query(c *gin.Context, name string) (string, bool) {
	return c.GetQuery(strings.ToLower(name))
}

// isConsole tells whether a path is the web console's (api/console), which
// the API's conventions do not cover.
func isConsole(path string) bool { return path == "/console" || strings.HasPrefix(path, "/console/") }
