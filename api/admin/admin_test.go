package admin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

func newService(t *testing.T) *Service {
	t.Helper()
	cat, err := catalog.Open(context.Background(), filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	svc := NewService(CatalogStores(cat), nil)
	svc.SetClassifiers(classifiers.Service{Store: cat.Classifiers, Compiler: registry.Compiler{}})
	return svc
}

func TestAdminDirectAndThroughSocket(t *testing.T) {
	t.Run("direct", func(t *testing.T) { exercise(t, newService(t)) })
	t.Run("socket", func(t *testing.T) {
		svc := newService(t)
		sock := filepath.Join(t.TempDir(), "admin.sock")
		stop, err := Listen(context.Background(), sock, Handler(svc))
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("socket mode: %v %v", st.Mode(), err)
		}
		if _, err := Listen(context.Background(), sock, Handler(svc)); err == nil {
			t.Fatal("a second server took over a live admin socket")
		}
		remote, err := Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		exercise(t, remote)
	})
}

func exercise(t *testing.T, a Operations) {
	ctx := context.Background()
	org, err := a.CreateOrg(ctx, "acme")
	if err != nil || org.ID == "" || org.Name != "acme" {
		t.Fatalf("create org: %+v %v", org, err)
	}
	if _, err := a.CreateOrg(ctx, "acme"); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate org: %v", err)
	}
	if _, err := a.CreateOrg(ctx, "  "); !errors.Is(err, ErrInvalid) {
		t.Fatalf("blank org: %v", err)
	}
	creds, err := a.CreateClient(ctx, org.ID, "etl")
	if err != nil || creds.ClientID == "" || len(creds.ClientSecret) < 40 || creds.OrganizationID != org.ID {
		t.Fatalf("create client: %+v %v", creds, err)
	}
	if _, err := a.CreateClient(ctx, "no-such-org", "etl"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("client of unknown org: %v", err)
	}
	clients, err := a.ListClients(ctx, org.ID)
	if err != nil || len(clients) != 1 || clients[0].ID != creds.ClientID || clients[0].Disabled {
		t.Fatalf("list clients: %+v %v", clients, err)
	}
	if err := a.SetClientDisabled(ctx, creds.ClientID, true); err != nil {
		t.Fatal(err)
	}
	if clients, _ := a.ListClients(ctx, ""); !clients[0].Disabled {
		t.Fatal("client not disabled")
	}
	if err := a.SetClientDisabled(ctx, "nobody", true); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("disable unknown: %v", err)
	}
	orgs, err := a.ListOrgs(ctx)
	if err != nil || len(orgs) != 1 {
		t.Fatalf("list orgs: %+v %v", orgs, err)
	}
	user, err := a.CreateUser(ctx, org.ID, NewUser{UserName: "ann", FirstName: "Ann", LastName: "Lee", Email: "ann@x.io", RoleName: "Analyst"})
	if err != nil || user.RoleName != "Analyst" || user.OrgID != org.ID {
		t.Fatalf("create user: %+v %v", user, err)
	}
	if _, err := a.CreateUser(ctx, org.ID, NewUser{UserName: "ANN", FirstName: "A", LastName: "B", Email: "b@x.io"}); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate user name: %v", err)
	}
	if _, err := a.CreateUser(ctx, org.ID, NewUser{UserName: "bo", FirstName: "A", LastName: "B", Email: "not-an-address"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad e-mail: %v", err)
	}
	if _, err := a.CreateUser(ctx, "no-such-org", NewUser{UserName: "bo", FirstName: "A", LastName: "B", Email: "b@x.io"}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("unknown org: %v", err)
	}
	if users, err := a.ListUsers(ctx, org.ID); err != nil || len(users) != 1 || users[0].UserName != "ann" {
		t.Fatalf("list users: %+v %v", users, err)
	}
	// Classifiers: the starter set, then again (same names: new versions);
	// a bad definition is refused, naming the entry and the path, with
	// nothing written.
	specs, _ := starter.Parse(starter.JSON)
	imported, err := a.ImportClassifiers(ctx, org.ID, specs)
	if err != nil || len(imported) != 8 || imported[0].Version != 1 {
		t.Fatalf("import: %+v %v", imported, err)
	}
	again, err := a.ImportClassifiers(ctx, org.ID, specs[:1])
	if err != nil || again[0].ID != imported[0].ID || again[0].Version != 2 {
		t.Fatalf("re-import: %+v %v", again, err)
	}
	bad := append([]starter.Spec{{Name: "New one", ClassifierType: "Classifier", CategoryName: "Topics", Definition: []byte(`{"groups":[{"rules":[{"phrases":["x"]}]}]}`)}},
		starter.Spec{Name: "Broken", ClassifierType: "Classifier", CategoryName: "Topics", Definition: []byte(`{"groups":[{"rules":[{"phrases":[]}]}]}`)})
	if _, err := a.ImportClassifiers(ctx, org.ID, bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `classifier 2 ("Broken"): definition.groups[0].rules[0].phrases`) {
		t.Fatalf("bad import: %v", err)
	}
	if _, err := a.ImportClassifiers(ctx, "no-such-org", specs); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("unknown org: %v", err)
	}
	if p, err := a.SetPrivacySettings(ctx, catalog.PrivacySettings{OrgID: org.ID, RedactPII: true}); err != nil || !p.RedactPII {
		t.Fatalf("privacy: %+v %v", p, err)
	}
	if p, err := a.PrivacySettings(ctx, org.ID); err != nil || !p.RedactPII {
		t.Fatalf("privacy read back: %+v %v", p, err)
	}
	if _, err := a.PrivacySettings(ctx, "no-such-org"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("privacy of unknown org: %v", err)
	}
	exerciseKeys(t, a)
	// The secret hash never leaves the service.
	data, _ := json.Marshal(clients)
	var raw []map[string]any
	json.Unmarshal(data, &raw)
	for k := range raw[0] {
		if k == "SecretHash" || k == "secretHash" {
			t.Fatal("secret hash serialized")
		}
	}
}

