// Package console is Earshot's web console for supervisors and QA
// reviewers: server-rendered pages (html/template, web/) on the same data
// and permissions as the API. Users sign in with a password; a session is
// a random token in a Secure, HttpOnly, SameSite=Strict cookie, stored
// hashed; every change carries the session's CSRF token; what a user sees
// is what its hierarchy permissions allow (catalog.Scope).
package console

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/internal/secretguard"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/web"
)

// People is what the console needs of users and sessions
// (catalog.PeopleStore).
type People interface {
	SignInState(ctx context.Context, orgName, userName string) (catalog.SignInState, error)
	StartSession(ctx context.Context, s catalog.Session) error
	Session(ctx context.Context, tokenHash string) (catalog.Session, error)
	RenewSession(ctx context.Context, tokenHash string, expiresOn time.Time) error
	EndSession(ctx context.Context, tokenHash string) error
	User(ctx context.Context, orgID, id string) (catalog.User, error)
	access.Directory
	SingleSignOnUser(ctx context.Context, orgName, value string, byEmail bool) (catalog.User, error)
}

// Organizations names organizations (catalog.OrgStore).
type Organizations interface {
	Organization(ctx context.Context, id string) (catalog.Organization, error)
}

// Conversations lists and reads conversations (catalog.InteractionStore).
type Conversations interface {
	Interactions(ctx context.Context, orgID string, f catalog.InteractionFilter) ([]catalog.Interaction, error)
	CountInteractions(ctx context.Context, orgID string, f catalog.InteractionFilter) (int64, error)
	Interaction(ctx context.Context, orgID, id string) (catalog.Interaction, error)
	InternalIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error)
}

// Transcripts reads a conversation's transcript from the lake
// (results.Reader).
type Transcripts interface {
	Transcript(ctx context.Context, orgID string, it catalog.Interaction) ([]catalog.TranscriptSegment, error)
}

// Console serves the pages.
type Console struct {
	People        People
	Organizations Organizations
	Conversations Conversations
	Transcripts   Transcripts
	Figures       Figures
	Searches      Searches
	Classifiers   Classifiers
	Hierarchies   Hierarchies
	Originals     Originals
	Jobs          Jobs // set by api.New when not given
	// The use cases the API calls too (set by api.New).
	Reviews   Reviews
	Quality   Quality
	Authoring Authoring
	// SSO, when set, offers sign-in through an OpenID Connect provider.
	SSO *SSO
	Log *slog.Logger
	// SessionIdle ends a session that has not been used for this long
	// (default 1 hour); SessionMax ends any session this long after its
	// sign-in (default 12 hours).
	SessionIdle, SessionMax time.Duration
	// PublicURL is where browsers reach the server: its scheme decides
	// whether the cookies are Secure. SecureCookies makes them Secure
	// whatever it says.
	PublicURL     string
	SecureCookies bool
	// Secrets guards the password checks (set by api.New: the guard of the
	// token endpoint's client secrets too).
	Secrets *secretguard.Guard

	pages map[string]*template.Template
}

// pageNames are the pages, each web/templates/NAME.html in the layout.
var pageNames = []string{"sign_in", "signed_in", "conversations", "conversation", "dashboard", "queue", "evaluation", "workflow", "classifiers", "classifier", "job", "forms", "not_found"}

// Register mounts the console under /console on r.
func (c *Console) Register(r gin.IRouter) error {
	if c.SessionIdle == 0 {
		c.SessionIdle = time.Hour
	}
	if c.SessionMax == 0 {
		c.SessionMax = 12 * time.Hour
	}
	if c.Secrets == nil {
		c.Secrets = secretguard.New()
	}
	c.pages = map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.ParseFS(web.Templates, "templates/layout.html", "templates/call.html", "templates/"+name+".html")
		if err != nil {
			return err
		}
		c.pages[name] = t
	}
	static, err := fs.Sub(web.Static, "static")
	if err != nil {
		return err
	}
	r.GET("/", func(ctx *gin.Context) { ctx.Redirect(http.StatusSeeOther, "/console") })
	g := r.Group("/console", c.securityHeaders)
	g.StaticFS("/static", http.FS(static))
	g.GET("", func(ctx *gin.Context) { ctx.Redirect(http.StatusSeeOther, "/console/conversations") })
	g.GET("/sign-in", c.signInPage)
	g.POST("/sign-in", c.signIn)
	g.GET("/sso", c.ssoStart)
	g.GET("/sso/callback", c.ssoCallback)
	in := g.Group("", c.signedIn)
	quality, authoring := &qualityPages{c}, &classifierPages{c}
	in.POST("/sign-out", c.signOut)
	// Each page and change names the action it is (access.Actions), as the
	// API's routes do.
	in.GET("/conversations", c.may(access.ReadConversations), c.conversations)
	in.GET("/dashboard", c.may(access.ReadResults), c.dashboard)
	in.GET("/queue", c.may(access.ReadResults), quality.queue)
	in.POST("/queue/sample", c.may(access.ManageEvaluations), quality.sample)
	in.GET("/evaluations/:id", c.may(access.ReadResults), quality.evaluation)
	in.POST("/evaluations/:id", c.may(access.PerformEvaluations), quality.answer)
	in.POST("/evaluations/:id/draft", c.may(access.PerformEvaluations), quality.draft)
	in.POST("/evaluations/:id/review", c.may(access.ManageEvaluations), quality.sendForReview)
	in.POST("/evaluations/:id/auto-review", c.may(access.PerformEvaluations), quality.review)
	in.GET("/forms", c.may(access.ManageEvaluations), quality.forms)
	in.POST("/forms", c.may(access.ManageEvaluations), quality.createForm)
	in.POST("/forms/templates", c.may(access.ManageEvaluations), quality.createTemplate)
	in.POST("/forms/:id/active", c.may(access.ManageEvaluations), quality.setFormActive)
	in.GET("/workflows/:id", c.may(access.ReadResults), quality.workflow)
	in.POST("/workflows/:id", c.may(access.PerformEvaluations), quality.advance)
	in.GET("/conversations/:id", c.may(access.ReadConversations), c.conversation)
	in.POST("/conversations/:id/review", c.may(access.RecordReviews), c.review)
	in.POST("/conversations/:id/assign", c.may(access.ManageEvaluations), c.assign)
	in.GET("/conversations/:id/audio", c.may(access.ReadConversations), c.audio)
	in.GET("/classifiers", c.may(access.ManageClassifiers), authoring.classifiers)
	in.POST("/classifiers/train", c.may(access.ManageClassifiers), authoring.train)
	in.GET("/classifiers/:id", c.may(access.ManageClassifiers), authoring.classifier)
	in.GET("/jobs/:id", c.may(access.ManageClassifiers), c.job)
	in.POST("/classifiers/:id", c.may(access.ManageClassifiers), authoring.saveClassifier)
	in.POST("/classifiers/:id/dry-run", c.may(access.ManageClassifiers), authoring.dryRun)
	in.POST("/classifiers/:id/reclassify", c.may(access.ManageClassifiers), authoring.reclassify)
	return nil
}

