package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/lab/demo"
	"github.com/earshot/earshot/pipeline/analysis/starter"
	"github.com/earshot/earshot/warehouse/catalog"
)

// demoOrgName is the organization earshot demo creates.
const demoOrgName = "demo"

func demoCommand(cfg *cli.Config) *cobra.Command {
	var o demo.Options
	var ifEmpty bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: cli.DemoShort,
		Long: `Creates the organization "demo" (a 3-level hierarchy with codes, agents, users,
the example classifiers and an API client), loads generated chat archives and
stereo calls spoken by flite through the upload API, runs the ingest, sample,
compact and export jobs, and prints ready-to-run curl commands and an earshot
sql example (also kept in DATA/demo.txt). Works with or without a running
server. --if-empty does nothing (but print the commands again) when the data
directory already has a catalog: make run uses it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, out := c.Context(), c.OutOrStdout()
			notes := filepath.Join(cfg.DataDir, "demo.txt")
			if cfg.CatalogExists() && ifEmpty {
				fmt.Fprintf(out, "%s already has data: the demo is not built again.\n", cfg.DataDir)
				if saved, err := os.ReadFile(notes); err == nil {
					out.Write(saved)
				}
				return nil
			}
			o.Now = time.Now().UTC()
			text, err := buildDemo(ctx, cfg, o, c.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprint(out, text)
			return os.WriteFile(notes, []byte(text), 0o600)
		},
	}
	cmd.Flags().IntVar(&o.Chats, "chats", 300, "generated chat conversations")
	cmd.Flags().IntVar(&o.Calls, "calls", 4, "generated stereo calls (spoken by flite, transcribed by the speech engine)")
	cmd.Flags().IntVar(&o.Archives, "archives", 3, "archives the chats are uploaded in")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 2025, "seed of the generated conversations")
	cmd.Flags().BoolVar(&ifEmpty, "if-empty", false, "only build the demo when the data directory has no catalog yet")
	cmd.Flags().StringVar(&cfg.Addr, "addr", cfg.Addr, "address earshot serve listens on, for the printed commands (env EARSHOT_ADDR)")
	cmd.Flags().StringVar(&cfg.PublicURL, "public-url", cfg.PublicURL, "URL clients reach the API at, for the printed commands (env EARSHOT_PUBLIC_URL)")
	cli.JobFlags(cmd, cfg)
	return cmd
}

// demoFacts are what the printed commands name.
type demoFacts struct {
	Earshot, Addr                         string // the command, and the address it serves on
	Base, DataDir, ClientID, ClientSecret string
	Chats, Calls, Processed, Failed       int
	Classifiers                           []catalog.Classifier
	Evaluations                           int
	ModelIDs, StartDate, From, To         string
	CallID, ConversationID                string
	ConsoleUser, ConsolePassword          string
}

func buildDemo(ctx context.Context, cfg *cli.Config, o demo.Options, progress io.Writer) (string, error) {
	facts := demoFacts{Earshot: earshotCommand(), Addr: cfg.Addr, Base: cfg.ClientURL(), DataDir: cfg.DataDir, Chats: o.Chats}
	// The organization, its classifiers and an API client, through the
	// admin operations (a running server's socket, else the catalog).
	ops, done, err := cli.OpenAdmin(ctx, cfg)
	if err != nil {
		return "", err
	}
	org, err := ops.CreateOrg(ctx, demoOrgName)
	if err != nil {
		done()
		return "", fmt.Errorf("create the demo organization (is there one already? use a fresh --data directory): %w", err)
	}
	specs, _ := starter.Parse(starter.JSON)
	if facts.Classifiers, err = ops.ImportClassifiers(ctx, org.ID, specs); err == nil {
		creds, cerr := ops.CreateClient(ctx, org.ID, "demo dashboard")
		facts.ClientID, facts.ClientSecret, err = creds.ClientID, creds.ClientSecret, cerr
	}
	done()
	if err != nil {
		return "", err
	}

	target, err := cli.OpenIngestTarget(ctx, cfg, org.ID)
	if err != nil {
		return "", err
	}
	defer target.Close()
	api := demo.API{BaseURL: target.BaseURL, Token: target.Token, HTTP: &http.Client{Timeout: time.Minute}}
	fmt.Fprintln(progress, "demo: hierarchy, agents and users …")
	structure, err := api.Structure(ctx)
	if err != nil {
		return "", err
	}
	// The administrator signs in to the console with a password of its own.
	if ops, done, err = cli.OpenAdmin(ctx, cfg); err != nil {
		return "", err
	}
	signIn, err := ops.SetUserPassword(ctx, org.ID, demo.ConsoleUser, "")
	done()
	if err != nil {
		return "", err
	}
	facts.ConsoleUser, facts.ConsolePassword = signIn.UserName, signIn.Password
	byName := map[string]string{}
	for _, cl := range facts.Classifiers {
		byName[cl.Name] = cl.ID
	}
	if err := api.AutoQuality(ctx, byName); err != nil {
		return "", fmt.Errorf("the demo's auto-scored form: %w", err)
	}
	dir, err := os.MkdirTemp("", "earshot-demo-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(progress, "demo: writing %d chats and speaking %d calls …\n", o.Chats, o.Calls)
	if err := demo.WriteFolder(ctx, dir, &structure, o, func(w string) { fmt.Fprintln(progress, "demo:", w) }); err != nil {
		return "", err
	}
	summary, err := cli.LoadFolder(ctx, target, dir, 4, progress)
	if err != nil {
		return "", err
	}
	for _, oc := range summary.Outcomes {
		facts.Processed += max(oc.Chats-oc.Failed, 0)
		facts.Failed += oc.Failed
		if oc.Chats == 0 && oc.Status != catalog.StatusFailedToProcess {
			facts.Processed++
		}
	}
	facts.Calls = len(structure.CallIDs)
	for _, job := range []string{"sample", "compact", "export"} {
		fmt.Fprintln(progress, "demo: running the", job, "job …")
		if err := cli.RunUntilFree(ctx, target.RunJob, job); err != nil {
			return "", fmt.Errorf("%s job: %w", job, err)
		}
	}

	var ids []string
	for _, cl := range facts.Classifiers {
		ids = append(ids, cl.ID)
	}
	facts.ModelIDs = strings.Join(ids, ",")
	day := o.Now.Truncate(24 * time.Hour)
	facts.StartDate = day.Format(time.DateOnly)
	facts.From, facts.To = url.QueryEscape(day.Format(time.RFC3339)), url.QueryEscape(day.Add(24*time.Hour-time.Second).Format(time.RFC3339))
	facts.CallID = "demo-chat-0001"
	if len(structure.CallIDs) > 0 {
		facts.CallID = structure.CallIDs[0]
	}
	if facts.ConversationID, err = conversationOf(ctx, api, facts.CallID, ids[0]); err != nil {
		return "", err
	}
	reviewed := []string{facts.ConversationID} // the QA work waiting in the console's queue
	if len(structure.ChatIDs) > 0 && structure.ChatIDs[0] != facts.CallID {
		chat, err := conversationOf(ctx, api, structure.ChatIDs[0], ids[0])
		if err != nil {
			return "", err
		}
		reviewed = append(reviewed, chat)
	}
	if err := api.Quality(ctx, reviewed); err != nil {
		return "", fmt.Errorf("the demo's QA work: %w", err)
	}
	facts.Evaluations = len(reviewed)
	var text bytes.Buffer
	err = demoNotes.Execute(&text, facts)
	return text.String(), err
}

// earshotCommand is how the printed commands run earshot: by name when
// PATH finds the earshot beside this binary (make build puts them
// together), else by that earshot's path.
func earshotCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "earshot"
	}
	beside := filepath.Join(filepath.Dir(self), "earshot")
	besideInfo, err := os.Stat(beside)
	if err != nil {
		return "earshot"
	}
	if onPath, err := exec.LookPath("earshot"); err == nil {
		if info, err := os.Stat(onPath); err == nil && os.SameFile(info, besideInfo) {
			return "earshot"
		}
	}
	return beside
}

// conversationOf finds the conversation of a client call id.
func conversationOf(ctx context.Context, api demo.API, clientCallID, modelID string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api.BaseURL+"/ModelResults/Conversation?clientCallIds="+
		url.QueryEscape(clientCallID)+"&modelIds="+modelID, nil)
	req.Header.Set("Authorization", "Bearer "+api.Token)
	resp, err := api.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var items []struct {
		ConversationID string `json:"conversationId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&items); err != nil || len(items) == 0 {
		return "", fmt.Errorf("the demo conversation %s was not processed (%d %v)", clientCallID, resp.StatusCode, err)
	}
	return items[0].ConversationID, nil
}

