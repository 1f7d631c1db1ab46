// Package demo builds the demo organization's data through the public API,
// as a customer's integration would: a 3-level hierarchy with codes,
// agents, users, and a folder of generated conversations — chat archives
// and stereo calls spoken by flite — ready for the bulk loader.
package demo

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/earshot/earshot/internal/lab/dialogues"
	"github.com/earshot/earshot/internal/lab/synth"
)

// Options size the demo.
type Options struct {
	Chats    int // conversations in chat archives
	Calls    int // synthesized calls (0: none)
	Archives int // archives the chats are split into
	Seed     uint64
	Now      time.Time // conversations took place in the 7 days before
}

// API is the Earshot API the demo builds through.
type API struct {
	BaseURL string
	Token   string
	HTTP    *http.Client
}

// Org is what the demo created.
type Org struct {
	TeamCodes   []string // leaf codes, e.g. N1A
	RegionCodes []string
	AgentCodes  []string
	CallIDs     []string // client call ids of the calls
	ChatIDs     []string // client call ids of the chats
}

// teams: region code → site codes; each site has teams A and B.
var regions = []struct{ name, code string }{{"North", "N"}, {"South", "S"}}

// Structure creates the hierarchy (regions, sites, teams), two agents per
// team and three users.
func (a API) Structure(ctx context.Context) (Org, error) {
	var org Org
	for _, r := range regions {
		region, err := a.Create(ctx, "/Hierarchy", map[string]any{"name": r.name + " region", "code": r.code, "category": "Region"})
		if err != nil {
			return org, err
		}
		org.RegionCodes = append(org.RegionCodes, r.code)
		for s := 1; s <= 2; s++ {
			siteCode := fmt.Sprintf("%s%d", r.code, s)
			site, err := a.Create(ctx, "/Hierarchy", map[string]any{"name": fmt.Sprintf("%s site %d", r.name, s), "code": siteCode,
				"category": "Site", "parentId": region})
			if err != nil {
				return org, err
			}
			for _, t := range []string{"A", "B"} {
				teamCode := siteCode + t
				team, err := a.Create(ctx, "/Hierarchy", map[string]any{"name": "Team " + teamCode, "code": teamCode,
					"category": "Team", "parentId": site})
				if err != nil {
					return org, err
				}
				org.TeamCodes = append(org.TeamCodes, teamCode)
				for n := 1; n <= 2; n++ {
					code := fmt.Sprintf("%s-%d", teamCode, n)
					if _, err := a.Create(ctx, "/Agent", map[string]any{"firstName": "Agent", "lastName": code,
						"agentEmail": strings.ToLower(code) + "@demo.example", "agentCode": code, "osms": []string{team}}); err != nil {
						return org, err
					}
					org.AgentCodes = append(org.AgentCodes, code)
				}
			}
		}
	}
	for _, u := range []struct{ user, first, last, role string }{
		{"sam.supervisor", "Sam", "Rivera", "Supervisor"}, {"ana.analyst", "Ana", "Kim", "Analyst"}, {ConsoleUser, "Quinn", "Lopez", "Administrator"},
	} {
		if _, err := a.Create(ctx, "/User", map[string]any{"userName": u.user, "firstName": u.first, "lastName": u.last,
			"email": u.user + "@demo.example", "roleName": u.role}); err != nil {
			return org, err
		}
	}
	return org, nil
}

// Create POSTs a JSON body and returns the new resource's id.
func (a API) Create(ctx context.Context, path string, body any) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	if err := a.do(ctx, http.MethodPost, path, body, &out); err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", fmt.Errorf("POST %s: no id in the answer", path)
	}
	return out.ID, nil
}

// Get reads a JSON answer into out.
func (a API) Get(ctx context.Context, path string, out any) error {
	return a.do(ctx, http.MethodGet, path, nil, out)
}