// Unknown answers an address under /console that is no page of it.
func (c *Console) Unknown(ctx *gin.Context) {
	c.setSecurityHeaders(ctx)
	c.refuse(ctx, http.StatusNotFound, nil, "Not found", "No page of the console is at this address.")
}

// securityHeaders keep the pages in their own origin: no framing, no
// script or style from elsewhere, no referrer beyond it. Forms may lead
// to the identity provider alone besides (the single sign-on form's
// redirect, which form-action governs too).
func (c *Console) securityHeaders(ctx *gin.Context) {
	c.setSecurityHeaders(ctx)
	ctx.Next()
}

func (c *Console) setSecurityHeaders(ctx *gin.Context) {
	h := ctx.Writer.Header()
	forms := "'self'"
	if c.SSO != nil {
		forms += " " + c.SSO.origin
	}
	// Chart.js sets canvas sizes through style attributes.
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action "+forms+"; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// The pages of quality work and of classifier authoring are their own
// types over the console's shared parts.
type (
	qualityPages    struct{ *Console }
	classifierPages struct{ *Console }
)

// page is what every page's layout shows.
type page struct {
	Title  string
	Page   string
	Viewer *viewer
}

// render writes a page with status.
func (c *Console) render(ctx *gin.Context, status int, name string, data any) {
	buf := renderBuffers.Get().(*bytes.Buffer)
	defer giveRenderBuffer(buf)
	if err := c.pages[name].ExecuteTemplate(buf, "layout", data); err != nil {
		c.Log.Error("console: page", "page", name, "err", err)
	}
	ctx.Header("Content-Length", strconv.Itoa(buf.Len()))
	ctx.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// renderBuffers hold pages while they are rendered: a page is sent whole,
// with its length, not in the many small writes of its template (a
// dashboard's tables are thousands).
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptRender is the largest buffer kept for another page: a rare
// long one (a transcript of hours) is left to the collector.
const maxKeptRender = 4 << 20

func giveRenderBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxKeptRender {
		buf.Reset()
		renderBuffers.Put(buf)
	}
}

// notFound is the page of anything the viewer may not see or that does
// not exist: the same answer for both.
func (c *Console) notFound(ctx *gin.Context, v *viewer) {
	c.refuse(ctx, http.StatusNotFound, v, "Not found", "No conversation with this id exists that you may see.")
}

// refuse answers with a page that says why there is nothing to show.
func (c *Console) refuse(ctx *gin.Context, status int, v *viewer, title, message string) {
	c.render(ctx, status, "not_found", struct {
		page
		Message string
	}{page{Title: title, Viewer: v}, message})
}

// may lets a request through when the viewer's role allows the action,
// and answers the refusal's sentence when it does not.
func (c *Console) may(act access.Action) gin.HandlerFunc {
	return func(ctx *gin.Context) {
		v := viewerFrom(ctx)
		c.refused(ctx, v, v.actor.Require(act))
	}
}

// mistakeIn is the sentence of an input mistake (an *invalid.Field: the
// one kind every use case answers), which a form shows; ok is false for
// any other error.
func mistakeIn(err error) (sentence string, ok bool) {
	f, ok := invalid.As(err)
	if !ok {
		return "", false
	}
	return f.Sentence(), true
}

// refused answers err when it is an *access.Refused (403, the API's
// sentence) or a conversation out of the viewer's reach (not found); false
// when it is neither.
func (c *Console) refused(ctx *gin.Context, v *viewer, err error) bool {
	var refused *access.Refused
	switch {
	case errors.As(err, &refused):
		c.refuse(ctx, http.StatusForbidden, v, "Not allowed", refused.Detail)
	case errors.Is(err, catalog.ErrNotFound):
		c.notFound(ctx, v)
	default:
		return false
	}
	ctx.Abort()
	return true
}

// stopped answers err when there is one — a refusal or a reach as
// refused answers it, else a failure — and is false when there is none.
func (c *Console) stopped(ctx *gin.Context, v *viewer, err error) bool {
	if err == nil {
		return false
	}
	if !c.refused(ctx, v, err) {
		c.failed(ctx, err)
	}
	return true
}

// failed answers an internal failure without its details.
func (c *Console) failed(ctx *gin.Context, err error) {
	c.Log.Error("console", "path", ctx.Request.URL.Path, "err", err)
	ctx.String(http.StatusInternalServerError, "The console could not answer; try again, or tell your administrator.")
}
