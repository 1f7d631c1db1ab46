package console

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

// home is the page a sign-in leads to when nothing else is asked.
const home = "/console/conversations"

// returnTo is the console page a sign-in returns to: next when it is a
// path of the console (never another site, whatever its spelling), else
// home.
func returnTo(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" || u.Scheme != "" || u.Host != "" || u.User != nil || strings.ContainsAny(next, "\\\r\n") ||
		strings.HasPrefix(next, "//") || path.Clean(u.Path) != u.Path || !strings.HasPrefix(u.Path, "/console/") ||
		strings.HasPrefix(u.Path, "/console/sign-") || strings.HasPrefix(u.Path, "/console/sso") {
		return home
	}
	return u.RequestURI()
}

// signInFirst answers a request without a live session. A page asked for
// leads to the sign-in form and back to it; a form sent leads there too,
// back to the page it was sent from (its answers wait in the browser);
// a script's request (a draft saved in the background) gets a 401 its
// page tells the user about.
func (c *Console) signInFirst(ctx *gin.Context) {
	r := ctx.Request
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		ctx.Redirect(http.StatusSeeOther, "/console/sign-in?"+url.Values{"next": {r.URL.RequestURI()}}.Encode())
		return
	}
	if mode := r.Header.Get("Sec-Fetch-Mode"); mode != "" && mode != "navigate" {
		ctx.String(http.StatusUnauthorized, "Your session has ended; sign in again.")
		return
	}
	from := r.URL.RequestURI()
	if ref, err := url.Parse(r.Referer()); err == nil && strings.EqualFold(ref.Host, r.Host) {
		from = ref.RequestURI()
	}
	ctx.Redirect(http.StatusSeeOther, "/console/sign-in?"+url.Values{"ended": {"1"}, "next": {returnTo(from)}}.Encode())
}
