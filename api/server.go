// Package api is Earshot's HTTP interface (CONTRACT.md): the gin engine, the
// conventions every operation shares (case-insensitive paths, problem
// bodies, request ids, auth, rate limits, metrics) and the handlers.
package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-jose/go-jose/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/earshot/earshot/api/console"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/secretguard"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// OrgStore is what the handlers need of organizations and their API
// clients (catalog.OrgStore).
type OrgStore interface {
	oauth.ClientStore
	Organization(ctx context.Context, id string) (catalog.Organization, error)
	ClientTokenState(ctx context.Context, id string) (catalog.TokenState, error)
}

// PeopleStore is what the handlers need of roles, users, the hierarchy and
// agents (catalog.PeopleStore).
type PeopleStore interface {
	Roles(ctx context.Context, orgID string, active *bool) ([]catalog.Role, error)
	Users(ctx context.Context, orgID string, active *bool) ([]catalog.User, error)
	User(ctx context.Context, orgID, id string) (catalog.User, error)
	UserByName(ctx context.Context, orgID, userName string) (catalog.User, error)
	CreateUser(ctx context.Context, orgID string, in catalog.UserInput) (catalog.User, error)
	UpdateUser(ctx context.Context, orgID, id string, in catalog.UserInput) (catalog.User, error)
	DeleteUser(ctx context.Context, orgID, id string) error
	SetPassword(ctx context.Context, orgID, userID, hash string) error

	Groups(ctx context.Context, orgID string) ([]catalog.Group, error)
	Group(ctx context.Context, orgID, id string) (catalog.Group, error)
	UserGroups(ctx context.Context, orgID, userID string) ([]catalog.Group, error)
	CreateGroup(ctx context.Context, orgID string, in catalog.GroupInput) (catalog.Group, error)
	ReplaceGroup(ctx context.Context, orgID, id string, in catalog.GroupInput, version time.Time) (catalog.Group, error)
	DeleteGroup(ctx context.Context, orgID, id string) error

	Hierarchy(ctx context.Context, orgID string) (*catalog.Tree, error)
	CreateNode(ctx context.Context, orgID string, in catalog.NodeInput) (catalog.Node, error)
	UpdateNode(ctx context.Context, orgID, id string, in catalog.NodeInput) (catalog.Node, error)

	Agents(ctx context.Context, orgID string, active *bool) ([]catalog.Agent, error)
	Agent(ctx context.Context, orgID, id string) (catalog.Agent, error)
	CreateAgent(ctx context.Context, orgID string, in catalog.AgentInput) (catalog.Agent, error)
	UpdateAgent(ctx context.Context, orgID, id string, in catalog.AgentInput) (catalog.Agent, error)
	ResolveUploadRefs(ctx context.Context, orgID string, hierarchyID, hierarchyCode, agentCode *string) (catalog.UploadRefs, error)

	Grants(ctx context.Context, orgID, userID string) ([]catalog.Grant, error)
	SetGrant(ctx context.Context, orgID, userID, nodeID, level string, permissions []string) error
}

// InteractionStore is what the handlers need of uploads and their
// metadata (catalog.InteractionStore).
type InteractionStore interface {
	FileNameOwner(ctx context.Context, orgID, fileName string) (string, error)
	CreateInteraction(ctx context.Context, it catalog.Interaction, applyNodeToAgent bool) error
	Interaction(ctx context.Context, orgID, id string) (catalog.Interaction, error)
	Interactions(ctx context.Context, orgID string, f catalog.InteractionFilter) ([]catalog.Interaction, error)
	SampleQA(ctx context.Context, rate float64, seed, orgID string) (moved, started int64, err error)
	PatchInteraction(ctx context.Context, orgID, id string, p catalog.InteractionPatch) (catalog.Interaction, error)
	IDTaken(ctx context.Context, orgID, id string) (bool, error)
	InternalIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error)
	PublicIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error)
}

// JobRunStore gives an organization's job run (catalog.JobStore).
type JobRunStore interface {
	OrgJobRun(ctx context.Context, orgID, id string) (catalog.JobRun, error)
}

