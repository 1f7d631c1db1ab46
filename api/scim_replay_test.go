package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

// scimReplay is a provisioning client's documented request sequence
// (testdata/scim/*.json): each step a request, the answer expected (a
// subset of its JSON), the attributes it must not hold, and the state the
// catalog must then hold. "{{name}}" in a step is the id a step saved
// under name, or the id of the test's hierarchy node "region".
type scimReplay struct {
	Client  string
	Sources map[string]string
	Steps   []struct {
		Does, Source, Method, Path string
		Body                       json.RawMessage
		Status                     int
		Save                       string
		Response                   json.RawMessage
		Absent                     []string
		DetailHas                  []string
		Stored                     []struct {
			User, Group string
			Is          map[string]any
		}
	}
}

// Okta's and Entra ID's provisioning clients, replayed against a real
// server, each step's answer and stored state checked; an organization
// maps "Supervisors" and "QA Team" to roles and hierarchy access, so
// group pushes grant and take them away.
func TestSCIMClientsReplayed(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"okta.json", "entra.json"} {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile("testdata/scim/" + file)
			if err != nil {
				t.Fatal(err)
			}
			var replay scimReplay
			if err := json.Unmarshal(raw, &replay); err != nil {
				t.Fatal(err)
			}
			e := newTestEnv(t, Options{})
			ctx := context.Background()
			tok := e.scimToken(t)
			name := "Region"
			region, err := e.cat.People.CreateNode(ctx, e.org.ID, catalog.NodeInput{Name: &name})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []catalog.GroupMapping{
				{Group: "Supervisors", RoleName: "Supervisor", Access: []catalog.GroupAccess{{NodeID: region.ID, AccessLevel: "View", Permissions: []string{"Chat"}}}},
				{Group: "QA Team", RoleName: "Analyst", Access: []catalog.GroupAccess{{NodeID: region.ID, AccessLevel: "Manage", Permissions: []string{"Chat", "Audio"}}}},
			} {
				if _, err := e.cat.People.SetGroupMapping(ctx, e.org.ID, m); err != nil {
					t.Fatal(err)
				}
			}
			server := httptest.NewServer(e.srv)
			defer server.Close()
			ids := map[string]string{"region": region.ID}
			fill := func(s string) string {
				for k, v := range ids {
					s = strings.ReplaceAll(s, "{{"+k+"}}", v)
				}
				return s
			}
			for i, step := range replay.Steps {
				if replay.Sources[step.Source] == "" {
					t.Fatalf("step %d (%s) names no source of the file", i, step.Does)
				}
				var body io.Reader
				if len(step.Body) > 0 {
					body = strings.NewReader(fill(string(step.Body)))
				}
				req, _ := http.NewRequest(step.Method, server.URL+fill(step.Path), body)
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Content-Type", "application/scim+json")
				res, err := server.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(res.Body)
				res.Body.Close()
				where := fmt.Sprintf("%s step %d, %q (%s %s)", replay.Client, i, step.Does, step.Method, step.Path)
				if res.StatusCode != step.Status {
					t.Fatalf("%s: status %d, want %d: %s", where, res.StatusCode, step.Status, got)
				}
				var answer map[string]any
				if len(got) > 0 {
					if err := json.Unmarshal(got, &answer); err != nil {
						t.Fatalf("%s: the answer is not JSON: %s", where, got)
					}
				}
				if step.Save != "" {
					ids[step.Save], _ = answer["id"].(string)
				}
				if len(step.Response) > 0 {
					var want any
					json.Unmarshal([]byte(fill(string(step.Response))), &want)
					if err := subset(want, any(answer), "answer"); err != nil {
						t.Errorf("%s: %v\n%s", where, err, got)
					}
				}
				for _, path := range step.Absent {
					if v, found := lookup(answer, fill(path)); found {
						t.Errorf("%s: %s is there (%v), want it left out", where, path, v)
					}
				}
				for _, part := range step.DetailHas {
					if detail, _ := answer["detail"].(string); !strings.Contains(detail, fill(part)) {
						t.Errorf("%s: the detail %q does not name %q", where, detail, part)
					}
				}
				for _, s := range step.Stored {
					var want any
					b, _ := json.Marshal(s.Is)
					json.Unmarshal([]byte(fill(string(b))), &want)
					stored := storedUser(t, e, fill(s.User))
					if s.Group != "" {
						stored = storedGroup(t, e, fill(s.Group))
					}
					if err := subset(want, stored, "stored"); err != nil {
						t.Errorf("%s: %v (stored: %v)", where, err, stored)
					}
				}
			}
		})
	}
}

