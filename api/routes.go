package api

import (
	"net/http"

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
	e.Use(requestID(), accessLog(s.deps.Logger, metrics), recovery(s.deps.Logger))
	e.NoRoute(func(c *gin.Context) {
		problem.Write(c, problem.New(http.StatusNotFound, "No operation exists at "+c.Request.Method+" "+c.Request.URL.Path+"; see /swagger/v1/swagger.json for the operations this server offers."))
	})
	e.NoMethod(func(c *gin.Context) {
		problem.Write(c, problem.New(http.StatusMethodNotAllowed, "The operation at "+c.Request.URL.Path+" does not accept "+c.Request.Method+"; the Allow header lists the methods it does accept."))
	})

	// Public operations.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", gin.WrapH(metricsHandler(s.deps.Registry)))
	if s.opts.HealthOnly {
		return e
	}
	e.GET("/swagger/v1/swagger.json", s.openAPI)
	e.GET("/.well-known/openid-configuration", s.openIDConfiguration)
	e.GET("/.well-known/jwks.json", s.jwks)
	e.POST("/connect/token", newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientIP).middleware, s.token)

	// Operations that need a bearer token with scope acxapi; rate limited
	// per client. Each names the action it is (access.Actions): a client
	// acting for a user is refused what the user's role does not allow.
	authed := e.Group("", s.authenticate, newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	authed.GET("/Me", s.people.me)

	authed.GET("/User/All", may(access.ReadUsers), s.people.listUsers)
	authed.GET("/User/:id", may(access.ReadUsers), s.people.getUser)
	authed.GET("/User", may(access.ReadUsers), s.people.findUser)
	authed.POST("/User", may(access.ManageUsers), s.people.createUser)
	authed.PUT("/User/:id", may(access.ManageUsers), s.people.updateUser)
	authed.GET("/Roles/All", may(access.ReadUsers), s.people.listRoles)

	authed.GET("/Hierarchy/All", may(access.ReadHierarchy), s.people.hierarchyTree)
	authed.GET("/Hierarchy", may(access.ReadHierarchy), s.people.hierarchyList)
	authed.POST("/Hierarchy", may(access.ManageHierarchy), s.people.createNode)
	authed.PUT("/Hierarchy/:id", may(access.ManageHierarchy), s.people.updateNode)
	authed.GET("/UserHierarchy/:userId/All", may(access.ReadUsers), s.people.listUserHierarchy)
	authed.GET("/UserHierarchy/:userId/:hierarchyId", may(access.ReadUsers), s.people.getUserHierarchy)
	authed.PUT("/UserHierarchy/:userId/:hierarchyId", may(access.ManageUsers), s.people.putUserHierarchy)

	authed.POST("/Agent", may(access.ManageAgents), s.people.createAgent)
	authed.PUT("/Agent/:id", may(access.ManageAgents), s.people.updateAgent)
	authed.PUT("/Agent", may(access.ManageAgents), s.people.updateAgent)
	authed.GET("/Agent/:id", may(access.ReadAgents), s.people.getAgent)
	authed.GET("/Agent/All", may(access.ReadAgents), s.people.listAgents)

	authed.POST("/Media/Upload", drainAfterRefusal, may(access.Upload), s.conversations.mediaUpload)
	authed.POST("/TextMedia/Upload", drainAfterRefusal, may(access.Upload), s.conversations.textMediaUpload)
	authed.GET("/Metadata", may(access.ReadConversations), s.conversations.getMetadata)
	authed.POST("/Metadata", may(access.ReadConversations), s.conversations.postMetadata)
	authed.PATCH("/Metadata/:id", may(access.EditConversations), s.conversations.patchMetadata)

	authed.GET("/Conversations/Transcriptions/:conversationId", may(access.ReadConversations), s.conversations.getTranscript)
	authed.POST("/Conversations/Transcriptions", may(access.ReadConversations), s.conversations.postTranscripts)

	authed.GET("/Conversations/Classifiers", may(access.ReadClassifiers), s.classifiers.listClassifiers)
	authed.POST("/Conversations/Classifiers", may(access.ManageClassifiers), s.classifiers.createClassifier)
	authed.POST("/Conversations/Classifiers/Train", may(access.ManageClassifiers), s.classifiers.trainClassifiers)
	authed.GET("/Conversations/Classifiers/:id", may(access.ReadClassifiers), s.classifiers.getClassifier)
	authed.PUT("/Conversations/Classifiers/:id", may(access.ManageClassifiers), s.classifiers.updateClassifier)
	authed.DELETE("/Conversations/Classifiers/:id", may(access.ManageClassifiers), s.classifiers.deleteClassifier)
	authed.POST("/Conversations/Classifiers/:id/Test", may(access.ManageClassifiers), s.classifiers.testClassifier)
	authed.POST("/Conversations/Classifiers/:id/Reclassify", may(access.ManageClassifiers), s.classifiers.reclassify)
	authed.GET("/Jobs/:id", may(access.ReadClassifiers), s.classifiers.getJob)

	authed.GET("/Evaluations", may(access.ReadResults), s.quality.listEvaluations)
	authed.GET("/Evaluations/Modules", may(access.ReadResults), s.quality.listModuleEvaluations)
	authed.POST("/Evaluations", may(access.ManageEvaluations), s.quality.assignEvaluation)
	authed.GET("/Evaluations/Forms", may(access.ReadResults), s.quality.listForms)
	authed.POST("/Evaluations/Forms", may(access.ManageEvaluations), s.quality.createForm)
	authed.GET("/Evaluations/Forms/:id", may(access.ReadResults), s.quality.getForm)
	authed.GET("/Evaluations/:id", may(access.ReadResults), s.quality.getEvaluation)
	authed.PUT("/Evaluations/:id/Answers", may(access.PerformEvaluations), s.quality.answerEvaluation)
	authed.POST("/Evaluations/:id/Submit", may(access.PerformEvaluations), s.quality.submitEvaluation)

	authed.GET("/Workflows", may(access.ReadResults), s.quality.listWorkflows)
	authed.POST("/Workflows", may(access.ManageEvaluations), s.quality.startWorkflow)
	authed.GET("/Workflows/Templates", may(access.ReadResults), s.quality.listTemplates)
	authed.POST("/Workflows/Templates", may(access.ManageEvaluations), s.quality.createTemplate)
	authed.GET("/Workflows/:id", may(access.ReadResults), s.quality.getWorkflow)
	authed.POST("/Workflows/:id/Advance", may(access.PerformEvaluations), s.quality.advanceWorkflow)

	authed.GET("/ModelResults", may(access.ReadResults), s.results.getModelResults)
	authed.GET("/ModelResults/Conversation", may(access.ReadResults), s.results.getModelResultsByConversation)
	authed.POST("/ModelResults/Reviews", may(access.RecordReviews), s.results.postReview)
	authed.GET("/Emission", may(access.AdministerOrg), s.delivery.getEmission)
	authed.PUT("/Emission", may(access.AdministerOrg), s.delivery.putEmission)
	authed.DELETE("/Emission", may(access.AdministerOrg), s.delivery.deleteEmission)
	authed.GET("/Receipts", may(access.ReadResults), s.delivery.listReceipts)
	authed.GET("/Conversations/Insights", may(access.ReadResults), s.results.getInsights)
	authed.POST("/Conversations/Insights", may(access.ReadResults), s.results.postInsights)
	authed.GET("/Interactions", may(access.ReadConversations), s.conversations.getInteractions)
	authed.POST("/Interactions", may(access.ReadConversations), s.conversations.postInteractions)
	authed.GET("/Interactions/:id", may(access.ReadConversations), s.conversations.getInteraction)

	// SCIM 2.0 provisioning: tokens with scope scim.
	scim := e.Group("/scim/v2", s.provisioning, may(access.ManageUsers), newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	for _, path := range []string{"/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/:id", "/Schemas", "/Schemas/:id", "/Users"} {
		scim.GET(path, s.scimHandler)
	}
	scim.POST("/Users", s.scimHandler)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		scim.Handle(method, "/Users/:id", s.scimHandler)
	}
	return e
}
