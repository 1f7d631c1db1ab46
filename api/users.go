package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// userView is a user as CONTRACT §9 shapes it.
type userView struct {
	OrganizationID       string           `json:"organizationId"`
	FirstName            string           `json:"firstName"`
	LastName             string           `json:"lastName"`
	UserName             string           `json:"userName"`
	PhoneNumber          *string          `json:"phoneNumber"`
	ID                   string           `json:"id"`
	Email                string           `json:"email"`
	EmailConfirmed       bool             `json:"emailConfirmed"`
	Disabled             bool             `json:"disabled"`
	RoleName             string           `json:"roleName"`
	CreatedOn            dates.Timestamp  `json:"createdOn"`
	SAMLProviderUserCode *string          `json:"samlProviderUserCode"`
	LastLogin            *dates.Timestamp `json:"lastLogin"`
	AgentID              *string          `json:"agentId"`
}

func newUserView(u catalog.User) userView {
	return userView{
		OrganizationID: u.OrgID, FirstName: u.FirstName, LastName: u.LastName, UserName: u.UserName,
		PhoneNumber: u.PhoneNumber, ID: u.ID, Email: u.Email, EmailConfirmed: u.EmailConfirmed, Disabled: u.Disabled,
		RoleName: u.RoleName, CreatedOn: dates.Timestamp(u.CreatedOn), SAMLProviderUserCode: u.SAMLProviderUserCode,
		LastLogin: dates.Ptr(u.LastLogin), AgentID: u.AgentID,
	}
}

const userNotFound = "No user with this id exists in your organization."

// listUsers is GET /User/All?IsActive=.
func (s *peopleAPI) listUsers(c *gin.Context) error {
	return listActive(c, s.deps.People.Users, newUserView, "")
}

// getUser is GET /User/{id}.
func (s *peopleAPI) getUser(c *gin.Context) error {
	return getByID(c, s.deps.People.User, newUserView, userNotFound)
}

// findUser is GET /User?UserName=.
func (s *peopleAPI) findUser(c *gin.Context) error {
	name, _ := query(c, "UserName")
	if strings.TrimSpace(name) == "" {
		return problem.Field("UserName", "is required.", "The query parameter UserName is required.")
	}
	u, err := s.deps.People.UserByName(c.Request.Context(), orgID(c), strings.TrimSpace(name))
	if err != nil {
		return missing(err, "No user with this userName exists in your organization.")
	}
	c.JSON(http.StatusOK, newUserView(u))
	return nil
}

// createUser is POST /User.
func (s *peopleAPI) createUser(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	in := catalog.UserInput{
		FirstName: body.Required("firstName"), LastName: body.Required("lastName"),
		UserName: body.Required("userName"), Email: body.Required("email"),
	}
	readUserOptionals(body, &in)
	if p := body.Problem(); p != nil {
		return p
	}
	u, err := s.deps.People.CreateUser(c.Request.Context(), orgID(c), in)
	if err != nil {
		return missing(err, userNotFound)
	}
	c.JSON(http.StatusOK, newUserView(u))
	return nil
}

// updateUser is PUT /User/{id}: the fields given change, the others stay.
func (s *peopleAPI) updateUser(c *gin.Context) error {
	id, body, err := readUpdate(c)
	if err != nil {
		return err
	}
	in := catalog.UserInput{
		FirstName: body.NotBlank("firstName"), LastName: body.NotBlank("lastName"),
		UserName: body.NotBlank("userName"), Email: body.NotBlank("email"),
	}
	readUserOptionals(body, &in)
	if p := body.Problem(); p != nil {
		return p
	}
	u, err := s.deps.People.UpdateUser(c.Request.Context(), orgID(c), id, in)
	if err != nil {
		return missing(err, userNotFound)
	}
	c.JSON(http.StatusOK, newUserView(u))
	return nil
}

// readUserOptionals reads the optional user fields and checks the formats
// of userName and email.
func readUserOptionals(body *reqbody.Object, in *catalog.UserInput) {
	in.PhoneNumber = body.String("phoneNumber")
	in.RoleName = body.NotBlank("roleName")
	in.SAMLProviderUserCode = body.String("samlProviderUserCode")
	in.Disabled = body.Bool("disabled")
	in.EmailConfirmed = body.Bool("emailConfirmed")
	if in.UserName != nil && strings.ContainsAny(*in.UserName, " \t\r\n") {
		body.Fail("userName", "must not contain spaces.")
	}
	checkEmail(body, "email", in.Email)
}

// checkEmail fails a field that holds something other than a bare e-mail
// address.
func checkEmail(body *reqbody.Object, field string, email *string) {
	if email == nil {
		return
	}
	if !catalog.ValidEmail(*email) {
		body.Fail(field, "must be an e-mail address such as ann@example.com.")
	}
}

// roleView is a role as CONTRACT §9 shapes it.
type roleView struct {
	Name        string           `json:"name"`
	Permissions []permissionView `json:"permissions"`
}

type permissionView struct {
	Permission  string `json:"permission"`
	Description string `json:"description"`
}

// listRoles is GET /Roles/All?IsActive=.
func (s *peopleAPI) listRoles(c *gin.Context) error {
	return listActive(c, s.deps.People.Roles, newRoleView, "")
}

func newRoleView(r catalog.Role) roleView {
	v := roleView{Name: r.Name, Permissions: []permissionView{}}
	for _, p := range r.Permissions {
		v.Permissions = append(v.Permissions, permissionView{Permission: p.Name, Description: p.Description})
	}
	return v
}
