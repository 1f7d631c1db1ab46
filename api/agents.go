package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// agentView is an agent as CONTRACT §9 shapes it.
type agentView struct {
	ID           string           `json:"id"`
	UserID       *string          `json:"userId"`
	FirstName    string           `json:"firstName"`
	FirstInitial string           `json:"firstInitial"`
	LastName     string           `json:"lastName"`
	AgentEmail   string           `json:"agentEmail"`
	AgentCode    *string          `json:"agentCode"`
	CreatedOn    dates.Timestamp  `json:"createdOn"`
	ModifiedOn   dates.Timestamp  `json:"modifiedOn"`
	IsActive     bool             `json:"isActive"`
	ManagerID    *string          `json:"managerId"`
	OSMs         []string         `json:"osms"`
	StartDate    *dates.Timestamp `json:"startDate"`
}

func newAgentView(a catalog.Agent) agentView {
	initial := ""
	if r := []rune(strings.TrimSpace(a.FirstName)); len(r) > 0 {
		initial = strings.ToUpper(string(r[0]))
	}
	osms := a.OSMs
	if osms == nil {
		osms = []string{}
	}
	return agentView{
		ID: a.ID, UserID: a.UserID, FirstName: a.FirstName, FirstInitial: initial, LastName: a.LastName,
		AgentEmail: a.AgentEmail, AgentCode: a.AgentCode, CreatedOn: dates.Timestamp(a.CreatedOn),
		ModifiedOn: dates.Timestamp(a.ModifiedOn), IsActive: a.IsActive, ManagerID: a.ManagerID, OSMs: osms,
		StartDate: dates.Ptr(a.StartDate),
	}
}

const agentNotFound = "No agent with this id exists in your organization."

// listAgents is GET /Agent/All?IsActive=; 404 when none.
func (s *peopleAPI) listAgents(c *gin.Context) error {
	return listActive(c, s.deps.People.Agents, newAgentView, "Your organization has no agents that match.")
}

// getAgent is GET /Agent/{id}.
func (s *peopleAPI) getAgent(c *gin.Context) error {
	return getByID(c, s.deps.People.Agent, newAgentView, agentNotFound)
}

// readAgentInput reads the fields POST and PUT share.
func readAgentInput(body *reqbody.Object, in *catalog.AgentInput) {
	in.AgentCode = body.String("agentCode")
	in.OSMs = body.GUIDs("osms")
	in.UserID = body.GUIDOrRemove("userId")
	in.ManagerID = body.GUIDOrRemove("managerId")
	in.StartDate = body.Date("startDate")
	checkEmail(body, "agentEmail", in.AgentEmail)
}

// createAgent is POST /Agent.
func (s *peopleAPI) createAgent(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	in := catalog.AgentInput{FirstName: body.Required("firstName"), LastName: body.Required("lastName"), AgentEmail: body.Required("agentEmail")}
	readAgentInput(body, &in)
	return s.writeAgent(c, body, func(ctx context.Context) (catalog.Agent, error) {
		return s.deps.People.CreateAgent(ctx, orgID(c), in)
	})
}

// updateAgent is PUT /Agent/{id}, and PUT /Agent with the id in the body.
func (s *peopleAPI) updateAgent(c *gin.Context) error {
	var id string
	if c.Param("id") != "" {
		var err error
		if id, err = pathGUID(c, "id"); err != nil {
			return err
		}
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if id == "" {
		if v := body.GUID("id"); v != nil {
			id = *v
		} else if !body.Has("id") {
			body.Fail("id", "is required.")
		}
	}
	in := catalog.AgentInput{FirstName: body.NotBlank("firstName"), LastName: body.NotBlank("lastName"),
		AgentEmail: body.NotBlank("agentEmail"), IsActive: body.Bool("isActive")}
	readAgentInput(body, &in)
	return s.writeAgent(c, body, func(ctx context.Context) (catalog.Agent, error) {
		return s.deps.People.UpdateAgent(ctx, orgID(c), id, in)
	})
}

func (s *peopleAPI) writeAgent(c *gin.Context, body *reqbody.Object, write func(context.Context) (catalog.Agent, error)) error {
	if p := body.Problem(); p != nil {
		return p
	}
	a, err := write(c.Request.Context())
	if err != nil {
		return missing(err, agentNotFound)
	}
	c.JSON(http.StatusOK, newAgentView(a))
	return nil
}
