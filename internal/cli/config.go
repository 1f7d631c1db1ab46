package cli

import (
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Config is every setting of earshot, each a flag with an EARSHOT_*
// variable of the same name (--rate-limit = EARSHOT_RATE_LIMIT).
type Config struct {
	DataDir string
	// Catalog is the catalog's address; "" = sqlite://DATA/catalog.db.
	Catalog   string
	Addr      string
	Bucket    string // file://DIR or gs://BUCKET/PREFIX; "" = file://DATA/bucket
	PublicURL string // "" = http://ADDR
	TokenTTL  time.Duration
	// ConsoleIdle and ConsoleSessionMax end console sessions: one unused
	// for ConsoleIdle, any ConsoleSessionMax after its sign-in.
	ConsoleIdle, ConsoleSessionMax time.Duration
	// ConsoleSecureCookies makes the console's cookies Secure whatever the
	// public URL's scheme (a TLS proxy in front, no public URL set).
	ConsoleSecureCookies bool
	RateLimit            float64
	RateBurst            int
	MaxUpload            string // human size, e.g. 2.5GB
	// MinFreeSpace is the free space under which /readyz says the data
	// directory's disk is low (human size; 0: no check).
	MinFreeSpace   string
	TrustedProxies []string
	// SignedURLAllowHTTP accepts http:// signed URLs (development only).
	SignedURLAllowHTTP bool
	// SignedURLAllow are address ranges exempt from the guard (a trusted
	// internal store or endpoint), as CIDRs.
	SignedURLAllow   []string
	SignedURLTimeout time.Duration
	// OIDC* set up the console's sign-in through an OpenID Connect
	// identity provider (none when OIDCIssuer is empty).
	OIDCIssuer, OIDCClientID, OIDCClientSecret, OIDCName, OIDCClaim string

	ScheduleIngest  string
	ScheduleCompact string
	ScheduleSample  string
	ScheduleExport  string
	ScheduleEmit    string
	ScheduleJanitor string
	// BackupWindow is how long compaction keeps the lake files it
	// replaced, so that a backup that young restores whole.
	BackupWindow time.Duration
	// SampleRate is the QA sampling share per agent per week; SampleSeed
	// makes its choice repeatable.
	SampleRate    float64
	SampleSeed    string
	IngestWorkers int
	IngestBatch   int
	IngestLease   time.Duration
	// IngestAudioBatch is how many calls one batch claims.
	IngestAudioBatch int
	// ASREngine is pocketsphinx (default) or sherpa-onnx.
	ASREngine string
	// ASRModelDir is PocketSphinx's model directory ("" = pkg-config's).
	ASRModelDir string
	// ASRTelephoneModel is the acoustic model for calls at telephone
	// rates ("" = the default one), made by earshot asr adapt.
	ASRTelephoneModel string
	// ASRSherpaModel is the sherpa-onnx model directory; ASRSherpaThreads
	// its ONNX threads per worker.
	ASRSherpaModel   string
	ASRSherpaThreads int
	// ASRSpanish* are the model files for LocaleId 2058 calls.
	ASRSpanishHMM, ASRSpanishLM, ASRSpanishDict string
	// LLM* are the OpenAI-compatible endpoint of LLM Model classifiers.
	LLMBaseURL, LLMModel       string
	LLMTimeout                 time.Duration
	LLMRetries, LLMConcurrency int
	// compiler is made from the LLM settings on first use (classifierCompiler).
	compiler *registry.Compiler
	LogLevel string
	// LogFormat is auto (text on a terminal, JSON otherwise), text or json.
	LogFormat       string
	ShutdownTimeout time.Duration
	// CPUProfile, when set, is where serve writes a CPU profile of its
	// whole life (go tool pprof), for diagnosing where time goes.
	CPUProfile string
	// Trace, when set, is where serve writes an execution trace of its
	// run (go tool trace): where goroutines waited, not only what ran.
	Trace string
	// Role is what serve does: all, api or jobs.
	Role string
}

// The roles of earshot serve: every process is a peer, and a process may
// leave out the API or the scheduled jobs.
const (
	roleAll  = "all"
	roleAPI  = "api"
	roleJobs = "jobs"
)

func defaultConfig() Config {
	return Config{
		DataDir:           "./data",
		Addr:              "127.0.0.1:8080",
		TokenTTL:          time.Hour,
		ConsoleIdle:       time.Hour,
		ConsoleSessionMax: 12 * time.Hour,
		RateLimit:         50,
		RateBurst:         100,
		MaxUpload:         "2.5GB",
		MinFreeSpace:      "256MiB",
		LogLevel:          "info",
		LogFormat:         "auto",
		Role:              roleAll,
		ShutdownTimeout:   30 * time.Second,
		SignedURLTimeout:  10 * time.Minute,
		ScheduleIngest:    "@every 1m",
		ScheduleCompact:   "0 2 * * *",
		ScheduleSample:    "30 1 * * *",
		ScheduleExport:    "30 2 * * *",
		ScheduleEmit:      "@every 1m",
		ScheduleJanitor:   "45 3 * * *",
		BackupWindow:      7 * 24 * time.Hour,
		SampleRate:        0.05,
		SampleSeed:        "earshot",
		IngestWorkers:     runtime.GOMAXPROCS(0),
		IngestBatch:       200,
		IngestLease:       30 * time.Second,
		IngestAudioBatch:  4,
		ASREngine:         engineSphinx,
		ASRSherpaThreads:  1,
		LLMTimeout:        60 * time.Second,
		LLMRetries:        3,
		LLMConcurrency:    4,
	}
}

const envPrefix = "EARSHOT_"

// envName is the variable of a flag: --rate-limit → EARSHOT_RATE_LIMIT.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applyEnv sets every flag not given on the command line from its
// EARSHOT_* variable, when that is set.
func applyEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || err != nil {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, serr)
			}
		}
	})
	return err
}