var demoNotes = template.Must(template.New("demo").Parse(`
Earshot demo: organization "demo" with {{.Processed}} processed conversations ({{.Chats}} chats, {{.Calls}} calls{{if .Failed}}, {{.Failed}} failed{{end}}),
{{len .Classifiers}} classifiers, a hierarchy North/South → sites → teams (codes N, N1, N1A, …), 16 agents, 3 users.

Serve the API (make run does): {{.Earshot}} serve --data {{.DataDir}} --addr {{.Addr}}

# The web console: {{.Base}}/console — organization "demo", user {{.ConsoleUser}}, password {{.ConsolePassword}}
# ({{.Evaluations}} evaluations of the "Call quality" form wait in its Queue; the Dashboard sorts agents by any classifier;
#  the "Automated QA" form is answered by the classifiers on every conversation)

# A token for the demo's API client (client_credentials; valid one hour):
export EARSHOT=` + "{{.Base}}" + `
export TOKEN=$(curl -s -X POST $EARSHOT/connect/token -d grant_type=client_credentials -d client_id={{.ClientID}} -d client_secret={{.ClientSecret}} | jq -r .access_token)

# The classifiers:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/Conversations/Classifiers" | jq '.[] | {id, name, classifierType}'
# Every conversation's Auto evaluation on the "Automated QA" form, first 3:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/Evaluations?Source=Auto&PageSize=3" | jq '.[] | {evaluationNumber, status, score, agent: .agent.agentCode}'
# Today's model results (every classifier), first 3 conversations:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/ModelResults?startDate={{.StartDate}}&pageSize=3&modelIds={{.ModelIDs}}" | jq
# One conversation's results by its client call id:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/ModelResults/Conversation?clientCallIds={{.CallID}}&modelIds={{.ModelIDs}}" | jq
# Insights of the North region today, with the paging headers:
curl -s -D - -H "Authorization: Bearer $TOKEN" "$EARSHOT/Conversations/Insights?StartDate={{.From}}&EndDate={{.To}}&HierarchyCodes=N&PageSize=5"
# The transcript of {{.CallID}}:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/Conversations/Transcriptions/{{.ConversationID}}" | jq
# The hierarchy, agents and users:
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/Hierarchy/All" | jq '.[].name'
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/Agent/All" | jq 'length'
curl -s -H "Authorization: Bearer $TOKEN" "$EARSHOT/User/All" | jq '.[].userName'

# SQL over the lake (works while the server runs):
{{.Earshot}} sql --data {{.DataDir}} "SELECT k.name, count(*) FILTER (r.result = 'true') AS hits, count(*) AS conversations FROM classifier_results r JOIN classifiers k USING (classifier_id) GROUP BY k.name ORDER BY k.name"
`))