// ReviewStore keeps human reviews (catalog.ReviewStore).
type ReviewStore interface {
	Reviews(ctx context.Context, orgID string, conversationIDs []string) (map[string][]catalog.Review, error)
	ReviewedConversations(ctx context.Context, orgID string) ([]string, error)
	AddReview(ctx context.Context, r catalog.Review) (catalog.Review, error)
}

// ResultReader reads pages of conversations, their results and their
// transcripts from the lake (results.Reader).
type ResultReader interface {
	Page(ctx context.Context, q results.PageQuery, fetch results.Fetch) ([]results.Conversation, bool, error)
	Count(ctx context.Context, q results.PageQuery, classifierIDs []string) (int64, error)
	ModelResults(ctx context.Context, orgID string, convs []results.Conversation, modelIDs []string) (map[string][]results.ModelResult, error)
	ModelCandidates(ctx context.Context, q results.PageQuery, convs []results.Conversation, modelIDs []string) (*results.Candidates[results.ModelResult], error)
	ModelResultsByRow(ctx context.Context, q results.PageQuery, rows []results.Conversation, modelIDs []string, each func(lo int, current [][]results.ModelResult)) error
	ClassifierResultsByRow(ctx context.Context, q results.PageQuery, rows []results.Conversation, classifierIDs []string, each func(lo int, current [][]results.ClassifierResult)) error
	Transcripts(ctx context.Context, orgID string, its []catalog.Interaction) (map[string][]catalog.TranscriptSegment, error)
	ClassifierEvidence(ctx context.Context, orgID string, conv results.Conversation, classifierIDs []string) ([]results.Evidence, error)
}

// Storage is the object storage uploads are staged in.
type Storage interface {
	Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error)
	Delete(ctx context.Context, key string) error
	Ping(ctx context.Context) error
}

// QualityStore is what the handlers need of quality evaluations
// (catalog.EvaluationStore).
type QualityStore interface {
	qa.Evaluations // the quality use cases' store
	Evaluation(ctx context.Context, orgID, id string) (catalog.Evaluation, error)
}

// WorkflowStore is what the handlers need of review workflows
// (catalog.WorkflowStore).
type WorkflowStore interface {
	CreateTemplate(ctx context.Context, t catalog.WorkflowTemplate) (catalog.WorkflowTemplate, error)
	Templates(ctx context.Context, orgID string) ([]catalog.WorkflowTemplate, error)
	Template(ctx context.Context, orgID, id string) (catalog.WorkflowTemplate, error)
	StartWorkflow(ctx context.Context, w catalog.Workflow) (catalog.Workflow, error)
	Workflows(ctx context.Context, orgID string, f catalog.WorkflowFilter) ([]catalog.Workflow, error)
	Workflow(ctx context.Context, orgID, id string) (catalog.Workflow, error)
	SaveProgress(ctx context.Context, w catalog.Workflow, fromLevel int, progress json.RawMessage, closed bool) error
}

// SignedURLs downloads the files clients name by URL, and checks the
// emission endpoints organizations register, under one SSRF guard
// (signedurl.Fetcher).
type SignedURLs interface {
	Open(ctx context.Context, rawURL string) (io.ReadCloser, error)
	Check(ctx context.Context, rawURL string) error
}

// EmissionStore is what the handlers need of result emission
// (catalog.EmissionStore).
type EmissionStore interface {
	SetEndpoint(ctx context.Context, orgID, url, secret string) (catalog.EmissionEndpoint, error)
	Endpoint(ctx context.Context, orgID string) (catalog.EmissionEndpoint, error)
	DeleteEndpoint(ctx context.Context, orgID string) error
	Receipts(ctx context.Context, orgID string, f catalog.ReceiptFilter) ([]catalog.Delivery, error)
	LatestReceipts(ctx context.Context, orgID string, conversationIDs []string) (map[string]catalog.Delivery, error)
}

