// Package admin is the operators' interface to the catalog: organizations
// and their audio and privacy settings, API clients, users, classifiers,
// the lake manifest and job runs. The CLI uses a Service directly when no
// server runs, and through the server's local socket (socket.go) when one
// does, because a running server keeps what it serves in memory and must
// see every change.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Operations are the admin operations. Service (the catalog, in process)
// and Remote (a running server's socket) both provide them, so the CLI
// works the same either way.
type Operations interface {
	CreateOrg(ctx context.Context, name string) (catalog.Organization, error)
	ListOrgs(ctx context.Context) ([]catalog.Organization, error)
	CreateClient(ctx context.Context, orgID, name string) (Credentials, error)
	ListClients(ctx context.Context, orgID string) ([]catalog.APIClient, error)
	SetClientDisabled(ctx context.Context, id string, disabled bool) error
	SetClientScopes(ctx context.Context, id string, scopes []string) error
	RotateClientSecret(ctx context.Context, id string) (Credentials, error)
	DeleteClient(ctx context.Context, id string) error
	CreateUser(ctx context.Context, orgID string, in NewUser) (catalog.User, error)
	SetUserPassword(ctx context.Context, orgID, userName, password string) (UserPassword, error)
	ListUsers(ctx context.Context, orgID string) ([]catalog.User, error)
	ProvisioningToken(ctx context.Context, clientID string, days int) (ProvisioningAccess, error)
	GroupMappings(ctx context.Context, orgID string) ([]catalog.GroupMapping, error)
	SetGroupMapping(ctx context.Context, orgID string, m catalog.GroupMapping) (catalog.GroupMapping, error)
	DeleteGroupMapping(ctx context.Context, orgID, group string) error
	RunJob(ctx context.Context, name string) (catalog.JobRun, error)
	OperatorAccess(ctx context.Context, orgID string) (APIAccess, error)
	JobRuns(ctx context.Context, job string, limit int) ([]catalog.JobRun, error)
	LakeFiles(ctx context.Context, orgID string) ([]catalog.LakeFile, error)
	AudioSettings(ctx context.Context, orgID string) (catalog.AudioSettings, error)
	SetAudioSettings(ctx context.Context, s catalog.AudioSettings) (catalog.AudioSettings, error)
	ImportClassifiers(ctx context.Context, orgID string, specs []starter.Spec) ([]catalog.Classifier, error)
	PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error)
	SetPrivacySettings(ctx context.Context, s catalog.PrivacySettings) (catalog.PrivacySettings, error)
	SigningKeys(ctx context.Context) ([]catalog.SigningKey, error)
	RotateSigningKey(ctx context.Context) (catalog.SigningKey, error)
	RetireSigningKey(ctx context.Context, id string) error
}

// JobRunner runs jobs by name.
type JobRunner interface {
	Run(ctx context.Context, name string) (catalog.JobRun, error)
}

