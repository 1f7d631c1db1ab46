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
	"os"
	"time"

	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// The admin socket is a thin transport for Operations: HTTP on a Unix
// socket in the data directory (mode 0600: only the operator's account can
// reach it), one request per call, POST /call/{Operation} with the call's
// arguments (after the context) as a JSON array; the answer is the result
// as JSON, or {"error": "...", "kind": "not_found"|"exists"|"invalid"|
// "rejected"|"internal"} with status 400.

// operation is one of Operations, reading its arguments from the wire.
type operation func(ctx context.Context, args []json.RawMessage) (any, error)

// operations are every operation of svc by name: the same names and
// arguments Remote sends.
func operations(svc *Service) map[string]operation {
	return map[string]operation{
		"CreateOrg":          op1(svc.CreateOrg),
		"ListOrgs":           op0(svc.ListOrgs),
		"CreateClient":       op2(svc.CreateClient),
		"ListClients":        op1(svc.ListClients),
		"SetClientDisabled":  op2(noResult(svc.SetClientDisabled)),
		"SetClientScopes":    op2(noResult(svc.SetClientScopes)),
		"RotateClientSecret": op1(svc.RotateClientSecret),
		"DeleteClient":       op1(noResult1(svc.DeleteClient)),
		"CreateUser":         op2(svc.CreateUser),
		"SetUserPassword":    op3(svc.SetUserPassword),
		"ListUsers":          op1(svc.ListUsers),
		"ProvisioningToken":  op2(svc.ProvisioningToken),
		"GroupMappings":      op1(svc.GroupMappings),
		"SetGroupMapping":    op2(svc.SetGroupMapping),
		"DeleteGroupMapping": op2(noResult(svc.DeleteGroupMapping)),
		"RunJob":             op1(svc.RunJob),
		"OperatorAccess":     op1(svc.OperatorAccess),
		"JobRuns":            op2(svc.JobRuns),
		"LakeFiles":          op1(svc.LakeFiles),
		"AudioSettings":      op1(svc.AudioSettings),
		"SetAudioSettings":   op1(svc.SetAudioSettings),
		"ImportClassifiers":  op2(svc.ImportClassifiers),
		"PrivacySettings":    op1(svc.PrivacySettings),
		"SetPrivacySettings": op1(svc.SetPrivacySettings),
		"SigningKeys":        op0(svc.SigningKeys),
		"RotateSigningKey":   op0(svc.RotateSigningKey),
		"RetireSigningKey":   op1(noResult1(svc.RetireSigningKey)),
	}
}

func op0[R any](f func(context.Context) (R, error)) operation {
	return func(ctx context.Context, args []json.RawMessage) (any, error) {
		if err := arity(args, 0); err != nil {
			return nil, err
		}
		return f(ctx)
	}
}

func op1[A, R any](f func(context.Context, A) (R, error)) operation {
	return func(ctx context.Context, args []json.RawMessage) (any, error) {
		var a A
		if err := unpack(args, &a); err != nil {
			return nil, err
		}
		return f(ctx, a)
	}
}

func op2[A, B, R any](f func(context.Context, A, B) (R, error)) operation {
	return func(ctx context.Context, args []json.RawMessage) (any, error) {
		var a A
		var b B
		if err := unpack(args, &a, &b); err != nil {
			return nil, err
		}
		return f(ctx, a, b)
	}
}

func op3[A, B, C, R any](f func(context.Context, A, B, C) (R, error)) operation {
	return func(ctx context.Context, args []json.RawMessage) (any, error) {
		var a A
		var b B
		var c C
		if err := unpack(args, &a, &b, &c); err != nil {
			return nil, err
		}
		return f(ctx, a, b, c)
	}
}

// noResult gives an operation that answers only an error an empty result.
func noResult[A, B any](f func(context.Context, A, B) error) func(context.Context, A, B) (struct{}, error) {
	return func(ctx context.Context, a A, b B) (struct{}, error) { return struct{}{}, f(ctx, a, b) }
}

func noResult1[A any](f func(context.Context, A) error) func(context.Context, A) (struct{}, error) {
	return func(ctx context.Context, a A) (struct{}, error) { return struct{}{}, f(ctx, a) }
}

func arity(args []json.RawMessage, n int) error {
	if len(args) != n {
		return fmt.Errorf("%w: %d arguments, want %d", ErrInvalid, len(args), n)
	}
	return nil
}

// unpack reads the call's arguments into targets, in order.
func unpack(args []json.RawMessage, targets ...any) error {
	if err := arity(args, len(targets)); err != nil {
		return err
	}
	for i, t := range targets {
		if err := json.Unmarshal(args[i], t); err != nil {
			return fmt.Errorf("%w: argument %d: %w", ErrInvalid, i+1, err)
		}
	}
	return nil
}

