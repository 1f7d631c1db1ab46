package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
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
	// per client.
	authed := e.Group("", s.authenticate, newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	authed.GET("/Me", s.me)

	authed.GET("/User/All", s.listUsers)
	authed.GET("/User/:id", s.getUser)
	authed.GET("/User", s.findUser)
	authed.POST("/User", s.createUser)
	authed.PUT("/User/:id", s.updateUser)
	authed.GET("/Roles/All", s.listRoles)

	authed.GET("/Hierarchy/All", s.hierarchyTree)
	authed.GET("/Hierarchy", s.hierarchyList)
	authed.POST("/Hierarchy", s.createNode)
	authed.PUT("/Hierarchy/:id", s.updateNode)
	authed.GET("/UserHierarchy/:userId/All", s.listUserHierarchy)
	authed.GET("/UserHierarchy/:userId/:hierarchyId", s.getUserHierarchy)
	authed.PUT("/UserHierarchy/:userId/:hierarchyId", s.putUserHierarchy)

	authed.POST("/Agent", s.createAgent)
	authed.PUT("/Agent/:id", s.updateAgent)
	authed.PUT("/Agent", s.updateAgent)
	authed.GET("/Agent/:id", s.getAgent)
	authed.GET("/Agent/All", s.listAgents)

	authed.POST("/Media/Upload", drainAfterRefusal, s.mediaUpload)
	authed.POST("/TextMedia/Upload", drainAfterRefusal, s.textMediaUpload)
	authed.GET("/Metadata", s.getMetadata)
	authed.POST("/Metadata", s.postMetadata)
	authed.PATCH("/Metadata/:id", s.patchMetadata)

	authed.GET("/Conversations/Transcriptions/:conversationId", s.getTranscript)
	authed.POST("/Conversations/Transcriptions", s.postTranscripts)

	authed.GET("/Conversations/Classifiers", s.listClassifiers)
	authed.POST("/Conversations/Classifiers", s.createClassifier)
	authed.POST("/Conversations/Classifiers/Train", s.trainClassifiers)
	authed.GET("/Conversations/Classifiers/:id", s.getClassifier)
	authed.PUT("/Conversations/Classifiers/:id", s.updateClassifier)
	authed.DELETE("/Conversations/Classifiers/:id", s.deleteClassifier)
	authed.POST("/Conversations/Classifiers/:id/Test", s.testClassifier)
	authed.POST("/Conversations/Classifiers/:id/Reclassify", s.reclassify)
	authed.GET("/Jobs/:id", s.getJob)

	authed.GET("/Evaluations", s.listEvaluations)
	authed.GET("/Evaluations/Modules", s.listModuleEvaluations)
	authed.POST("/Evaluations", s.assignEvaluation)
	authed.GET("/Evaluations/Forms", s.listForms)
	authed.POST("/Evaluations/Forms", s.createForm)
	authed.GET("/Evaluations/Forms/:id", s.getForm)
	authed.GET("/Evaluations/:id", s.getEvaluation)
	authed.PUT("/Evaluations/:id/Answers", s.answerEvaluation)
	authed.POST("/Evaluations/:id/Submit", s.submitEvaluation)

	authed.GET("/Workflows", s.listWorkflows)
	authed.POST("/Workflows", s.startWorkflow)
	authed.GET("/Workflows/Templates", s.listTemplates)
	authed.POST("/Workflows/Templates", s.createTemplate)
	authed.GET("/Workflows/:id", s.getWorkflow)
	authed.POST("/Workflows/:id/Advance", s.advanceWorkflow)

	authed.GET("/ModelResults", s.getModelResults)
	authed.GET("/ModelResults/Conversation", s.getModelResultsByConversation)
	authed.POST("/ModelResults/Reviews", s.postReview)
	authed.GET("/Emission", s.getEmission)
	authed.PUT("/Emission", s.putEmission)
	authed.DELETE("/Emission", s.deleteEmission)
	authed.GET("/Receipts", s.listReceipts)
	authed.GET("/Conversations/Insights", s.getInsights)
	authed.POST("/Conversations/Insights", s.postInsights)
	authed.GET("/Interactions", s.getInteractions)
	authed.POST("/Interactions", s.postInteractions)
	authed.GET("/Interactions/:id", s.getInteraction)

	// SCIM 2.0 provisioning: tokens with scope scim.
	scim := e.Group("/scim/v2", s.provisioning, newRateLimiter(s.opts.RatePerSec, s.opts.RateBurst, byClientID).middleware)
	for _, path := range []string{"/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/:id", "/Schemas", "/Schemas/:id", "/Users"} {
		scim.GET(path, s.scimHandler)
	}
	scim.POST("/Users", s.scimHandler)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		scim.Handle(method, "/Users/:id", s.scimHandler)
	}
	return e
}
