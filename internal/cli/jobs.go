package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api"
	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
	"github.com/earshot/earshot/warehouse/results"
)

// workerName names this process in job runs and leases.
func workerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// LakeRoot is the local directory DuckDB reads lake files from: the bucket
// itself when it is a directory, else a cache in the data directory (then
// cached is true).
func LakeRoot(cfg *Config) (dir string, cached bool) {
	if u := cfg.BucketURL(); strings.HasPrefix(u, "file://") {
		abs, _ := filepath.Abs(strings.TrimPrefix(u, "file://"))
		return abs, false
	}
	return filepath.Join(cfg.DataDir, "lake-cache"), true
}

// lakeParts are the lake engine over the lake's local directory and the
// reader of results and transcripts on it and the catalog.
type lakeParts struct {
	engine *lakedb.DB
	reader *results.Reader
}

func openLake(ctx context.Context, cfg *Config, cat *catalog.Catalog) (lakeParts, error) {
	root, _ := LakeRoot(cfg)
	engine, err := lakedb.Open(ctx, root)
	if err != nil {
		return lakeParts{}, err
	}
	return lakeParts{engine: engine, reader: &results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine, Figures: cat.Manifest}}, nil
}

// newJobRunner registers every job on the catalog, the lake and the bucket.
// newEvaluationSlots bound classifier dry runs and reclassifications: one
// at a time per organization, as many as there are cores overall (at least
// two).
func newEvaluationSlots() *pipeline.Slots {
	return pipeline.NewSlots(1, max(2, runtime.GOMAXPROCS(0)))
}

func newJobRunner(cfg *Config, cat *catalog.Catalog, lk lakeParts, bucket blob.Bucket, evaluations *pipeline.Slots, log *slog.Logger, reg prometheus.Registerer) *jobs.Runner {
	owner := workerName()
	root, cached := LakeRoot(cfg)
	writer := &lake.Writer{Bucket: bucket}
	cache := ""
	if cached {
		writer.Cache, cache = root, root
	}
	runner := jobs.NewRunner(cat.Jobs, owner, log, reg)
	engine, err := cfg.speechEngine()
	if err != nil {
		// validate() reported it before any job could start; a command
		// that runs no calls still gets its other jobs.
		log.Warn("calls cannot be transcribed", "err", err)
	}
	calls := pipeline.Calls{Recognizers: &pipeline.Recognizers{Engine: engine}, Settings: cat.Settings, Telephone: cfg.ASRTelephoneModel}
	if cfg.ASRSpanishHMM != "" {
		calls.Spanish = &asr.Model{Dir: cfg.ASRSpanishHMM, LanguageModel: cfg.ASRSpanishLM, Dictionary: cfg.ASRSpanishDict, Language: "es"}
	}
	autoScore := &qa.AutoScorer{Store: cat.Evaluations}
	runner.Register("ingest", &jobs.Ingest{
		Uploads: cat.Interactions, Lake: writer, Open: bucket.Get, Originals: &jobs.StagedOriginals{Catalog: cat.Interactions, Bucket: bucket},
		Figures:    lk.reader,
		Processors: []pipeline.Processor{pipeline.Chats{Limits: archive.DefaultLimits, Directory: cat.People, Earlier: cat.Interactions}, calls},
		Analyzer:   &pipeline.Analyzer{Classifiers: cat.Classifiers, Hierarchy: cat.People, Privacy: cat.Settings, Compiler: cfg.classifierCompiler(), Log: log},
		AutoScore:  autoScore,
		Recordings: pipeline.Recordings{Open: bucket.Get, Store: bucket, Privacy: cat.Settings},
		Queues: []jobs.Queue{
			{MediaTypes: []string{catalog.MediaChat}, BatchSize: cfg.IngestBatch},
			{MediaTypes: []string{catalog.MediaAudio}, BatchSize: cfg.IngestAudioBatch},
		},
		Owner: owner, Workers: cfg.IngestWorkers, Lease: cfg.IngestLease, Log: log,
	})
	runner.Register("compact", &jobs.Compact{Manifest: cat.Manifest, Runs: cat.Interactions, Partitions: lk.engine, Lake: writer, Bucket: bucket, Cache: cache, Figures: lk.reader,
		BackupWindow: cfg.BackupWindow, Log: log})
	runner.Register("sample", &jobs.Sample{Sampler: cat.Interactions, Rate: cfg.SampleRate, Seed: cfg.SampleSeed, Log: log})
	runner.Register("export", &jobs.Export{Orgs: cat.Orgs, Snapshots: cat, Auto: autoScore, Parquet: lk.engine, Bucket: bucket, Cache: cache, Log: log})
	runner.Register("reclassify", &jobs.Reclassify{Classifiers: cat.Classifiers, Hierarchy: cat.People, Interactions: cat.Interactions, Manifest: cat.Manifest, Transcripts: lk.reader, Lake: writer, Compiler: cfg.classifierCompiler(), Figures: lk.reader, Log: log, Slots: evaluations,
		AutoScore: autoScore})
	runner.Register("emit", &jobs.Emit{Queue: cat.Emissions, Post: cfg.endpointGuard(),
		Item:  api.ResultItems(api.Deps{Interactions: cat.Interactions, Classifiers: cat.Classifiers, Reviews: cat.Reviews, Results: lk.reader}),
		Owner: owner, Log: log})
	janitor := &jobs.Janitor{Staged: bucket, Names: cat.Interactions, Log: log}
	if temp, ok := bucket.(jobs.TempSweeper); ok {
		janitor.Temp = temp
	}
	runner.Register("janitor", janitor)
	runner.Register("train", &jobs.Train{Source: pipeline.TrainingSource{Records: cat.Interactions, Transcripts: lk.reader, Reviews: cat.Reviews, Classifiers: cat.Classifiers},
		Classifiers: cat.Classifiers, Progress: cat.Jobs, Log: log, Slots: evaluations})
	return runner
}

func jobsCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "jobs", Short: "Run jobs and see their runs (works while the server runs)"}
	cmd.AddCommand(&cobra.Command{
		Use: "run NAME", Short: "Run a job once now (jobs: ingest, compact, sample, export, emit, janitor; reclassify and train take their parameters through the API)", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			return a.RunJob(ctx, args[0])
		}),
	})
	var job string
	var limit int
	list := &cobra.Command{
		Use: "list", Short: "Recent job runs, newest first: start, end, status, counts, error", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) {
			return a.JobRuns(ctx, job, limit)
		}),
	}
	list.Flags().StringVar(&job, "job", "", "only this job")
	list.Flags().IntVar(&limit, "limit", 20, "how many runs")
	cmd.AddCommand(list)
	return cmd
}

// scheduleFlags are when serve runs the scheduled jobs.
func scheduleFlags(cmd *cobra.Command, cfg *Config) {
	f := cmd.Flags()
	f.StringVar(&cfg.ScheduleIngest, "schedule-ingest", cfg.ScheduleIngest, `cron schedule of the ingest job, "off" to disable (env EARSHOT_SCHEDULE_INGEST)`)
	f.StringVar(&cfg.ScheduleCompact, "schedule-compact", cfg.ScheduleCompact, `cron schedule of the compact job, "off" to disable (env EARSHOT_SCHEDULE_COMPACT)`)
	f.StringVar(&cfg.ScheduleSample, "schedule-sample", cfg.ScheduleSample, `cron schedule of the QA sampling job, "off" to disable (env EARSHOT_SCHEDULE_SAMPLE)`)
	f.StringVar(&cfg.ScheduleExport, "schedule-export", cfg.ScheduleExport, `cron schedule of the export job (catalog snapshots for analysts), "off" to disable (env EARSHOT_SCHEDULE_EXPORT)`)
	f.StringVar(&cfg.ScheduleEmit, "schedule-emit", cfg.ScheduleEmit, `cron schedule of the emit job (result sets delivered to organizations' endpoints), "off" to disable (env EARSHOT_SCHEDULE_EMIT)`)
	f.DurationVar(&cfg.BackupWindow, "backup-window", cfg.BackupWindow, "how long compaction keeps the lake files it replaced, so that a backup (earshot admin backup) this recent restores whole (env EARSHOT_BACKUP_WINDOW)")
	f.StringVar(&cfg.ScheduleJanitor, "schedule-janitor", cfg.ScheduleJanitor, `cron schedule of the janitor (temporary files and staged uploads that interrupted work left), "off" to disable (env EARSHOT_SCHEDULE_JANITOR)`)
}