// storedUser is what the catalog holds of a user, by the names the
// fixtures check.
func storedUser(t *testing.T, e *testEnv, id string) any {
	t.Helper()
	ctx := context.Background()
	u, err := e.cat.People.User(ctx, e.org.ID, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return map[string]any{"gone": true}
	}
	if err != nil {
		t.Fatal(err)
	}
	state, err := e.cat.People.SignInState(ctx, e.org.Name, u.UserName)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := e.cat.People.UserGroups(ctx, e.org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	grants, err := e.cat.People.Grants(ctx, e.org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"gone": false, "userName": u.UserName, "firstName": u.FirstName, "lastName": u.LastName, "email": u.Email,
		"disabled": u.Disabled, "role": u.RoleName, "password": state.PasswordHash != nil, "groups": []any{}, "grants": []any{}}
	if u.SAMLProviderUserCode != nil {
		out["externalId"] = *u.SAMLProviderUserCode
	}
	for _, g := range groups {
		out["groups"] = append(out["groups"].([]any), g.DisplayName)
	}
	for _, g := range grants {
		out["grants"] = append(out["grants"].([]any), g.NodeID+" "+g.AccessLevel+" "+strings.Join(g.Permissions, ","))
	}
	var extra any
	json.Unmarshal(u.SCIMAttributes, &extra)
	out["scim"] = extra
	return out
}

// storedGroup is what the catalog holds of a group.
func storedGroup(t *testing.T, e *testEnv, id string) any {
	t.Helper()
	g, err := e.cat.People.Group(context.Background(), e.org.ID, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return map[string]any{"gone": true}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"gone": false, "displayName": g.DisplayName, "members": []any{}}
	if g.ExternalID != nil {
		out["externalId"] = *g.ExternalID
	}
	for _, m := range g.Members {
		out["members"] = append(out["members"].([]any), m.UserID)
	}
	return out
}

// subset says where got does not hold want: an object's keys hold their
// values, a list holds the same entries in the same order (the stored
// members' ids and groups' names, listed in any order, as sets).
func subset(want, got any, at string) error {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is %v, want an object", at, got)
		}
		for k, v := range w {
			if err := subset(v, g[k], at+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s is %v, want %d entries like %v", at, got, len(w), w)
		}
		allText := !slices.ContainsFunc(w, func(x any) bool { _, ok := x.(string); return !ok })
		if allText && (strings.HasSuffix(at, ".members") || strings.HasSuffix(at, ".groups")) {
			sorted := func(l []any) []string {
				var s []string
				for _, x := range l {
					s = append(s, fmt.Sprint(x))
				}
				slices.Sort(s)
				return s
			}
			if !slices.Equal(sorted(w), sorted(g)) {
				return fmt.Errorf("%s is %v, want %v", at, g, w)
			}
			return nil
		}
		for i := range w {
			if err := subset(w[i], g[i], fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if !bytes.Equal(wj, gj) {
		return fmt.Errorf("%s is %s, want %s", at, gj, wj)
	}
	return nil
}

// lookup finds a dotted path ("Resources.0.members") in a JSON answer.
func lookup(doc any, path string) (any, bool) {
	cur := doc
	for _, part := range splitPath(path) {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// splitPath splits a dotted path, keeping a URN (which holds dots) whole.
func splitPath(path string) []string {
	if strings.HasPrefix(path, "urn:") {
		at := strings.LastIndex(path, ":")
		if dot := strings.Index(path[at:], "."); dot >= 0 {
			return append([]string{path[:at+dot]}, strings.Split(path[at+dot+1:], ".")...)
		}
		return []string{path}
	}
	return strings.Split(path, ".")
}