// Pinger is a dependency /readyz checks.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are the services the API is built on.
type Deps struct {
	// Catalog is the open catalog, which /readyz checks; its stores follow.
	Catalog      Pinger
	Orgs         OrgStore
	People       PeopleStore
	Interactions InteractionStore
	Classifiers  classifiers.Store // the classifier use cases, and the lists the handlers read
	JobRuns      JobRunStore
	Reviews      ReviewStore
	Quality      QualityStore // quality evaluations
	Workflows    WorkflowStore
	Emissions    EmissionStore
	// Console, when set, serves the web console under /console.
	Console *console.Console
	Results ResultReader
	// Compiler checks classifier definitions (registry.Compiler).
	Compiler classifiers.Compiler
	// Jobs starts reclassifications and trainings.
	Jobs classifiers.Jobs
	// Evaluations bound dry runs (the reclassify job takes the same slots).
	Evaluations classifiers.Slots
	Storage     Storage
	// Space, when set, is /readyz's check of the free space left where
	// the data is written.
	Space      Pinger
	SignedURLs SignedURLs
	Keys       PublishedKeys
	Tokens     *oauth.Tokens
	Registry   *prometheus.Registry // /metrics serves it; HTTP metrics are added to it
	Logger     *slog.Logger
}

// PublishedKeys are the token verification keys /.well-known/jwks.json
// publishes (oauth.Keyring).
type PublishedKeys interface {
	JWKS() jose.JSONWebKeySet
}

// Options are the API's settings.
type Options struct {
	PublicURL  string  // base URL clients use, for the discovery document
	RatePerSec float64 // per-client sustained request rate; 0 = unlimited
	RateBurst  int     // per-client burst
	// MaxUploadBytes is the largest upload accepted (413 above it).
	MaxUploadBytes int64
	// TrustedProxies are the addresses or CIDRs whose X-Forwarded-For is
	// believed; none by default, so a caller cannot pick its own address.
	TrustedProxies []string
	// HealthOnly serves /healthz, /readyz and /metrics and nothing else: a
	// jobs-only process (earshot serve --role jobs).
	HealthOnly bool
	// UnauthenticatedPace and AuthenticatedPace bound how slowly request
	// bodies may arrive; zero: 10 s for an unauthenticated body, 30 s and
	// then 32 KiB/s for the others.
	UnauthenticatedPace, AuthenticatedPace Pace
	// SecretGuard guards the secret and password checks; nil: the default
	// budgets (secretguard.New).
	SecretGuard *secretguard.Guard
	// Sampling is the QA sampling's rate and seed, for an organization's
	// sampling started from the console (the sample job's settings).
	Sampling qa.Sampling
}

// Server is the HTTP API: the engine, the conventions every operation
// shares (authentication, discovery, health, tokens, SCIM) and the
// domains' handlers.
type Server struct {
	*shared
	engine  *gin.Engine
	handler http.Handler
	// guard guards every secret check (tokens, the console's sign-in).
	guard *secretguard.Guard
	scim  http.Handler // the SCIM 2.0 protocol server
	// scimProbe is the same protocol over handlers that change nothing.
	scimProbe http.Handler

	people        peopleAPI
	conversations conversationsAPI
	results       resultsAPI
	quality       qualityAPI
	classifiers   classifiersAPI
	delivery      deliveryAPI
}

// New builds the API.
func New(deps Deps, opts Options) (*Server, error) {
	gin.SetMode(gin.ReleaseMode)
	sh := newShared(deps, opts)
	s := &Server{shared: sh, guard: cmp.Or(opts.SecretGuard, secretguard.New()), people: peopleAPI{sh}, conversations: conversationsAPI{sh}, results: resultsAPI{sh},
		quality: qualityAPI{sh}, classifiers: classifiersAPI{sh}, delivery: deliveryAPI{sh}}
	var err error
	if s.scim, s.scimProbe, err = s.newSCIM(); err != nil {
		return nil, fmt.Errorf("scim: %w", err)
	}
	s.engine = s.routes()
	if deps.Console != nil {
		deps.Console.Reviews, deps.Console.Quality, deps.Console.Authoring = sh.reviews, sh.qa, sh.authoring
		deps.Console.Secrets = s.guard
		if deps.Console.Jobs == nil {
			deps.Console.Jobs = deps.JobRuns
		}
		if deps.Console.PublicURL == "" {
			deps.Console.PublicURL = opts.PublicURL
		}
		if err := deps.Console.Register(s.engine); err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
	}
	if err := s.engine.SetTrustedProxies(opts.TrustedProxies); err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	s.handler = canonicalize(s.engine)
	return s, nil
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// readyTimeout bounds each /readyz check.
const readyTimeout = 3 * time.Second
