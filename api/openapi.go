package api

import (
	_ "embed"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	"sigs.k8s.io/yaml"
)

// openAPIYAML is the API's OpenAPI 3 document, written by hand next to the
// handlers; TestOpenAPIMatchesRoutes keeps it and the router in step.
//
//go:embed openapi.yaml
var openAPIYAML []byte

// openAPIJSON is the document as served, converted on first use: at
// package start it would delay every command of the binary, not only the
// server.
var openAPIJSON = sync.OnceValue(func() []byte {
	doc, err := yaml.YAMLToJSON(openAPIYAML)
	if err != nil {
		panic("api/openapi.yaml is not valid YAML: " + err.Error())
	}
	return doc
})

// openAPI is GET /swagger/v1/swagger.json.
func (s *Server) openAPI(c *gin.Context) error {
	c.Data(http.StatusOK, "application/json", openAPIJSON())
	return nil
}