// Handler serves the admin socket for svc.
func Handler(svc *Service) http.Handler {
	ops := operations(svc)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /call/{operation}", func(w http.ResponseWriter, r *http.Request) {
		op, ok := ops[r.PathValue("operation")]
		if !ok {
			reply(w, nil, fmt.Errorf("%w: no operation %q", ErrInvalid, r.PathValue("operation")))
			return
		}
		var args []json.RawMessage
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&args); err != nil {
			reply(w, nil, fmt.Errorf("%w: arguments: %w", ErrInvalid, err))
			return
		}
		out, err := op(r.Context(), args)
		if run, ok := out.(catalog.JobRun); ok && err != nil && run.ID != "" {
			err = nil // the job ran and failed: its run says how
		}
		reply(w, out, err)
	})
	return mux
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

// call sends one operation with its arguments and reads its result into out.
func (r *Remote) call(ctx context.Context, op string, out any, args ...any) error {
	if args == nil {
		args = []any{}
	}
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://admin/call/"+op, bytes.NewReader(body))
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

// remote calls an operation of the server and returns its result.
func remote[R any](ctx context.Context, r *Remote, op string, args ...any) (R, error) {
	var out R
	err := r.call(ctx, op, &out, args...)
	return out, err
}

func (r *Remote) CreateOrg(ctx context.Context, name string) (catalog.Organization, error) {
	return remote[catalog.Organization](ctx, r, "CreateOrg", name)
}

func (r *Remote) ListOrgs(ctx context.Context) ([]catalog.Organization, error) {
	return remote[[]catalog.Organization](ctx, r, "ListOrgs")
}

func (r *Remote) CreateClient(ctx context.Context, orgID, name string) (Credentials, error) {
	return remote[Credentials](ctx, r, "CreateClient", orgID, name)
}

func (r *Remote) ListClients(ctx context.Context, orgID string) ([]catalog.APIClient, error) {
	return remote[[]catalog.APIClient](ctx, r, "ListClients", orgID)
}

func (r *Remote) SetClientScopes(ctx context.Context, id string, scopes []string) error {
	_, err := remote[struct{}](ctx, r, "SetClientScopes", id, scopes)
	return err
}

func (r *Remote) SetClientDisabled(ctx context.Context, id string, disabled bool) error {
	_, err := remote[struct{}](ctx, r, "SetClientDisabled", id, disabled)
	return err
}

func (r *Remote) RotateClientSecret(ctx context.Context, id string) (Credentials, error) {
	return remote[Credentials](ctx, r, "RotateClientSecret", id)
}

func (r *Remote) DeleteClient(ctx context.Context, id string) error {
	_, err := remote[struct{}](ctx, r, "DeleteClient", id)
	return err
}

func (r *Remote) SetUserPassword(ctx context.Context, orgID, userName, password string) (UserPassword, error) {
	return remote[UserPassword](ctx, r, "SetUserPassword", orgID, userName, password)
}

func (r *Remote) CreateUser(ctx context.Context, orgID string, u NewUser) (catalog.User, error) {
	return remote[catalog.User](ctx, r, "CreateUser", orgID, u)
}

func (r *Remote) ProvisioningToken(ctx context.Context, clientID string, days int) (ProvisioningAccess, error) {
	return remote[ProvisioningAccess](ctx, r, "ProvisioningToken", clientID, days)
}

func (r *Remote) ListUsers(ctx context.Context, orgID string) ([]catalog.User, error) {
	return remote[[]catalog.User](ctx, r, "ListUsers", orgID)
}

func (r *Remote) RunJob(ctx context.Context, name string) (catalog.JobRun, error) {
	r.client.Timeout = 0 // a job takes as long as it takes; the context bounds it
	run, err := remote[catalog.JobRun](ctx, r, "RunJob", name)
	if err == nil && run.Error != nil {
		err = errors.New(*run.Error)
	}
	return run, err
}

func (r *Remote) LakeFiles(ctx context.Context, orgID string) ([]catalog.LakeFile, error) {
	return remote[[]catalog.LakeFile](ctx, r, "LakeFiles", orgID)
}

func (r *Remote) JobRuns(ctx context.Context, job string, limit int) ([]catalog.JobRun, error) {
	return remote[[]catalog.JobRun](ctx, r, "JobRuns", job, limit)
}

func (r *Remote) OperatorAccess(ctx context.Context, orgID string) (APIAccess, error) {
	return remote[APIAccess](ctx, r, "OperatorAccess", orgID)
}

func (r *Remote) AudioSettings(ctx context.Context, orgID string) (catalog.AudioSettings, error) {
	return remote[catalog.AudioSettings](ctx, r, "AudioSettings", orgID)
}

func (r *Remote) SetAudioSettings(ctx context.Context, in catalog.AudioSettings) (catalog.AudioSettings, error) {
	return remote[catalog.AudioSettings](ctx, r, "SetAudioSettings", in)
}

func (r *Remote) ImportClassifiers(ctx context.Context, orgID string, specs []starter.Spec) ([]catalog.Classifier, error) {
	return remote[[]catalog.Classifier](ctx, r, "ImportClassifiers", orgID, specs)
}

func (r *Remote) PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error) {
	return remote[catalog.PrivacySettings](ctx, r, "PrivacySettings", orgID)
}

func (r *Remote) SetPrivacySettings(ctx context.Context, in catalog.PrivacySettings) (catalog.PrivacySettings, error) {
	return remote[catalog.PrivacySettings](ctx, r, "SetPrivacySettings", in)
}
