package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// The admin socket speaks small JSON over HTTP on a Unix socket in the data
// directory (mode 0600: only the operator's account can reach it).
//
//	GET  /orgs                     POST /orgs {"name"}
//	GET  /clients?org=ID           POST /clients {"orgId","name"}
//	POST /clients/{id}/disable     POST /clients/{id}/enable
//	GET  /users?org=ID             POST /users?org=ID {"userName","firstName","lastName","email","roleName"}
//	POST /jobs/{name}/run          GET  /jobs/runs?job=NAME&limit=N
//	POST /access?org=ID            a token for the API (earshot ingest)
//	GET  /audio?org=ID             PUT  /audio {"orgId","agentChannel","languageModel","dictionary"}
//
// Errors: {"error": "...", "kind": "not_found"|"exists"|"invalid"|"rejected"|"internal"}.

// Handler serves the admin socket protocol for svc.
func Handler(svc *Service) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orgs", func(w http.ResponseWriter, r *http.Request) {
		orgs, err := svc.ListOrgs(r.Context())
		reply(w, orgs, err)
	})
	mux.HandleFunc("POST /orgs", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Name string }
		if !decode(w, r, &req) {
			return
		}
		org, err := svc.CreateOrg(r.Context(), req.Name)
		reply(w, org, err)
	})
	mux.HandleFunc("GET /clients", func(w http.ResponseWriter, r *http.Request) {
		clients, err := svc.ListClients(r.Context(), r.URL.Query().Get("org"))
		reply(w, clients, err)
	})
	mux.HandleFunc("POST /clients", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ OrgID, Name string }
		if !decode(w, r, &req) {
			return
		}
		creds, err := svc.CreateClient(r.Context(), req.OrgID, req.Name)
		reply(w, creds, err)
	})
	for action, disabled := range map[string]bool{"disable": true, "enable": false} {
		mux.HandleFunc("POST /clients/{id}/"+action, func(w http.ResponseWriter, r *http.Request) {
			err := svc.SetClientDisabled(r.Context(), r.PathValue("id"), disabled)
			reply(w, map[string]any{"clientId": r.PathValue("id"), "disabled": disabled}, err)
		})
	}
	mux.HandleFunc("GET /users", func(w http.ResponseWriter, r *http.Request) {
		users, err := svc.ListUsers(r.Context(), r.URL.Query().Get("org"))
		reply(w, users, err)
	})
	mux.HandleFunc("POST /users", func(w http.ResponseWriter, r *http.Request) {
		var u NewUser
		if !decode(w, r, &u) {
			return
		}
		user, err := svc.CreateUser(r.Context(), r.URL.Query().Get("org"), u)
		reply(w, user, err)
	})
	mux.HandleFunc("POST /jobs/{name}/run", func(w http.ResponseWriter, r *http.Request) {
		run, err := svc.RunJob(r.Context(), r.PathValue("name"))
		if err != nil && run.ID != "" { // the job ran and failed: the run says how
			reply(w, run, nil)
			return
		}
		reply(w, run, err)
	})
	mux.HandleFunc("POST /access", func(w http.ResponseWriter, r *http.Request) {
		access, err := svc.OperatorAccess(r.Context(), r.URL.Query().Get("org"))
		reply(w, access, err)
	})
	mux.HandleFunc("GET /audio", func(w http.ResponseWriter, r *http.Request) {
		settings, err := svc.AudioSettings(r.Context(), r.URL.Query().Get("org"))
		reply(w, settings, err)
	})
	mux.HandleFunc("PUT /audio", func(w http.ResponseWriter, r *http.Request) {
		var in catalog.AudioSettings
		if !decode(w, r, &in) {
			return
		}
		settings, err := svc.SetAudioSettings(r.Context(), in)
		reply(w, settings, err)
	})
	mux.HandleFunc("GET /privacy", func(w http.ResponseWriter, r *http.Request) {
		settings, err := svc.PrivacySettings(r.Context(), r.URL.Query().Get("org"))
		reply(w, settings, err)
	})
	mux.HandleFunc("PUT /privacy", func(w http.ResponseWriter, r *http.Request) {
		var in catalog.PrivacySettings
		if !decode(w, r, &in) {
			return
		}
		settings, err := svc.SetPrivacySettings(r.Context(), in)
		reply(w, settings, err)
	})
	mux.HandleFunc("POST /classifiers/import", func(w http.ResponseWriter, r *http.Request) {
		var specs []starter.Spec
		if !decode(w, r, &specs) {
			return
		}
		imported, err := svc.ImportClassifiers(r.Context(), r.URL.Query().Get("org"), specs)
		reply(w, imported, err)
	})
	mux.HandleFunc("GET /jobs/runs", func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 {
			limit = 20
		}
		runs, err := svc.JobRuns(r.Context(), r.URL.Query().Get("job"), limit)
		reply(w, runs, err)
	})
	mux.HandleFunc("GET /lake/files", func(w http.ResponseWriter, r *http.Request) {
		files, err := svc.LakeFiles(r.Context(), r.URL.Query().Get("org"))
		reply(w, files, err)
	})
	return mux
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(v); err != nil {
		reply(w, nil, fmt.Errorf("%w: body: %w", ErrInvalid, err))
		return false
	}
	return true
}