// JobFlags are the settings of the jobs, on every command that may run them.
func JobFlags(cmd *cobra.Command, cfg *Config) {
	f := cmd.PersistentFlags()
	f.Float64Var(&cfg.SampleRate, "sample-rate", cfg.SampleRate, "share of each agent's conversations of a week the sample job moves to Sampled, 0..1 (env EARSHOT_SAMPLE_RATE)")
	f.StringVar(&cfg.SampleSeed, "sample-seed", cfg.SampleSeed, "seed of the sample job's choice: the same seed and data choose the same conversations (env EARSHOT_SAMPLE_SEED)")
	f.IntVar(&cfg.IngestWorkers, "ingest-workers", cfg.IngestWorkers, "cores ingest keeps busy, and uploads it processes at once (default: the cores this process may use; env EARSHOT_INGEST_WORKERS)")
	f.IntVar(&cfg.IngestBatch, "ingest-batch", cfg.IngestBatch, "uploads claimed and committed together at most; archives go fewer at a time, about 1,000 conversations a batch (env EARSHOT_INGEST_BATCH)")
	f.IntVar(&cfg.IngestAudioBatch, "ingest-audio-batch", cfg.IngestAudioBatch, "calls claimed and committed together (env EARSHOT_INGEST_AUDIO_BATCH)")
	f.StringVar(&cfg.LLMBaseURL, "llm-base-url", cfg.LLMBaseURL, "OpenAI-compatible API root for LLM Model classifiers, e.g. http://localhost:11434/v1 (Ollama); key in EARSHOT_LLM_API_KEY (env EARSHOT_LLM_BASE_URL)")
	f.StringVar(&cfg.LLMModel, "llm-model", cfg.LLMModel, "model name at the LLM endpoint (env EARSHOT_LLM_MODEL)")
	f.DurationVar(&cfg.LLMTimeout, "llm-timeout", cfg.LLMTimeout, "time limit of one LLM request (env EARSHOT_LLM_TIMEOUT)")
	f.IntVar(&cfg.LLMRetries, "llm-retries", cfg.LLMRetries, "retries of an LLM request after a network error, 429 or 5xx (env EARSHOT_LLM_RETRIES)")
	f.IntVar(&cfg.LLMConcurrency, "llm-concurrency", cfg.LLMConcurrency, "LLM requests one organization may have in flight (env EARSHOT_LLM_CONCURRENCY)")
	f.StringVar(&cfg.ASREngine, "asr-engine", cfg.ASREngine, "speech recognition engine: pocketsphinx, or sherpa-onnx in a build with TAGS=sherpa (env EARSHOT_ASR_ENGINE)")
	f.StringVar(&cfg.ASRSherpaModel, "asr-sherpa-model", cfg.ASRSherpaModel, "sherpa-onnx model directory: Whisper or Zipformer/Parakeet transducer ONNX files (env EARSHOT_ASR_SHERPA_MODEL)")
	f.IntVar(&cfg.ASRSherpaThreads, "asr-sherpa-threads", cfg.ASRSherpaThreads, "ONNX threads per ingest worker for sherpa-onnx (env EARSHOT_ASR_SHERPA_THREADS)")
	f.StringVar(&cfg.ASRModelDir, "asr-model-dir", cfg.ASRModelDir, "PocketSphinx model directory; empty: pkg-config's (the pocketsphinx-en-us package) (env EARSHOT_ASR_MODEL_DIR)")
	f.StringVar(&cfg.ASRTelephoneModel, "asr-telephone-model", cfg.ASRTelephoneModel, "PocketSphinx acoustic model for calls recorded at 8 kHz or less, adapted to telephone audio by earshot asr adapt; empty: the default model (env EARSHOT_ASR_TELEPHONE_MODEL)")
	f.StringVar(&cfg.ASRSpanishHMM, "asr-spanish-model", cfg.ASRSpanishHMM, "model directory for Spanish (LocaleId 2058) calls, for the chosen engine; without it they fail (env EARSHOT_ASR_SPANISH_MODEL)")
	f.StringVar(&cfg.ASRSpanishLM, "asr-spanish-lm", cfg.ASRSpanishLM, "language model for Spanish calls (env EARSHOT_ASR_SPANISH_LM)")
	f.StringVar(&cfg.ASRSpanishDict, "asr-spanish-dict", cfg.ASRSpanishDict, "pronunciation dictionary for Spanish calls (env EARSHOT_ASR_SPANISH_DICT)")
	f.DurationVar(&cfg.IngestLease, "ingest-lease", cfg.IngestLease, "how long a worker owns a claimed upload before another may take it over (env EARSHOT_INGEST_LEASE)")
}
