package cli

import (
	"os"

	"github.com/earshot/earshot/pipeline/analysis/llm"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// llmKeyEnv holds the LLM endpoint's API key: from the environment only,
// never a flag (flags show in process lists).
const llmKeyEnv = "EARSHOT_LLM_API_KEY"

// classifierCompiler compiles classifier definitions; LLM Model ones only
// when the operator configured an endpoint. It is made once per process
// (at start-up), so the API, ingest and reclassification share one
// endpoint client and so one per-organization limit of requests in flight.
func (c *Config) classifierCompiler() registry.Compiler {
	if c.compiler == nil {
		c.compiler = &registry.Compiler{}
		if engines := llm.New(llm.Endpoint{BaseURL: c.LLMBaseURL, Model: c.LLMModel, APIKey: os.Getenv(llmKeyEnv),
			Timeout: c.LLMTimeout, Retries: c.LLMRetries, Concurrency: c.LLMConcurrency}); engines != nil {
			c.compiler.LLM = engines
		}
	}
	return *c.compiler
}
