package admin

import (
	"context"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Stores are the catalog stores the operators' service works on, each
// declared by the methods it uses (in earshot serve, the catalog's own).
type Stores struct {
	Orgs        OrgStore
	People      UserStore
	Classifiers ClassifierStore
	Settings    SettingStore
	Manifest    ManifestLister
	Jobs        JobRunLister
	Keys        KeyStore
}

// CatalogStores are an open catalog's stores.
func CatalogStores(cat *catalog.Catalog) Stores {
	return Stores{Orgs: cat.Orgs, People: cat.People, Classifiers: cat.Classifiers, Settings: cat.Settings, Manifest: cat.Manifest, Jobs: cat.Jobs, Keys: cat.Keys}
}

// OrgStore keeps organizations and their API clients (catalog.OrgStore).
type OrgStore interface {
	CreateOrganization(ctx context.Context, name string) (catalog.Organization, error)
	Organization(ctx context.Context, id string) (catalog.Organization, error)
	Organizations(ctx context.Context) ([]catalog.Organization, error)
	CreateClient(ctx context.Context, client catalog.APIClient) (catalog.APIClient, error)
	Clients(ctx context.Context, orgID string) ([]catalog.APIClient, error)
	Client(ctx context.Context, id string) (catalog.APIClient, error)
	SetClientDisabled(ctx context.Context, id string, disabled bool) error
	SetClientScopes(ctx context.Context, id string, scopes []string) error
	SetClientSecret(ctx context.Context, id, secretHash string) error
	DeleteClient(ctx context.Context, id string) error
}

// UserStore keeps an organization's users and what its groups mean
// (catalog.PeopleStore).
type UserStore interface {
	Users(ctx context.Context, orgID string, active *bool) ([]catalog.User, error)
	CreateUser(ctx context.Context, orgID string, in catalog.UserInput) (catalog.User, error)
	UserByName(ctx context.Context, orgID, userName string) (catalog.User, error)
	SetPassword(ctx context.Context, orgID, userID, hash string) error
	GroupMappings(ctx context.Context, orgID string) ([]catalog.GroupMapping, error)
	SetGroupMapping(ctx context.Context, orgID string, m catalog.GroupMapping) (catalog.GroupMapping, error)
	DeleteGroupMapping(ctx context.Context, orgID, group string) error
}

// ClassifierStore keeps classifier definitions (catalog.ClassifierStore).
type ClassifierStore interface {
	PutByName(ctx context.Context, orgID string, inputs []catalog.ClassifierInput) ([]catalog.Classifier, error)
}

// SettingStore keeps organizations' audio and privacy settings
// (catalog.SettingStore).
type SettingStore interface {
	AudioSettings(ctx context.Context, orgID string) (catalog.AudioSettings, error)
	SetAudioSettings(ctx context.Context, s catalog.AudioSettings) error
	PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error)
	SetPrivacySettings(ctx context.Context, s catalog.PrivacySettings) error
}

// ManifestLister lists the lake's files (catalog.ManifestStore).
type ManifestLister interface {
	ManifestFiles(ctx context.Context, q catalog.ManifestQuery) ([]catalog.LakeFile, error)
}

// JobRunLister lists recent job runs (catalog.JobStore).
type JobRunLister interface {
	JobRuns(ctx context.Context, job string, limit int) ([]catalog.JobRun, error)
}