// do sends a request with a JSON body (nil: none) and reads the JSON
// answer into out; a status other than 2xx is an error.
func (a API) do(ctx context.Context, method, path string, body, out any) error {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.BaseURL+path, reader)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, reply)
	}
	if err := json.Unmarshal(reply, out); err != nil {
		return fmt.Errorf("%s %s: %w in %s", method, path, err, reply)
	}
	return nil
}

// WriteFolder writes the conversations into dir with a manifest.jsonl for
// the bulk loader: chats in tar archives (each chat's own metadata names
// its agent, team, client call id and time), calls as stereo WAV files.
// A machine without flite gets the chats only; warn says so.
func WriteFolder(ctx context.Context, dir string, org *Org, o Options, warn func(string)) error {
	gen := dialogues.New(o.Seed)
	var manifest bytes.Buffer
	line := func(meta map[string]any) {
		b, _ := json.Marshal(meta)
		manifest.Write(append(b, '\n'))
	}
	window := 7 * 24 * time.Hour
	at := func(i, n int) time.Time {
		return o.Now.Add(-window).Add(time.Duration(i+1) * window / time.Duration(n+1)).Truncate(time.Second)
	}
	archives := max(o.Archives, 1)
	per := (o.Chats + archives - 1) / archives
	for a := range archives {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for i := a * per; i < min((a+1)*per, o.Chats); i++ {
			agent := org.AgentCodes[i%len(org.AgentCodes)]
			callID := fmt.Sprintf("demo-chat-%04d", i+1)
			d := gen.Dialogue(at(i, o.Chats))
			body, err := d.EarshotJSON(dialogues.Metadata{"AgentCode": agent, "HierarchyCode": teamOf(agent),
				"ClientCallId": callID, "InteractionDate": d.Start.Format(time.RFC3339)})
			if err != nil {
				return err
			}
			tw.WriteHeader(&tar.Header{Name: callID + ".json", Mode: 0o644, Size: int64(len(body)), ModTime: d.Start})
			tw.Write(body)
			org.ChatIDs = append(org.ChatIDs, callID)
		}
		if err := tw.Close(); err != nil {
			return err
		}
		name := fmt.Sprintf("chats/archive-%d.tar", a+1)
		if err := writeFile(filepath.Join(dir, name), buf.Bytes()); err != nil {
			return err
		}
		line(map[string]any{"FileName": name, "UploadType": "Chat"})
	}
	for i := range o.Calls {
		d := gen.Dialogue(at(i, o.Calls))
		var turns []synth.Turn
		for _, t := range d.Turns[:min(len(d.Turns), 8)] {
			turns = append(turns, synth.Turn{Speaker: t.Speaker, Text: t.Text})
		}
		call, err := synth.Stereo(ctx, turns, 0)
		if err != nil {
			warn(fmt.Sprintf("no calls in the demo: flite could not speak them (%v); make deps installs it", err))
			break
		}
		agent := org.AgentCodes[i%len(org.AgentCodes)]
		callID := fmt.Sprintf("demo-call-%d", i+1)
		name := fmt.Sprintf("calls/%s.wav", callID)
		if err := writeFile(filepath.Join(dir, name), call.WAV); err != nil {
			return err
		}
		line(map[string]any{"FileName": name, "UploadType": "Audio", "AgentCode": agent, "HierarchyCode": teamOf(agent),
			"ClientCallId": callID, "InteractionDate": d.Start.Format(time.RFC3339), "CallDirection": "Inbound"})
		org.CallIDs = append(org.CallIDs, callID)
	}
	return writeFile(filepath.Join(dir, "manifest.jsonl"), manifest.Bytes())
}

// teamOf is an agent's team code (agent N1A-2 is in team N1A).
func teamOf(agentCode string) string { return agentCode[:strings.LastIndex(agentCode, "-")] }

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// ConsoleUser is the demo's administrator, who signs in to the web
// console (the demo prints its password).
const ConsoleUser = "quinn.qa"