// NewUser is a user an operator creates (earshot admin user create).
type NewUser struct {
	UserName  string `json:"userName"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Email     string `json:"email"`
	RoleName  string `json:"roleName,omitempty"` // default: the least-privileged role
}

var (
	_ Operations = (*Service)(nil)
	_ Operations = (*Remote)(nil)
)

// Service carries out admin operations on an open catalog.
type Service struct {
	stores      Stores
	jobs        JobRunner
	tokens      TokenIssuer
	baseURL     string
	publicURL   string
	classifiers ClassifierImporter
	keyring     KeyReloader
}

// TokenIssuer signs access tokens.
type TokenIssuer interface {
	IssueForOperator(orgID, scope string) (string, error)
	IssueForProvisioning(client catalog.APIClient, lifetime time.Duration) (string, error)
}

// SetAPI lets the service hand operators a token for the API at baseURL
// (earshot ingest uploads through it), and identity providers a
// provisioning token for the API at publicURL.
func (s *Service) SetAPI(tokens TokenIssuer, baseURL, publicURL string) {
	s.tokens, s.baseURL, s.publicURL = tokens, baseURL, publicURL
}

// APIAccess is a short-lived token for one organization and where the API is.
type APIAccess struct {
	Token   string `json:"token"`
	BaseURL string `json:"baseUrl"`
}

// OperatorAccess issues a token for an organization to the operator.
func (s *Service) OperatorAccess(ctx context.Context, orgID string) (APIAccess, error) {
	if s.tokens == nil {
		return APIAccess{}, fmt.Errorf("%w: this process serves no API", ErrInvalid)
	}
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return APIAccess{}, err
	}
	tok, err := s.tokens.IssueForOperator(orgID, oauth.Scope)
	return APIAccess{Token: tok, BaseURL: s.baseURL}, err
}

// ProvisioningAccess is what an identity provider's provisioning is set
// up with: the SCIM base URL and a long-lived bearer token.
type ProvisioningAccess struct {
	SCIMURL   string    `json:"scimUrl"`
	Token     string    `json:"token"`
	ExpiresOn time.Time `json:"expiresOn"`
}

// ProvisioningToken issues a client's provisioning token (scope scim,
// living days), for an identity provider that keeps one bearer token. The
// client must be allowed the scim scope; rotating, disabling or deleting
// it, or changing its scopes, ends the token.
func (s *Service) ProvisioningToken(ctx context.Context, clientID string, days int) (ProvisioningAccess, error) {
	if s.tokens == nil {
		return ProvisioningAccess{}, fmt.Errorf("%w: this process serves no API; start earshot serve first", ErrInvalid)
	}
	client, err := s.stores.Orgs.Client(ctx, clientID)
	if err != nil {
		return ProvisioningAccess{}, err
	}
	if client.Disabled || !slices.Contains(client.Scopes, oauth.ProvisioningScope) {
		return ProvisioningAccess{}, fmt.Errorf("%w: the client must be enabled and allowed the scim scope (earshot admin client scopes %s acxapi scim)",
			ErrInvalid, clientID)
	}
	lifetime := time.Duration(days) * 24 * time.Hour
	tok, err := s.tokens.IssueForProvisioning(client, lifetime)
	if err != nil {
		return ProvisioningAccess{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return ProvisioningAccess{SCIMURL: s.publicURL + "/scim/v2", Token: tok, ExpiresOn: time.Now().UTC().Add(lifetime).Truncate(time.Second)}, nil
}

// NewService works on the catalog's stores and runs its jobs.
func NewService(stores Stores, jobs JobRunner) *Service {
	return &Service{stores: stores, jobs: jobs}
}

// RunJob runs a job once, now, and returns its recorded run.
func (s *Service) RunJob(ctx context.Context, name string) (catalog.JobRun, error) {
	if s.jobs == nil {
		return catalog.JobRun{}, fmt.Errorf("%w: no jobs are configured here", ErrInvalid)
	}
	return s.jobs.Run(ctx, name)
}

// JobRuns lists recent job runs, newest first (20 without a positive limit).
func (s *Service) JobRuns(ctx context.Context, job string, limit int) ([]catalog.JobRun, error) {
	if limit <= 0 {
		limit = 20
	}
	return s.stores.Jobs.JobRuns(ctx, job, limit)
}

// LakeFiles lists the committed lake files of an organization ("": of
// all): earshot sql reads these and no others (never an uncommitted one).
func (s *Service) LakeFiles(ctx context.Context, orgID string) ([]catalog.LakeFile, error) {
	return s.stores.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: orgID})
}

// Credentials are a client's id and secret, shown once at creation.
type Credentials struct {
	ClientID       string `json:"client_id"`
	ClientSecret   string `json:"client_secret"`
	OrganizationID string `json:"organization_id"`
	TokenURL       string `json:"token_url,omitempty"`
}

// ErrInvalid: the request itself is wrong (empty name, bad secret, ...).
var ErrInvalid = errors.New("invalid request")

// CreateOrg adds an organization.
func (s *Service) CreateOrg(ctx context.Context, name string) (catalog.Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return catalog.Organization{}, fmt.Errorf("%w: an organization name must be 1 to 200 characters", ErrInvalid)
	}
	return s.stores.Orgs.CreateOrganization(ctx, name)
}

// AudioSettings returns an organization's speech settings.
func (s *Service) AudioSettings(ctx context.Context, orgID string) (catalog.AudioSettings, error) {
	return s.stores.Settings.AudioSettings(ctx, orgID)
}

// PrivacySettings returns an organization's privacy settings.
func (s *Service) PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return catalog.PrivacySettings{}, err
	}
	return s.stores.Settings.PrivacySettings(ctx, orgID)
}

// SetPrivacySettings replaces an organization's privacy settings.
func (s *Service) SetPrivacySettings(ctx context.Context, in catalog.PrivacySettings) (catalog.PrivacySettings, error) {
	if err := s.stores.Settings.SetPrivacySettings(ctx, in); err != nil {
		return catalog.PrivacySettings{}, err
	}
	return s.stores.Settings.PrivacySettings(ctx, in.OrgID)
}

// SetAudioSettings replaces an organization's speech settings; the files
// named must exist (on this machine: the ingest workers read them).
func (s *Service) SetAudioSettings(ctx context.Context, in catalog.AudioSettings) (catalog.AudioSettings, error) {
	for _, path := range []string{in.LanguageModel, in.Dictionary} {
		if path == "" {
			continue
		}
		if !filepath.IsAbs(path) {
			return catalog.AudioSettings{}, fmt.Errorf("%w: %s: give an absolute path", ErrInvalid, path)
		}
		if _, err := os.Stat(path); err != nil {
			return catalog.AudioSettings{}, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	if err := s.stores.Settings.SetAudioSettings(ctx, in); err != nil {
		return catalog.AudioSettings{}, err
	}
	return s.stores.Settings.AudioSettings(ctx, in.OrgID)
}

// ListOrgs lists every organization.
func (s *Service) ListOrgs(ctx context.Context) ([]catalog.Organization, error) {
	return s.stores.Orgs.Organizations(ctx)
}

// CreateClient adds an API client with a new id and secret to an organization.
func (s *Service) CreateClient(ctx context.Context, orgID, name string) (Credentials, error) {
	return s.createClient(ctx, orgID, name, "", "")
}

// createClient adds a client; empty id and secret are generated, given ones
// (the bootstrap's fixed credentials) are used as they are.
func (s *Service) createClient(ctx context.Context, orgID, name, id, secret string) (Credentials, error) {
	if name == "" {
		name = "api client"
	}
	if id == "" {
		id = oauth.NewClientID()
	}
	if secret == "" {
		secret = oauth.NewClientSecret()
	}
	if len(id) > 200 || strings.ContainsAny(id, ": \t\r\n") {
		return Credentials{}, fmt.Errorf("%w: a client id must be at most 200 characters, without ':' or spaces (HTTP Basic cannot carry them)", ErrInvalid)
	}
	hash, err := oauth.HashSecret(secret)
	if err != nil {
		return Credentials{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	_, err = s.stores.Orgs.CreateClient(ctx, catalog.APIClient{ID: id, OrgID: orgID, Name: name, SecretHash: hash})
	if err != nil {
		return Credentials{}, err
	}
	return Credentials{ClientID: id, ClientSecret: secret, OrganizationID: orgID}, nil
}

// ListClients lists the clients of an organization, or all when orgID is "".
func (s *Service) ListClients(ctx context.Context, orgID string) ([]catalog.APIClient, error) {
	return s.stores.Orgs.Clients(ctx, orgID)
}

// SetClientScopes sets the scopes a client may request (acxapi, scim);
// its tokens end.
func (s *Service) SetClientScopes(ctx context.Context, id string, scopes []string) error {
	return s.stores.Orgs.SetClientScopes(ctx, id, scopes)
}

// SetClientDisabled disables or re-enables a client; disabling ends the
// tokens it holds.
func (s *Service) SetClientDisabled(ctx context.Context, id string, disabled bool) error {
	return s.stores.Orgs.SetClientDisabled(ctx, id, disabled)
}

// RotateClientSecret gives a client a new secret (shown only in the
// answer) and ends the tokens issued under the old one.
func (s *Service) RotateClientSecret(ctx context.Context, id string) (Credentials, error) {
	client, err := s.stores.Orgs.Client(ctx, id)
	if err != nil {
		return Credentials{}, err
	}
	secret := oauth.NewClientSecret()
	hash, err := oauth.HashSecret(secret)
	if err != nil {
		return Credentials{}, err
	}
	if err := s.stores.Orgs.SetClientSecret(ctx, id, hash); err != nil {
		return Credentials{}, err
	}
	return Credentials{ClientID: id, ClientSecret: secret, OrganizationID: client.OrgID}, nil
}

// DeleteClient removes a client; its tokens end with it.
func (s *Service) DeleteClient(ctx context.Context, id string) error {
	return s.stores.Orgs.DeleteClient(ctx, id)
}

// CreateUser adds a user to an organization.
func (s *Service) CreateUser(ctx context.Context, orgID string, u NewUser) (catalog.User, error) {
	if _, err := s.stores.Orgs.Organization(ctx, orgID); err != nil {
		return catalog.User{}, err
	}
	for field, v := range map[string]string{"user name": u.UserName, "first name": u.FirstName, "last name": u.LastName, "e-mail": u.Email} {
		if strings.TrimSpace(v) == "" {
			return catalog.User{}, fmt.Errorf("%w: a %s is required", ErrInvalid, field)
		}
	}
	if strings.ContainsAny(u.UserName, " \t\r\n") {
		return catalog.User{}, fmt.Errorf("%w: a user name cannot contain spaces", ErrInvalid)
	}
	if !catalog.ValidEmail(u.Email) {
		return catalog.User{}, fmt.Errorf("%w: %q is not an e-mail address", ErrInvalid, u.Email)
	}
	in := catalog.UserInput{UserName: &u.UserName, FirstName: &u.FirstName, LastName: &u.LastName, Email: &u.Email}
	if u.RoleName != "" {
		in.RoleName = &u.RoleName
	}
	return s.stores.People.CreateUser(ctx, orgID, in)
}

// UserPassword is a user's new console password, shown once.
type UserPassword struct {
	UserName string `json:"userName"`
	Password string `json:"password"`
}

// SetUserPassword gives a user (by user name) a password for the web
// console: the one given (8 to 72 bytes), or a new random one. The user's
// sessions end.
func (s *Service) SetUserPassword(ctx context.Context, orgID, userName, password string) (UserPassword, error) {
	if password == "" {
		password = oauth.NewClientSecret()
	}
	hash, err := oauth.HashPassword(password)
	if err != nil {
		return UserPassword{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	u, err := s.stores.People.UserByName(ctx, orgID, userName)
	if err != nil {
		return UserPassword{}, err
	}
	return UserPassword{UserName: u.UserName, Password: password}, s.stores.People.SetPassword(ctx, orgID, u.ID, hash)
}

// ListUsers lists an organization's users.
func (s *Service) ListUsers(ctx context.Context, orgID string) ([]catalog.User, error) {
	return s.stores.People.Users(ctx, orgID, nil)
}

// DefaultOrgName is the organization a fresh install starts with.
const DefaultOrgName = "default"

// Bootstrap makes a fresh install usable: when the catalog has no
// organization it creates "default" and one client (fixed id and secret if
// given) and writes the credentials to credentialsPath, mode 0600. It
// reports whether it did anything.
func (s *Service) Bootstrap(ctx context.Context, credentialsPath, tokenURL, fixedID, fixedSecret string) (bool, error) {
	orgs, err := s.stores.Orgs.Organizations(ctx)
	if err != nil || len(orgs) > 0 {
		return false, err
	}
	org, err := s.CreateOrg(ctx, DefaultOrgName)
	if errors.Is(err, catalog.ErrExists) {
		return false, nil // another process on the catalog started first
	}
	if err != nil {
		return false, fmt.Errorf("bootstrap organization: %w", err)
	}
	creds, err := s.createClient(ctx, org.ID, "bootstrap", fixedID, fixedSecret)
	if err != nil {
		return false, fmt.Errorf("bootstrap client: %w", err)
	}
	creds.TokenURL = tokenURL
	data, _ := json.MarshalIndent(creds, "", "  ")
	if err := os.MkdirAll(filepath.Dir(credentialsPath), 0o700); err != nil {
		return false, err
	}
	if err := os.WriteFile(credentialsPath, append(data, '\n'), 0o600); err != nil {
		return false, fmt.Errorf("write %s: %w", credentialsPath, err)
	}
	return true, os.Chmod(credentialsPath, 0o600) // WriteFile keeps the mode of an existing file
}