func TestBootstrap(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	path := filepath.Join(t.TempDir(), "credentials.json")
	did, err := svc.Bootstrap(ctx, path, "http://x/connect/token", "fixed-id", "fixed-secret-123")
	if err != nil || !did {
		t.Fatalf("bootstrap: %v %v", did, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials mode %v", st.Mode().Perm())
	}
	var creds Credentials
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &creds)
	if creds.ClientID != "fixed-id" || creds.ClientSecret != "fixed-secret-123" || creds.TokenURL != "http://x/connect/token" {
		t.Fatalf("credentials = %+v", creds)
	}
	orgs, _ := svc.ListOrgs(ctx)
	if len(orgs) != 1 || orgs[0].Name != DefaultOrgName || orgs[0].ID != creds.OrganizationID {
		t.Fatalf("orgs = %+v", orgs)
	}
	// A second start changes nothing.
	if did, err := svc.Bootstrap(ctx, path, "", "", ""); did || err != nil {
		t.Fatalf("second bootstrap: %v %v", did, err)
	}
	// Generated credentials when none are fixed.
	svc2 := newService(t)
	path2 := filepath.Join(t.TempDir(), "credentials.json")
	if _, err := svc2.Bootstrap(ctx, path2, "", "", ""); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path2)
	json.Unmarshal(data, &creds)
	if creds.ClientID == "fixed-id" || len(creds.ClientSecret) < 40 {
		t.Fatalf("generated credentials = %+v", creds)
	}
}

// The socket carries every operation, and refuses what is not one.
func TestSocketCarriesEveryOperation(t *testing.T) {
	ops := operations(&Service{})
	iface := reflect.TypeFor[Operations]()
	for i := range iface.NumMethod() {
		if _, ok := ops[iface.Method(i).Name]; !ok {
			t.Errorf("the socket lacks %s", iface.Method(i).Name)
		}
	}
	if len(ops) != iface.NumMethod() {
		t.Errorf("the socket has %d operations, Operations %d", len(ops), iface.NumMethod())
	}
	remote := serveSocket(t, newService(t))
	var out any
	if err := remote.call(context.Background(), "DropEverything", &out); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown operation: %v", err)
	}
	if err := remote.call(context.Background(), "CreateOrg", &out, "a", "b"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "2 arguments, want 1") {
		t.Errorf("wrong arity: %v", err)
	}
	if err := remote.call(context.Background(), "JobRuns", &out, "ingest", "many"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "argument 2") {
		t.Errorf("wrong argument type: %v", err)
	}
}

// serveSocket serves svc on an admin socket for the test and dials it.
func serveSocket(t *testing.T, svc *Service) *Remote {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "admin.sock")
	stop, err := Listen(context.Background(), sock, Handler(svc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	remote, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	return remote
}

// exerciseKeys rotates and retires signing keys (the catalog starts with
// none here: serve stores the first).
func exerciseKeys(t *testing.T, a Operations) {
	ctx := context.Background()
	if keys, err := a.SigningKeys(ctx); err != nil || len(keys) != 0 {
		t.Fatalf("keys of a new catalog: %v %v", keys, err)
	}
	first, err := a.RotateSigningKey(ctx)
	if err != nil || first.ID == "" || first.PrivateKey != "" {
		t.Fatalf("first key: %+v %v", first, err)
	}
	second, _ := a.RotateSigningKey(ctx)
	if keys, _ := a.SigningKeys(ctx); len(keys) != 2 || keys[1].ID != second.ID {
		t.Fatalf("after rotating: %+v", keys)
	}
	if err := a.RetireSigningKey(ctx, second.ID); !errors.Is(err, catalog.ErrInvalid) || !strings.Contains(err.Error(), "rotate to a new key") {
		t.Fatalf("retiring the signing key: %v", err)
	}
	if err := a.RetireSigningKey(ctx, "no-such-key"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("retiring an unknown key: %v", err)
	}
	if err := a.RetireSigningKey(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if keys, _ := a.SigningKeys(ctx); len(keys) != 1 || keys[0].ID != second.ID {
		t.Fatalf("after retiring: %+v", keys)
	}
}
