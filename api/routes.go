package api

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/access"
)

// routes builds the engine: shared middleware, then every operation. Paths
// are written in the contract's casing; canonicalize maps any casing to them.
func (s *Server) routes() *gin.Engine {
	e := gin.New()
	e.RedirectTrailingSlash = false // canonicalize strips it instead: no redirects for POSTs
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true

	metrics := newHTTPMetrics(s.deps.Registry)
	e.Use(requestID(), accessLog(s.deps.Logger, metrics), recovery(s.deps.Logger),
		paced(cmp.Or(s.opts.UnauthenticatedPace, defaultUnauthenticatedPace), cmp.Or(s.opts.AuthenticatedPace, defaultAuthenticatedPace)))
	e.NoRoute(func(c *gin.Context) {
		if s.deps.Console != nil && strings.HasPrefix(c.Request.URL.Path, "/console/") {
			s.deps.Console.Unknown(c)
			return
		}
		problem.Write(c, problem.New(http.StatusNotFound, "No operation exists at "+c.Request.Method+" "+c.Request.URL.Path+"; see /swagger/v1/swagger.json for the operations this server offers."))
	})
	e.NoMethod(func(c *gin.Context) {
		problem.Write(c, problem.New(http.StatusMethodNotAllowed, "The operation at "+c.Request.URL.Path+" does not accept "+c.Request.Method+"; the Allow header lists the methods it does accept."))
	})

	// Public operations.
	e.GET("/healthz", s.handle(s.healthz))
	e.GET("/readyz", s.handle(s.readyz))
	e.GET("/metrics", gin.WrapH(metricsHandler(s.deps.Registry)))
	if s.opts.HealthOnly {
		return e
	}
	e.GET("/swagger/v1/swagger.json", s.handle(s.openAPI))
	e.GET("/.well-known/openid-configuration", s.handle(s.openIDConfiguration))
	e.GET("/.well-known/jwks.json", s.handle(s.jwks))
	e.POST("/connect/token", newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientIP).middleware, s.token)

	// Operations that need a bearer token with scope acxapi; rate limited
	// per client. Each names the action it is (access.Actions): a client
	// acting for a user is refused what the user's role does not allow.
	authed := e.Group("", s.authenticate, newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	authed.GET("/Me", s.handle(s.people.me))

	authed.GET("/User/All", may(access.ReadUsers), s.handle(s.people.listUsers))
	authed.GET("/User/:id", may(access.ReadUsers), s.handle(s.people.getUser))
	authed.GET("/User", may(access.ReadUsers), s.handle(s.people.findUser))
	authed.POST("/User", may(access.ManageUsers), s.handle(s.people.createUser))
	authed.PUT("/User/:id", may(access.ManageUsers), s.handle(s.people.updateUser))
	authed.GET("/Roles/All", may(access.ReadUsers), s.handle(s.people.listRoles))

	authed.GET("/Hierarchy/All", may(access.ReadHierarchy), s.handle(s.people.hierarchyTree))
	authed.GET("/Hierarchy", may(access.ReadHierarchy), s.handle(s.people.hierarchyList))
	authed.POST("/Hierarchy", may(access.ManageHierarchy), s.handle(s.people.createNode))
	authed.PUT("/Hierarchy/:id", may(access.ManageHierarchy), s.handle(s.people.updateNode))
	authed.GET("/UserHierarchy/:userId/All", may(access.ReadUsers), s.handle(s.people.listUserHierarchy))
	authed.GET("/UserHierarchy/:userId/:hierarchyId", may(access.ReadUsers), s.handle(s.people.getUserHierarchy))
	authed.PUT("/UserHierarchy/:userId/:hierarchyId", may(access.ManageUsers), s.handle(s.people.putUserHierarchy))

	authed.POST("/Agent", may(access.ManageAgents), s.handle(s.people.createAgent))
	authed.PUT("/Agent/:id", may(access.ManageAgents), s.handle(s.people.updateAgent))
	authed.PUT("/Agent", may(access.ManageAgents), s.handle(s.people.updateAgent))
	authed.GET("/Agent/:id", may(access.ReadAgents), s.handle(s.people.getAgent))
	authed.GET("/Agent/All", may(access.ReadAgents), s.handle(s.people.listAgents))

	authed.POST("/Media/Upload", drainAfterRefusal, may(access.Upload), s.handle(s.conversations.mediaUpload))
	authed.POST("/TextMedia/Upload", drainAfterRefusal, may(access.Upload), s.handle(s.conversations.textMediaUpload))
	authed.GET("/Metadata", may(access.ReadConversations), s.handle(s.conversations.getMetadata))
	authed.POST("/Metadata", may(access.ReadConversations), s.handle(s.conversations.postMetadata))
	authed.PATCH("/Metadata/:id", may(access.EditConversations), s.handle(s.conversations.patchMetadata))

	authed.GET("/Conversations/Transcriptions/:conversationId", may(access.ReadConversations), s.handle(s.conversations.getTranscript))
	authed.POST("/Conversations/Transcriptions", may(access.ReadConversations), s.handle(s.conversations.postTranscripts))

	authed.GET("/Conversations/Classifiers", may(access.ReadClassifiers), s.handle(s.classifiers.listClassifiers))
	authed.POST("/Conversations/Classifiers", may(access.ManageClassifiers), s.handle(s.classifiers.createClassifier))
	authed.POST("/Conversations/Classifiers/Train", may(access.ManageClassifiers), s.handle(s.classifiers.trainClassifiers))
	authed.GET("/Conversations/Classifiers/:id", may(access.ReadClassifiers), s.handle(s.classifiers.getClassifier))
	authed.PUT("/Conversations/Classifiers/:id", may(access.ManageClassifiers), s.handle(s.classifiers.updateClassifier))
	authed.DELETE("/Conversations/Classifiers/:id", may(access.ManageClassifiers), s.handle(s.classifiers.deleteClassifier))
	authed.POST("/Conversations/Classifiers/:id/Test", may(access.ManageClassifiers), s.handle(s.classifiers.testClassifier))
	authed.POST("/Conversations/Classifiers/:id/Reclassify", may(access.ManageClassifiers), s.handle(s.classifiers.reclassify))
	authed.GET("/Jobs/:id", may(access.ReadClassifiers), s.handle(s.classifiers.getJob))

	authed.GET("/Evaluations", may(access.ReadResults), s.handle(s.quality.listEvaluations))
	authed.GET("/Evaluations/Modules", may(access.ReadResults), s.handle(s.quality.listModuleEvaluations))
	authed.POST("/Evaluations", may(access.ManageEvaluations), s.handle(s.quality.assignEvaluation))
	authed.GET("/Evaluations/Forms", may(access.ReadResults), s.handle(s.quality.listForms))
	authed.POST("/Evaluations/Forms", may(access.ManageEvaluations), s.handle(s.quality.createForm))
	authed.GET("/Evaluations/Forms/:id", may(access.ReadResults), s.handle(s.quality.getForm))
	authed.GET("/Evaluations/Forms/:id/Agreement", may(access.ReadResults), s.handle(s.quality.formAgreement))
	authed.GET("/Evaluations/:id", may(access.ReadResults), s.handle(s.quality.getEvaluation))
	authed.PUT("/Evaluations/:id/Answers", may(access.PerformEvaluations), s.handle(s.quality.answerEvaluation))
	authed.POST("/Evaluations/:id/Submit", may(access.PerformEvaluations), s.handle(s.quality.submitEvaluation))
	authed.PUT("/Evaluations/:id/Review", may(access.PerformEvaluations), s.handle(s.quality.reviewEvaluation))

	authed.GET("/Workflows", may(access.ReadResults), s.handle(s.quality.listWorkflows))
	authed.POST("/Workflows", may(access.ManageEvaluations), s.handle(s.quality.startWorkflow))
	authed.GET("/Workflows/Templates", may(access.ReadResults), s.handle(s.quality.listTemplates))
	authed.POST("/Workflows/Templates", may(access.ManageEvaluations), s.handle(s.quality.createTemplate))
	authed.GET("/Workflows/:id", may(access.ReadResults), s.handle(s.quality.getWorkflow))
	authed.POST("/Workflows/:id/Advance", may(access.PerformEvaluations), s.handle(s.quality.advanceWorkflow))

	authed.GET("/ModelResults", timed, may(access.ReadResults), s.handle(s.results.getModelResults))
	authed.GET("/ModelResults/Conversation", may(access.ReadResults), s.handle(s.results.getModelResultsByConversation))
	authed.POST("/ModelResults/Reviews", may(access.RecordReviews), s.handle(s.results.postReview))
	authed.GET("/Emission", may(access.AdministerOrg), s.handle(s.delivery.getEmission))
	authed.PUT("/Emission", may(access.AdministerOrg), s.handle(s.delivery.putEmission))
	authed.DELETE("/Emission", may(access.AdministerOrg), s.handle(s.delivery.deleteEmission))
	authed.GET("/Receipts", may(access.ReadResults), s.handle(s.delivery.listReceipts))
	authed.GET("/Conversations/Insights", timed, may(access.ReadResults), s.handle(s.results.getInsights))
	authed.POST("/Conversations/Insights", timed, may(access.ReadResults), s.handle(s.results.postInsights))
	authed.GET("/Interactions", may(access.ReadConversations), s.handle(s.conversations.getInteractions))
	authed.POST("/Interactions", may(access.ReadConversations), s.handle(s.conversations.postInteractions))
	authed.GET("/Interactions/:id", may(access.ReadConversations), s.handle(s.conversations.getInteraction))

	// SCIM 2.0 provisioning: tokens with scope scim.
	scim := e.Group("/scim/v2", s.provisioning, may(access.ManageUsers), newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	for _, path := range []string{"/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/:id", "/Schemas", "/Schemas/:id"} {
		scim.GET(path, s.scimHandler)
	}
	for _, resources := range []string{"/Users", "/Groups"} {
		scim.GET(resources, s.scimHandler)
		scim.POST(resources, s.scimHandler)
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			scim.Handle(method, resources+"/:id", s.scimHandler)
		}
	}
	return e
}
