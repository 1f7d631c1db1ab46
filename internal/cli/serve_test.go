package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/cli/clitest"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/spf13/cobra"
)

func freeAddr(t *testing.T) string { return clitest.FreeAddr(t) }

// startServe runs `earshot serve` in-process, as the binary would, and
// waits until it answers /healthz.
func startServe(t *testing.T, args ...string) (addr string, stop func() error) {
	t.Helper()
	return clitest.StartServe(t, func() *cobra.Command { return Root() }, args...)
}

// The acceptance path: a fresh start writes credentials, a token
// comes from /connect/token with HTTP Basic, a protected route wants it.
func TestServeFreshStartTokenAndAuth(t *testing.T) {
	data := t.TempDir()
	t.Setenv("EARSHOT_BOOTSTRAP_CLIENT_ID", "ops-client")
	t.Setenv("EARSHOT_BOOTSTRAP_CLIENT_SECRET", "ops-secret-0123456789")
	addr, stop := startServe(t, "--data", data)
	defer stop()

	raw, err := os.ReadFile(filepath.Join(data, "credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var creds map[string]string
	json.Unmarshal(raw, &creds)
	if creds["client_id"] != "ops-client" || creds["client_secret"] != "ops-secret-0123456789" {
		t.Fatalf("credentials.json = %s", raw)
	}
	if st, _ := os.Stat(filepath.Join(data, "credentials.json")); st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials.json mode %v", st.Mode().Perm())
	}

	tok := fetchToken(t, addr, creds["client_id"], creds["client_secret"])

	resp, _ := http.Get("http://" + addr + "/Me")
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Fatalf("unauthenticated /Me: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok["access_token"].(string))
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("authenticated /me: %d", resp.StatusCode)
	}
	if resp, _ := http.Get("http://" + addr + "/readyz"); resp.StatusCode != 200 {
		t.Fatalf("readyz: %d", resp.StatusCode)
	}
}

// A request in flight when the server is told to stop still completes.
func TestServeShutdownFinishesInFlightRequests(t *testing.T) {
	data := t.TempDir()
	addr, stop := startServe(t, "--data", data)
	var creds map[string]string
	raw, _ := os.ReadFile(filepath.Join(data, "credentials.json"))
	json.Unmarshal(raw, &creds)

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {creds["client_id"]}, "client_secret": {creds["client_secret"]}}.Encode()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Send the headers; once the server asks for the body (100 Continue:
	// it holds the request), ask it to stop.
	fmt.Fprintf(conn, "POST /connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(form))
	answers := bufio.NewReader(conn)
	if interim, err := http.ReadResponse(answers, nil); err != nil || interim.StatusCode != http.StatusContinue {
		t.Fatalf("the server did not ask for the body: %v %v", interim, err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	// The body follows once the server stopped listening: its shutdown has
	// begun.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		probe, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		probe.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still listens 10 s after it was told to stop")
		}
	}
	io.WriteString(conn, form)
	resp, err := http.ReadResponse(answers, nil)
	if err != nil {
		t.Fatalf("in-flight request was cut off: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("access_token")) {
		t.Fatalf("in-flight request: %d %s", resp.StatusCode, body)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("serve returned %v", err)
	}
	// And it no longer accepts connections.
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("server still answering after shutdown")
	}
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return clitest.Run(t, Root(), args...)
}

// Admin commands work with and without a running server (through its
// socket, since the server holds the catalog file).
func TestAdminCommands(t *testing.T) {
	for _, withServer := range []bool{false, true} {
		t.Run(fmt.Sprint("server running=", withServer), func(t *testing.T) {
			data := t.TempDir()
			var addr string
			if withServer {
				var stop func() error
				addr, stop = startServe(t, "--data", data)
				defer stop()
			}
			out, err := run(t, "admin", "--data", data, "org", "create", "globex")
			if err != nil {
				t.Fatal(err)
			}
			var org struct{ ID, Name string }
			json.Unmarshal([]byte(out), &org)
			if org.Name != "globex" || org.ID == "" {
				t.Fatalf("org create printed %s", out)
			}
			out, err = run(t, "admin", "client", "create", "--data", data, "--org", "globex")
			var creds map[string]string
			json.Unmarshal([]byte(out), &creds)
			if err != nil || creds["client_id"] == "" || creds["client_secret"] == "" || creds["organization_id"] != org.ID {
				t.Fatalf("client create: %v %s", err, out)
			}
			if _, err := run(t, "admin", "client", "disable", "--data", data, creds["client_id"]); err != nil {
				t.Fatal(err)
			}
			out, _ = run(t, "admin", "client", "list", "--data", data, "--org", org.ID)
			if !strings.Contains(out, creds["client_id"]) || !strings.Contains(out, `"disabled": true`) || strings.Contains(out, creds["client_secret"]) {
				t.Fatalf("client list: %s", out)
			}
			// Rotation gives a new secret; deletion removes the client.
			out, err = run(t, "admin", "client", "rotate", "--data", data, creds["client_id"])
			var rotated map[string]string
			json.Unmarshal([]byte(out), &rotated)
			if err != nil || rotated["client_id"] != creds["client_id"] || rotated["client_secret"] == "" || rotated["client_secret"] == creds["client_secret"] {
				t.Fatalf("client rotate: %v %s", err, out)
			}
			if out, err = run(t, "admin", "client", "delete", "--data", data, creds["client_id"]); err != nil || !strings.Contains(out, `"deleted": true`) {
				t.Fatalf("client delete: %v %s", err, out)
			}
			if out, _ = run(t, "admin", "client", "list", "--data", data, "--org", org.ID); strings.Contains(out, creds["client_id"]) {
				t.Fatalf("a deleted client is listed: %s", out)
			}
			if _, err := run(t, "admin", "client", "delete", "--data", data, creds["client_id"]); err == nil {
				t.Fatal("deleting a deleted client succeeded")
			}
			if _, err := run(t, "admin", "client", "create", "--data", data, "--org", "nope"); err == nil || !strings.Contains(err.Error(), "no organization") {
				t.Fatalf("unknown org: %v", err)
			}
			out, err = run(t, "admin", "user", "create", "--data", data, "--org", "globex", "--user-name", "ann",
				"--first-name", "Ann", "--last-name", "Lee", "--email", "ann@example.com", "--role", "Analyst")
			if err != nil || !strings.Contains(out, `"roleName": "Analyst"`) {
				t.Fatalf("user create: %v %s", err, out)
			}
			if _, err := run(t, "admin", "user", "create", "--data", data, "--org", "globex", "--user-name", "ann2",
				"--first-name", "A", "--last-name", "L", "--email", "a2@example.com", "--role", "Wizard"); err == nil || !strings.Contains(err.Error(), "role") {
				t.Fatalf("unknown role: %v", err)
			}
			out, err = run(t, "admin", "user", "list", "--data", data, "--org", org.ID)
			if err != nil || !strings.Contains(out, `"userName": "ann"`) {
				t.Fatalf("user list: %v %s", err, out)
			}
			// A provisioning token for an identity provider: only for a
			// client allowed scim, only from a running server; it reaches
			// /scim/v2 until the client is rotated.
			scimClient, _ := run(t, "admin", "client", "create", "--data", data, "--org", "globex")
			var sc map[string]string
			json.Unmarshal([]byte(scimClient), &sc)
			if _, err := run(t, "admin", "client", "scim-token", "--data", data, sc["client_id"]); err == nil ||
				!strings.Contains(err.Error(), map[bool]string{true: "scim scope", false: "earshot serve"}[withServer]) {
				t.Fatalf("a scim token for a client without the scope: %v", err)
			}
			if _, err := run(t, "admin", "client", "scopes", "--data", data, sc["client_id"], "acxapi", "scim"); err != nil {
				t.Fatal(err)
			}
			out, err = run(t, "admin", "client", "scim-token", "--data", data, sc["client_id"], "--days", "400")
			if !withServer {
				if err == nil || !strings.Contains(err.Error(), "earshot serve") {
					t.Fatalf("a scim token without a server: %v %s", err, out)
				}
			} else {
				var access struct{ SCIMURL, Token string }
				json.Unmarshal([]byte(out), &access)
				if err != nil || !strings.HasSuffix(access.SCIMURL, "/scim/v2") || access.Token == "" {
					t.Fatalf("scim token: %v %s", err, out)
				}
				status := func() int {
					req, _ := http.NewRequest("GET", "http://"+addr+"/scim/v2/Users", nil)
					req.Header.Set("Authorization", "Bearer "+access.Token)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					res.Body.Close()
					return res.StatusCode
				}
				if got := status(); got != http.StatusOK {
					t.Fatalf("GET /scim/v2/Users with the provisioning token: %d", got)
				}
				if _, err := run(t, "admin", "client", "rotate", "--data", data, sc["client_id"]); err != nil {
					t.Fatal(err)
				}
				if got := status(); got != http.StatusUnauthorized {
					t.Fatalf("the provisioning token after its client's rotation: %d", got)
				}
			}
			if _, err := run(t, "admin", "client", "scim-token", "--data", data, sc["client_id"], "--days", "900"); err == nil {
				t.Fatal("a provisioning token of 900 days was issued")
			}
			// Group mappings: set, refused naming the field, listed, ended.
			out, err = run(t, "admin", "group", "map", "--data", data, "--org", "globex", "--group", "Earshot Supervisors", "--role", "Supervisor")
			if err != nil || !strings.Contains(out, `"roleName": "Supervisor"`) {
				t.Fatalf("group map: %v %s", err, out)
			}
			if _, err := run(t, "admin", "group", "map", "--data", data, "--org", "globex", "--group", "QA", "--access", "nope=View:Chat"); err == nil ||
				!strings.Contains(err.Error(), "access[0].nodeId") {
				t.Fatalf("a mapping to an unknown node: %v", err)
			}
			if _, err := run(t, "admin", "group", "map", "--data", data, "--org", "globex", "--group", "QA", "--access", "nope"); err == nil ||
				!strings.Contains(err.Error(), "NODE_ID=LEVEL") {
				t.Fatalf("an access that is no NODE_ID=LEVEL:MEDIA: %v", err)
			}
			if out, err = run(t, "admin", "group", "list", "--data", data, "--org", "globex"); err != nil || !strings.Contains(out, "Earshot Supervisors") ||
				strings.Contains(out, `"QA"`) {
				t.Fatalf("group list: %v %s", err, out)
			}
			if _, err = run(t, "admin", "group", "unmap", "--data", data, "--org", "globex", "--group", "earshot supervisors"); err != nil {
				t.Fatal(err)
			}
			if out, _ = run(t, "admin", "group", "list", "--data", data, "--org", "globex"); strings.Contains(out, "Earshot Supervisors") {
				t.Fatalf("an ended mapping is listed: %s", out)
			}
			// Speech settings: shown, changed, refused when a file is missing.
			if out, err = run(t, "admin", "org", "audio", "--data", data, "globex"); err != nil || !strings.Contains(out, `"agentChannel": 0`) {
				t.Fatalf("audio show: %v %s", err, out)
			}
			if out, err = run(t, "admin", "org", "audio", "--data", data, "globex", "--agent-channel", "1"); err != nil || !strings.Contains(out, `"agentChannel": 1`) {
				t.Fatalf("audio set: %v %s", err, out)
			}
			if _, err = run(t, "admin", "org", "audio", "--data", data, "globex", "--language-model", "/nonexistent.lm", "--dictionary", "/nonexistent.dict"); err == nil ||
				!strings.Contains(err.Error(), "nonexistent") {
				t.Fatalf("missing model file: %v", err)
			}
			if out, _ = run(t, "admin", "org", "audio", "--data", data, "globex"); !strings.Contains(out, `"agentChannel": 1`) || strings.Contains(out, "languageModel") {
				t.Fatalf("after refused change: %s", out)
			}
		})
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("EARSHOT_RATE_LIMIT", "7.5")
	t.Setenv("EARSHOT_TOKEN_TTL", "15m")
	t.Setenv("EARSHOT_MAX_UPLOAD", "500MiB")
	cfg := defaultConfig()
	cmd := serveCommand(&cfg)
	cmd.Flags().Set("rate-limit", "3") // a flag beats the environment
	if err := applyEnv(cmd.Flags()); err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimit != 3 || cfg.TokenTTL != 15*time.Minute {
		t.Fatalf("cfg = %+v", cfg)
	}
	if n, err := cfg.validate(); err != nil || n != 500<<20 {
		t.Fatalf("max upload %d, %v", n, err)
	}
	t.Setenv("EARSHOT_TOKEN_TTL", "soon")
	cfg2 := defaultConfig()
	if err := applyEnv(serveCommand(&cfg2).Flags()); err == nil || !strings.Contains(err.Error(), "EARSHOT_TOKEN_TTL") {
		t.Fatalf("bad env value: %v", err)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.MaxUpload = "lots" },
		func(c *Config) { c.TokenTTL = time.Second },
		func(c *Config) { c.LogLevel = "loud" },
		func(c *Config) { c.RateBurst = 0 },
		func(c *Config) { c.ASREngine = "whisper.cpp" },
		func(c *Config) { c.ASREngine = "sherpa-onnx" },       // no model directory
		func(c *Config) { c.ASRTelephoneModel = t.TempDir() }, // no acoustic model in it
		func(c *Config) {
			c.ASREngine, c.ASRSherpaModel, c.ASRTelephoneModel = "sherpa-onnx", t.TempDir(), t.TempDir()
		},
	} {
		c := defaultConfig()
		bad(&c)
		if _, err := c.validate(); err == nil {
			t.Errorf("validate accepted %+v", c)
		}
	}
	c := defaultConfig()
	c.ASREngine, c.ASRSherpaModel = "sherpa-onnx", t.TempDir()
	if _, err := c.validate(); err == nil || !strings.Contains(err.Error(), "--asr-engine sherpa-onnx: speech recognition is not configured: no sherpa-onnx model in") {
		t.Errorf("sherpa-onnx without model files: %v", err)
	}
	c = defaultConfig()
	c.ASRTelephoneModel = sphinx.Engine{}.AcousticModel()
	if _, err := c.validate(); err != nil {
		t.Errorf("a PocketSphinx model as the telephone model: %v", err)
	}
}

// fetchToken gets a token with HTTP Basic client credentials, as a client would.
func fetchToken(t *testing.T, addr, id, secret string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/connect/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok map[string]any
	json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("token: %d %v", resp.StatusCode, tok)
	}
	return tok
}

// --catalog names where the catalog is; an engine this release does not
// have is refused with its name.
func TestCatalogFlag(t *testing.T) {
	data, elsewhere := t.TempDir(), filepath.Join(t.TempDir(), "my-catalog.db")
	if _, err := run(t, "admin", "org", "create", "acme", "--data", data, "--catalog", "sqlite://"+elsewhere); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Fatalf("the catalog is not where --catalog says: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "catalog.db")); err == nil {
		t.Fatal("a catalog was made in the data directory too")
	}
	out, err := run(t, "admin", "org", "list", "--data", data, "--catalog", "sqlite://"+elsewhere)
	if err != nil || !strings.Contains(out, `"acme"`) {
		t.Fatalf("org list: %v %s", err, out)
	}
	if _, err := run(t, "admin", "org", "list", "--data", data, "--catalog", "mysql://db/earshot"); err == nil ||
		!strings.Contains(err.Error(), "mysql:// is not a catalog engine of this release") {
		t.Fatalf("an unknown engine: %v", err)
	}
}
