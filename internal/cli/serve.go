package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api"
	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/api/console"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/legacycatalog"
	"github.com/earshot/earshot/warehouse/results"
)

func serveCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API and run the scheduled jobs (ingest, compact, sample, export, emit, janitor)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serve(ctx, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (env EARSHOT_ADDR)")
	f.StringVar(&cfg.PublicURL, "public-url", cfg.PublicURL, "base URL clients reach the API at, the tokens' issuer (default http://ADDR; env EARSHOT_PUBLIC_URL)")
	f.DurationVar(&cfg.TokenTTL, "token-ttl", cfg.TokenTTL, "access token lifetime (env EARSHOT_TOKEN_TTL)")
	f.DurationVar(&cfg.ConsoleIdle, "console-idle", cfg.ConsoleIdle, "a console session unused this long ends (env EARSHOT_CONSOLE_IDLE)")
	f.DurationVar(&cfg.ConsoleSessionMax, "console-session-max", cfg.ConsoleSessionMax, "a console session ends this long after its sign-in, however active (env EARSHOT_CONSOLE_SESSION_MAX)")
	f.BoolVar(&cfg.ConsoleSecureCookies, "console-secure-cookies", cfg.ConsoleSecureCookies, "Secure console cookies even when --public-url is http (a TLS proxy in front; env EARSHOT_CONSOLE_SECURE_COOKIES)")
	f.Float64Var(&cfg.RateLimit, "rate-limit", cfg.RateLimit, "requests per second per client, 0 = unlimited (env EARSHOT_RATE_LIMIT)")
	f.IntVar(&cfg.RateBurst, "rate-burst", cfg.RateBurst, "requests a client may burst above the rate (env EARSHOT_RATE_BURST)")
	f.StringVar(&cfg.MaxUpload, "max-upload", cfg.MaxUpload, "largest accepted upload (env EARSHOT_MAX_UPLOAD)")
	f.StringVar(&cfg.MinFreeSpace, "min-free-space", cfg.MinFreeSpace, "/readyz is 503 while the data directory's disk has less free space (0: no check) (env EARSHOT_MIN_FREE_SPACE)")
	f.StringSliceVar(&cfg.TrustedProxies, "trusted-proxies", cfg.TrustedProxies, "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For is believed (env EARSHOT_TRUSTED_PROXIES)")
	f.BoolVar(&cfg.SignedURLAllowHTTP, "signed-url-allow-http", cfg.SignedURLAllowHTTP, "accept plain http:// signedUrl values (development only; env EARSHOT_SIGNED_URL_ALLOW_HTTP)")
	f.StringSliceVar(&cfg.SignedURLAllow, "signed-url-allow", cfg.SignedURLAllow, "address ranges (CIDR) signed URLs and emission endpoints may reach despite the guard: a trusted internal store (env EARSHOT_SIGNED_URL_ALLOW)")
	f.DurationVar(&cfg.SignedURLTimeout, "signed-url-timeout", cfg.SignedURLTimeout, "how long a signedUrl download may take (env EARSHOT_SIGNED_URL_TIMEOUT)")
	f.StringVar(&cfg.OIDCIssuer, "oidc-issuer", cfg.OIDCIssuer, "the console's single sign-on: the OpenID Connect provider's issuer URL; its redirect URL is PUBLIC_URL/console/sso/callback (env EARSHOT_OIDC_ISSUER)")
	f.StringVar(&cfg.OIDCClientID, "oidc-client-id", cfg.OIDCClientID, "Earshot's client id at the provider (env EARSHOT_OIDC_CLIENT_ID)")
	f.StringVar(&cfg.OIDCClientSecret, "oidc-client-secret", cfg.OIDCClientSecret, "Earshot's client secret at the provider; prefer the variable (env EARSHOT_OIDC_CLIENT_SECRET)")
	f.StringVar(&cfg.OIDCName, "oidc-name", cfg.OIDCName, "the provider's name on the sign-in page, e.g. Okta (env EARSHOT_OIDC_NAME)")
	f.StringVar(&cfg.OIDCClaim, "oidc-claim", cfg.OIDCClaim, "what names the user: email (matched to users' e-mail) or preferred_username (matched to user names) (env EARSHOT_OIDC_CLAIM)")
	f.StringVar(&cfg.Role, "role", cfg.Role, "what this process does: all (the API and the scheduled jobs), api (the API only), jobs (the scheduled jobs only; --addr then serves /healthz, /readyz and /metrics) (env EARSHOT_ROLE)")
	f.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error (env EARSHOT_LOG_LEVEL)")
	f.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "auto (text on a terminal, JSON lines otherwise), text or json (env EARSHOT_LOG_FORMAT)")
	f.StringVar(&cfg.CPUProfile, "cpu-profile", "", "write a CPU profile of the process to this file when it stops (go tool pprof; a diagnosis aid)")
	f.StringVar(&cfg.Trace, "trace", "", "write an execution trace of the process to this file (go tool trace; a diagnosis aid, large)")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long in-flight requests may finish after SIGINT/SIGTERM (env EARSHOT_SHUTDOWN_TIMEOUT)")
	return cmd
}

