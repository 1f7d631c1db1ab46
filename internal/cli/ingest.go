package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/earshot/earshot/api"
	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/pipeline/bulk"
	"github.com/earshot/earshot/warehouse/catalog"
)

func ingestCommand(cfg *Config) *cobra.Command {
	var orgRef string
	var workers int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ingest DIR",
		Short: "Bulk-load a folder of recordings and chat archives described by manifest.csv or manifest.jsonl",
		Long: `Uploads every file the folder's manifest names (one row per file, with the upload metadata
keys: FileName — also the file's path in the folder —, UploadType, AgentCode, …) through the
upload API, runs the ingest job, and prints what was accepted, rejected, processed and failed.
Works with a running server (through it) or without one (in this process). Run again on the same
folder (after an interruption, say), files already uploaded are not sent again: their uploads are
processed if they are still pending and reported with the rest. Exits with status 1 when anything
was rejected or failed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			target, err := OpenIngestTarget(ctx, cfg, orgRef)
			if err != nil {
				return err
			}
			defer target.Close()
			summary, err := LoadFolder(ctx, target, args[0], workers, c.ErrOrStderr())
			if err != nil {
				return err
			}
			if asJSON {
				printJSON(c, summary)
			} else {
				printSummary(c.OutOrStdout(), summary)
			}
			if !summary.OK() {
				return fmt.Errorf("%d rejected, %d failed, %d chats failed, %d still pending",
					len(summary.Rejected), summary.Failed, summary.ChatsFailed, summary.Pending)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&orgRef, "org", admin.DefaultOrgName, "organization id or name the files belong to")
	cmd.Flags().IntVar(&workers, "workers", 4, "uploads sent at once")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// LoadFolder uploads the files a folder's manifest names, runs the ingest
// job and sums up what happened to each.
func LoadFolder(ctx context.Context, target *IngestTarget, dir string, workers int, progress io.Writer) (bulk.Summary, error) {
	start := time.Now()
	items, rejected, err := bulk.ReadManifest(dir)
	if err != nil {
		return bulk.Summary{}, err
	}
	bar := ProgressBar(len(items), "uploading")
	client := &bulk.Client{BaseURL: target.BaseURL, Token: target.Token, HTTP: &http.Client{}, Workers: workers}
	accepted, refused := client.Upload(ctx, items, func() { bar.Add(1) })
	bar.Finish()
	rejected = append(rejected, refused...)
	if len(accepted) > 0 {
		fmt.Fprintln(progress, "processing", len(accepted), "uploads …")
		if err := RunUntilFree(ctx, target.RunJob, "ingest"); err != nil {
			return bulk.Summary{}, fmt.Errorf("ingest job: %w", err)
		}
	}
	outcomes, err := client.Statuses(ctx, accepted)
	if err != nil {
		return bulk.Summary{}, err
	}
	return bulk.Summarize(rejected, outcomes, time.Since(start)), nil
}

// RunUntilFree runs a job, waiting while a scheduled run of it is going on
// (a run drains every pending upload, so ours are done when one of ours ends).
func RunUntilFree(ctx context.Context, run func(context.Context, string) (catalog.JobRun, error), name string) error {
	for {
		_, err := run(ctx, name)
		if err == nil || !strings.Contains(err.Error(), jobs.ErrBusy.Error()) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// IngestTarget is an API to upload to and a way to run its jobs: a running
// server (through its admin socket), or this process.
type IngestTarget struct {
	BaseURL string
	Token   string
	RunJob  func(ctx context.Context, name string) (catalog.JobRun, error)
	Close   func()
}

// OpenIngestTarget opens the API of a running server (through its admin
// socket) or, when none runs, serves one in this process on loopback.
func OpenIngestTarget(ctx context.Context, cfg *Config, orgRef string) (*IngestTarget, error) {
	if remote, err := admin.Dial(cfg.adminSocket()); err == nil {
		orgID, err := resolveOrg(ctx, remote, orgRef)
		if err != nil {
			return nil, err
		}
		access, err := remote.OperatorAccess(ctx, orgID)
		if err != nil {
			return nil, err
		}
		return &IngestTarget{BaseURL: access.BaseURL, Token: access.Token, RunJob: remote.RunJob, Close: func() {}}, nil
	}
	// No server: serve the API in this process, on loopback only.
	maxUpload, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	log := newLogger(os.Stderr, slog.LevelWarn, cfg.LogFormat)
	st, err := OpenStack(ctx, cfg, log, api.Options{PublicURL: base, MaxUploadBytes: maxUpload})
	if err != nil {
		ln.Close()
		return nil, err
	}
	orgID, err := resolveOrg(ctx, st.admin, orgRef)
	if err != nil {
		st.Close()
		ln.Close()
		return nil, err
	}
	token, err := st.Tokens.IssueForOperator(orgID, oauth.Scope)
	if err != nil {
		st.Close()
		ln.Close()
		return nil, err
	}
	srv := &http.Server{Handler: st.Handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return &IngestTarget{BaseURL: base, Token: token, RunJob: st.runner.Run, Close: func() {
		srv.Shutdown(context.Background())
		st.Close()
	}}, nil
}

// ProgressBar draws on a terminal only; in logs and pipes it stays silent.
func ProgressBar(n int, what string) *progressbar.ProgressBar {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return progressbar.NewOptions(n, progressbar.OptionSetWriter(io.Discard))
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }))
}

func printSummary(w io.Writer, s bulk.Summary) {
	chats := 0
	for _, o := range s.Outcomes {
		chats += o.Chats
	}
	earlier := ""
	if s.Earlier > 0 {
		earlier = fmt.Sprintf(" (%d uploaded by an earlier load)", s.Earlier)
	}
	fmt.Fprintf(w, "accepted %d%s, rejected %d, processed %d, failed %d, pending %d (%.1fs)\n",
		s.Accepted, earlier, len(s.Rejected), s.Processed, s.Failed, s.Pending, float64(s.ElapsedMilli)/1000)
	if chats > 0 {
		fmt.Fprintf(w, "chats found in archives: %d (%d failed)\n", chats, s.ChatsFailed)
	}
	if len(s.Rejected) > 0 {
		fmt.Fprintln(w, "rejected:")
		for _, r := range s.Rejected {
			fmt.Fprintf(w, "  line %d %s: %s\n", r.Line, r.FileName, r.Reason)
		}
	}
	for _, o := range s.Outcomes {
		if o.Status == catalog.StatusFailedToProcess || o.Failed > 0 {
			fmt.Fprintf(w, "failed: %s (%s): %v, %d of %d chats failed\n", o.FileName, o.ID, o.Failures, o.Failed, o.Chats)
		}
	}
}