// errorKinds maps sentinel errors to the wire and back.
var errorKinds = map[string]error{
	"not_found": catalog.ErrNotFound,
	"exists":    catalog.ErrExists,
	"invalid":   ErrInvalid,
	"rejected":  catalog.ErrInvalid,
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		kind := "internal"
		for k, sentinel := range errorKinds {
			if errors.Is(err, sentinel) {
				kind = k
			}
		}
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error(), "kind": kind})
		return
	}
	json.NewEncoder(w).Encode(v)
}

// Listen serves h on a Unix socket at path until ctx ends. A socket file
// left by a crashed server is replaced.
func Listen(ctx context.Context, path string, h http.Handler) (stop func(), err error) {
	if _, err := Dial(path); err == nil {
		return nil, fmt.Errorf("admin socket %s: another earshot server is answering on it", path)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		os.Remove(path)
	}, nil
}

// Remote is a Service reached through a running server's admin socket.
type Remote struct {
	client *http.Client
}

// Dial connects to the admin socket at path; it fails at once when no
// server answers there.
func Dial(path string) (*Remote, error) {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil, err
	}
	conn.Close()
	transport := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	return &Remote{client: &http.Client{Transport: transport, Timeout: 30 * time.Second}}, nil
}

func (r *Remote) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, _ := json.Marshal(in)
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://admin"+path, body)
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("admin socket: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error, Kind string }
		json.NewDecoder(resp.Body).Decode(&e)
		if sentinel, ok := errorKinds[e.Kind]; ok {
			return fmt.Errorf("%s (%w)", e.Error, sentinel)
		}
		return errors.New(e.Error)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func (r *Remote) CreateOrg(ctx context.Context, name string) (org catalog.Organization, err error) {
	err = r.call(ctx, "POST", "/orgs", map[string]string{"name": name}, &org)
	return org, err
}

func (r *Remote) ListOrgs(ctx context.Context) (orgs []catalog.Organization, err error) {
	err = r.call(ctx, "GET", "/orgs", nil, &orgs)
	return orgs, err
}

func (r *Remote) CreateClient(ctx context.Context, orgID, name string) (creds Credentials, err error) {
	err = r.call(ctx, "POST", "/clients", map[string]string{"orgId": orgID, "name": name}, &creds)
	return creds, err
}

func (r *Remote) ListClients(ctx context.Context, orgID string) (clients []catalog.APIClient, err error) {
	err = r.call(ctx, "GET", "/clients?org="+url.QueryEscape(orgID), nil, &clients)
	return clients, err
}

func (r *Remote) SetClientDisabled(ctx context.Context, id string, disabled bool) error {
	action := "enable"
	if disabled {
		action = "disable"
	}
	return r.call(ctx, "POST", "/clients/"+url.PathEscape(id)+"/"+action, nil, &map[string]any{})
}

func (r *Remote) CreateUser(ctx context.Context, orgID string, u NewUser) (user catalog.User, err error) {
	err = r.call(ctx, "POST", "/users?org="+url.QueryEscape(orgID), u, &user)
	return user, err
}

func (r *Remote) ListUsers(ctx context.Context, orgID string) (users []catalog.User, err error) {
	err = r.call(ctx, "GET", "/users?org="+url.QueryEscape(orgID), nil, &users)
	return users, err
}

func (r *Remote) RunJob(ctx context.Context, name string) (run catalog.JobRun, err error) {
	r.client.Timeout = 0 // a job takes as long as it takes; the context bounds it
	err = r.call(ctx, "POST", "/jobs/"+url.PathEscape(name)+"/run", nil, &run)
	if err == nil && run.Error != nil {
		err = errors.New(*run.Error)
	}
	return run, err
}

func (r *Remote) LakeFiles(ctx context.Context, orgID string) (files []catalog.LakeFile, err error) {
	err = r.call(ctx, "GET", "/lake/files?org="+url.QueryEscape(orgID), nil, &files)
	return files, err
}

func (r *Remote) JobRuns(ctx context.Context, job string, limit int) (runs []catalog.JobRun, err error) {
	err = r.call(ctx, "GET", fmt.Sprintf("/jobs/runs?job=%s&limit=%d", url.QueryEscape(job), limit), nil, &runs)
	return runs, err
}

func (r *Remote) OperatorAccess(ctx context.Context, orgID string) (access APIAccess, err error) {
	err = r.call(ctx, "POST", "/access?org="+url.QueryEscape(orgID), nil, &access)
	return access, err
}

func (r *Remote) AudioSettings(ctx context.Context, orgID string) (s catalog.AudioSettings, err error) {
	err = r.call(ctx, "GET", "/audio?org="+url.QueryEscape(orgID), nil, &s)
	return s, err
}

func (r *Remote) SetAudioSettings(ctx context.Context, in catalog.AudioSettings) (s catalog.AudioSettings, err error) {
	err = r.call(ctx, "PUT", "/audio", in, &s)
	return s, err
}

func (r *Remote) ImportClassifiers(ctx context.Context, orgID string, specs []starter.Spec) (out []catalog.Classifier, err error) {
	err = r.call(ctx, "POST", "/classifiers/import?org="+url.QueryEscape(orgID), specs, &out)
	return out, err
}

func (r *Remote) PrivacySettings(ctx context.Context, orgID string) (s catalog.PrivacySettings, err error) {
	err = r.call(ctx, "GET", "/privacy?org="+url.QueryEscape(orgID), nil, &s)
	return s, err
}

func (r *Remote) SetPrivacySettings(ctx context.Context, in catalog.PrivacySettings) (s catalog.PrivacySettings, err error) {
	err = r.call(ctx, "PUT", "/privacy", in, &s)
	return s, err
}