// catalogAddress is where the catalog is: --catalog, by default the
// SQLite file in the data directory.
func (c *Config) catalogAddress() string {
	if c.Catalog != "" {
		return c.Catalog
	}
	return catalog.SchemePrefix + filepath.Join(c.DataDir, "catalog.db")
}

// CatalogExists tells whether the catalog's file is there (a PostgreSQL
// catalog is a server: it is, and opening it says whether it answers).
func (c *Config) CatalogExists() bool {
	if catalog.IsPostgres(c.catalogAddress()) {
		return true
	}
	path, err := catalog.FilePath(c.catalogAddress())
	return err == nil && fileExists(path)
}

// legacyCatalogPath is the DuckDB catalog of releases before the SQLite
// catalog, in the data directory.
func (c *Config) legacyCatalogPath() string { return filepath.Join(c.DataDir, "catalog.duckdb") }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *Config) keysDir() string         { return filepath.Join(c.DataDir, "keys") }
func (c *Config) CredentialsPath() string { return filepath.Join(c.DataDir, "credentials.json") }
func (c *Config) adminSocket() string     { return filepath.Join(c.DataDir, "admin.sock") }

// BucketURL is the object storage's address: --bucket, else DATA/bucket.
func (c *Config) BucketURL() string {
	if c.Bucket != "" {
		return c.Bucket
	}
	return "file://" + filepath.Join(c.DataDir, "bucket")
}

// ClientURL is the base URL clients reach the API at: --public-url, else
// http://ADDR.
func (c *Config) ClientURL() string {
	if c.PublicURL != "" {
		return strings.TrimSuffix(c.PublicURL, "/")
	}
	return "http://" + c.Addr
}

// validate checks the settings serve depends on and returns the upload
// limit in bytes.
func (c *Config) validate() (maxUploadBytes int64, err error) {
	n, err := humanize.ParseBytes(c.MaxUpload)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--max-upload %q: want a size such as 2.5GB or 500MiB", c.MaxUpload)
	}
	if _, err := humanize.ParseBytes(c.MinFreeSpace); err != nil {
		return 0, fmt.Errorf("--min-free-space %q: want a size such as 256MiB or 1GB, or 0 for no check", c.MinFreeSpace)
	}
	if c.ConsoleIdle < time.Minute || c.ConsoleSessionMax < c.ConsoleIdle || c.ConsoleSessionMax > 30*24*time.Hour {
		return 0, fmt.Errorf("--console-idle %s, --console-session-max %s: want an idle time of 1m or more, and a maximum from it to 720h", c.ConsoleIdle, c.ConsoleSessionMax)
	}
	if c.TokenTTL < time.Minute || c.TokenTTL > 24*time.Hour {
		return 0, fmt.Errorf("--token-ttl %s: want 1m to 24h", c.TokenTTL)
	}
	if c.RateLimit < 0 || c.RateBurst < 1 {
		return 0, fmt.Errorf("--rate-limit must be ≥ 0 (0 = off) and --rate-burst ≥ 1")
	}
	if c.SampleRate < 0 || c.SampleRate > 1 {
		return 0, fmt.Errorf("--sample-rate %v: want a share from 0 to 1", c.SampleRate)
	}
	if c.IngestWorkers < 1 || c.IngestBatch < 1 || c.IngestAudioBatch < 1 || c.IngestLease < time.Second {
		return 0, fmt.Errorf("--ingest-workers, --ingest-batch and --ingest-audio-batch must be ≥ 1 and --ingest-lease ≥ 1s")
	}
	if c.Role != roleAll && c.Role != roleAPI && c.Role != roleJobs {
		return 0, fmt.Errorf("--role %q: want all, api or jobs", c.Role)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return 0, err
	}
	if c.LogFormat != "auto" && c.LogFormat != "text" && c.LogFormat != "json" {
		return 0, fmt.Errorf("--log-format %q: want auto, text or json", c.LogFormat)
	}
	if _, err := c.guardExemptions(); err != nil {
		return 0, err
	}
	if _, err := c.speechEngine(); err != nil {
		return 0, err
	}
	return int64(n), nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// signedURLs is the SSRF guard of signed URLs and emission endpoints, with
// the download size limit.
func (c *Config) signedURLs(maxBytes int64) *signedurl.Fetcher {
	allow, _ := c.guardExemptions() // validate() refused bad ones
	return signedurl.New(signedurl.Options{AllowHTTP: c.SignedURLAllowHTTP, Allow: allow, Timeout: c.SignedURLTimeout, MaxBytes: maxBytes})
}

// guardExemptions are --signed-url-allow's ranges.
func (c *Config) guardExemptions() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.SignedURLAllow {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--signed-url-allow %q: want an address range such as 10.20.0.0/16", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// endpointGuard is the same guard for deliveries to emission endpoints.
func (c *Config) endpointGuard() *signedurl.Fetcher { return c.signedURLs(0) }
