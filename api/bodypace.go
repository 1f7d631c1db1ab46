package api

import (
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
)

// Pace bounds how slowly a request's body may arrive: within Grace, then
// at MinRate bytes a second at least (0: the whole body within Grace). A
// client sending a body slowly holds a connection and a handler no longer
// than that; a body that falls behind ends as a failed read.
type Pace struct {
	Grace   time.Duration
	MinRate int64
}

// slowBody answers a body that fell behind its pace.
var slowBody = problem.New(http.StatusBadRequest, "The request body came in more slowly than this server accepts; nothing was stored. Send it again.")

// The default paces: unauthenticated bodies (a token request, the
// console's sign-in form) are small and get a short deadline;
// authenticated ones (uploads of up to gigabytes) a grace and a rate any
// working link keeps.
var (
	defaultUnauthenticatedPace = Pace{Grace: 10 * time.Second}
	defaultAuthenticatedPace   = Pace{Grace: 30 * time.Second, MinRate: 32 << 10}
)

// unauthenticatedBodies are the routes that read a body before anyone is
// known.
var unauthenticatedBodies = map[string]bool{"/connect/token": true, "/console/sign-in": true}

// paced holds every request's body to its route's pace.
func paced(unauthenticated, authenticated Pace) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body != nil && c.Request.Body != http.NoBody {
			p := authenticated
			if unauthenticatedBodies[c.FullPath()] {
				p = unauthenticated
			}
			// On a copy of the request: the server looks at the original's
			// body after the handler, to know what was left unread.
			c.Request = c.Request.WithContext(c.Request.Context())
			c.Request.Body = &pacedBody{ReadCloser: c.Request.Body, pace: p, start: time.Now(), rc: http.NewResponseController(c.Writer)}
		}
		c.Next()
	}
}

// pacedBody moves the connection's read deadline with what has arrived.
type pacedBody struct {
	io.ReadCloser
	pace  Pace
	start time.Time
	read  int64
	rc    *http.ResponseController
}

func (b *pacedBody) Read(p []byte) (int, error) {
	allowed := b.pace.Grace
	if b.pace.MinRate > 0 {
		allowed += time.Duration(float64(b.read) / float64(b.pace.MinRate) * float64(time.Second))
	}
	// Without a connection (a test's recorder) there is nothing to bound.
	_ = b.rc.SetReadDeadline(b.start.Add(allowed))
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if err == io.EOF {
		// The server reads on in the background from here, to see the
		// client go: a passed deadline would end the request.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