func serve(ctx context.Context, cfg *Config) error {
	maxUpload, err := cfg.validate()
	if err != nil {
		return err
	}
	level, _ := parseLevel(cfg.LogLevel)
	log := newLogger(os.Stderr, level, cfg.LogFormat)
	if cfg.CPUProfile != "" {
		stopProfile, err := StartCPUProfile(cfg.CPUProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	if cfg.Trace != "" {
		stopTrace, err := startTrace(cfg.Trace)
		if err != nil {
			return err
		}
		defer stopTrace()
	}

	st, err := OpenStack(ctx, cfg, log, api.Options{PublicURL: cfg.ClientURL(), RatePerSec: cfg.RateLimit,
		RateBurst: cfg.RateBurst, TrustedProxies: cfg.TrustedProxies, MaxUploadBytes: maxUpload, HealthOnly: cfg.Role == roleJobs,
		Sampling: qa.Sampling{Rate: cfg.SampleRate, Seed: cfg.SampleSeed}})
	if err != nil {
		return err
	}
	defer st.Close()
	// Background runs (reclassifications) end with the server; st.close
	// waits for them first.
	st.runner.SetBase(ctx)
	defer st.runner.Wait()
	go jobs.WatchInterrupted(ctx, st.Catalog.Jobs, log)
	if cfg.Role != roleAPI {
		stopJobs, err := st.runner.Schedule(ctx, cfg.schedules())
		if err != nil {
			return err
		}
		defer stopJobs()
	}

	created, err := st.admin.Bootstrap(ctx, cfg.CredentialsPath(), cfg.ClientURL()+"/connect/token",
		os.Getenv("EARSHOT_BOOTSTRAP_CLIENT_ID"), os.Getenv("EARSHOT_BOOTSTRAP_CLIENT_SECRET"))
	if err != nil {
		return err
	}
	if created {
		log.Info("first start: created organization 'default' and an API client", "credentials", cfg.CredentialsPath())
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	st.admin.SetAPI(st.Tokens, "http://"+ln.Addr().String(), cfg.ClientURL())
	stopAdmin, err := admin.Listen(ctx, cfg.adminSocket(), admin.Handler(st.admin))
	if err != nil {
		ln.Close()
		return err
	}
	defer stopAdmin()
	srv := &http.Server{Handler: st.Handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	gcPercent, memoryLimit := gcSettings()
	log.Info("serving", "role", cfg.Role, "addr", ln.Addr().String(), "public_url", cfg.ClientURL(), "data", cfg.DataDir,
		"bucket", cfg.BucketURL(), "max_upload_bytes", maxUpload, "rate_limit", cfg.RateLimit, "token_ttl", cfg.TokenTTL.String(), "gogc", gcPercent, "memory_limit_bytes", memoryLimit)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// Stack is everything a server is made of, opened on a data directory.
type Stack struct {
	Catalog *catalog.Catalog
	Reader  *results.Reader
	bucket  blob.Bucket
	Tokens  *oauth.Tokens
	runner  *jobs.Runner
	admin   *admin.Service
	Handler *api.Server
	Close   func()
}

// OpenStack opens the catalog, the bucket and the keys, and builds the jobs
// and the API on them.
func OpenStack(ctx context.Context, cfg *Config, log *slog.Logger, opts api.Options) (*Stack, error) {
	stg, err := openStorage(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cat, lk, bucket := stg.cat, stg.lake, stg.bucket
	st := &Stack{Catalog: cat, Reader: lk.reader, bucket: bucket, Close: stg.close}
	keys, err := openKeyring(ctx, cfg, cat, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	registry := prometheus.NewRegistry()
	// Beside the usual Go metrics, the runtime's estimate of where the
	// process's CPU went (go_cpu_classes_*): the collector's share, and of
	// it the marking done on otherwise idle cores, tell a many-core
	// machine's CPU figures apart.
	registry.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(cpuClasses)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "earshot_queue_depth", Help: "Uploads waiting for the ingest job (status Processing).",
	}, func() float64 {
		n, _ := cat.Interactions.PendingCount(context.Background())
		return float64(n)
	}))
	evaluations := newEvaluationSlots()
	st.runner = newJobRunner(cfg, cat, lk, bucket, evaluations, log, registry)
	if root, cached := LakeRoot(cfg); cached {
		paths, err := cat.Manifest.LakePaths(ctx)
		if err == nil {
			var n int
			n, err = lake.Fill(ctx, bucket, root, paths)
			log.Info("lake cache filled from the bucket", "dir", root, "fetched", n, "files", len(paths))
		}
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("lake cache: %w", err)
		}
	}
	st.admin = admin.NewService(admin.CatalogStores(cat), st.runner)
	st.admin.SetClassifiers(classifiers.Service{Store: cat.Classifiers, Compiler: cfg.classifierCompiler()})
	st.admin.SetKeyring(keys)
	st.Tokens = oauth.NewTokens(keys, opts.PublicURL, cfg.TokenTTL)
	var sso *console.SSO
	if cfg.OIDCIssuer != "" {
		sso, err = console.NewSSO(ctx, console.SSOConfig{Name: cfg.OIDCName, Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID,
			ClientSecret: cfg.OIDCClientSecret, RedirectURL: opts.PublicURL + "/console/sso/callback", Claim: cfg.OIDCClaim})
		if err != nil {
			st.Close()
			return nil, err
		}
	}
	st.Handler, err = api.New(api.Deps{
		Catalog: cat, Orgs: cat.Orgs, People: cat.People, Interactions: cat.Interactions, Classifiers: cat.Classifiers, JobRuns: cat.Jobs, Reviews: cat.Reviews, Quality: cat.Evaluations, Workflows: cat.Workflows, Emissions: cat.Emissions,
		Console: &console.Console{People: cat.People, Organizations: cat.Orgs, Conversations: cat.Interactions, Transcripts: lk.reader,
			Figures: lk.reader, Searches: lk.reader, Classifiers: cat.Classifiers, Hierarchies: cat.People, Originals: bucket, SSO: sso, Log: log,
			SessionIdle: cfg.ConsoleIdle, SessionMax: cfg.ConsoleSessionMax, SecureCookies: cfg.ConsoleSecureCookies},
		Results: lk.reader, Compiler: cfg.classifierCompiler(), Jobs: st.runner, Evaluations: evaluations, Storage: bucket, Space: cfg.spaceCheck(),
		Keys: keys, Tokens: st.Tokens, Registry: registry, Logger: log,
		SignedURLs: cfg.signedURLs(opts.MaxUploadBytes),
	}, opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// schedules are the jobs serve runs on a schedule, by name, with their
// cron specifications.
func (cfg *Config) schedules() map[string]string {
	return map[string]string{"ingest": cfg.ScheduleIngest, "compact": cfg.ScheduleCompact, "sample": cfg.ScheduleSample, "export": cfg.ScheduleExport,
		"emit": cfg.ScheduleEmit, "janitor": cfg.ScheduleJanitor}
}

// OpenCatalog opens the catalog. A data directory that has only the
// DuckDB catalog of an earlier release has it copied into the SQLite
// catalog first (once: the old file is renamed).
func OpenCatalog(ctx context.Context, cfg *Config) (*catalog.Catalog, error) {
	if cfg.Catalog == "" && !cfg.CatalogExists() && fileExists(cfg.legacyCatalogPath()) {
		newPath, err := catalog.FilePath(cfg.catalogAddress())
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "earshot: copying the catalog of an earlier release (%s) into %s\n", cfg.legacyCatalogPath(), newPath)
		copied, err := legacycatalog.Migrate(ctx, cfg.legacyCatalogPath(), newPath)
		if err != nil {
			return nil, err
		}
		var rows int64
		for _, n := range copied {
			rows += n
		}
		fmt.Fprintf(os.Stderr, "earshot: %d rows of %d tables copied and counted; the old file is now %s\n",
			rows, len(copied), cfg.legacyCatalogPath()+legacycatalog.MigratedSuffix)
	}
	return catalog.Open(ctx, cfg.catalogAddress())
}

// cpuClasses are the runtime's estimates of the process's CPU by use
// (/cpu/classes/...), which /metrics serves beside the usual Go metrics.
var cpuClasses = collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/cpu/classes/`)}

// StartCPUProfile profiles the process into path until the returned stop.
func StartCPUProfile(path string) (stop func(), err error) {
	return record(path, "cpu profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startTrace traces the process into path until the returned stop.
func startTrace(path string) (stop func(), err error) {
	return record(path, "trace", trace.Start, trace.Stop)
}

// record writes what start records of the process into path, until the
// returned stop ends it.
func record(path, what string, start func(io.Writer) error, end func()) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return func() { end(); f.Close() }, nil
}
