package console

import "testing"

// A sign-in returns to a console page only: never to another site or out
// of the console, whatever the spelling.
func TestReturnTo(t *testing.T) {
	t.Parallel()
	for next, want := range map[string]string{
		"/console/evaluations/abc":           "/console/evaluations/abc",
		"/console/conversations?from=x&to=y": "/console/conversations?from=x&to=y",
		"":                                   home,
		"/console":                           home,
		"//evil.example/console/x":           home,
		"https://evil.example/console/x":     home,
		"javascript:alert(1)":                home,
		"/console\\..\\x":                    home,
		"/console/../Agent":                  home,
		"/console/./queue":                   home,
		"/console/sign-in?next=/console/x":   home,
		"/console/sso/callback":              home,
		"/Agent":                             home,
		"/console/queue\r\nSet-Cookie: a=b":  home,
		"/console/dashboard?range=7#agents":  "/console/dashboard?range=7",
	} {
		if got := returnTo(next); got != want {
			t.Errorf("returnTo(%q) = %q, want %q", next, got, want)
		}
	}
}
