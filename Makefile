# Earshot — build, run and test. `make run` and `make test` are all a new
# machine needs: both install what is missing first.

GO        ?= go
BIN       := bin/earshot
# The lab binary: earshot with the demo and the benchmarks (earshot hands them over to it).
LAB       := bin/earshot-lab
DATA      ?= ./data
# Count-based: a duration-based -fuzztime can fail spuriously with "context deadline
# exceeded" on Go 1.26 (golang/go#75804, fixed in Go 1.27).
FUZZTIME  ?= 20000x
BENCHTIME ?= 1s
# Each test binary's limit: a slow or busy machine makes the tests slow, not red.
TEST_TIMEOUT ?= 30m
# bench-query: a generated lake of this many conversations, kept between runs.
QUERY_LAKE ?= /tmp/earshot-query-lake
QUERY_SIZE ?= 10000000
# The release version: the tag at HEAD (v1.2.3), else the last tag and the
# commits since (v1.2.3-4-gabc1234), else v0.0.0-dev+HASH; earshot version
# prints it, and the Debian package's version is it without the v.
VERSION   ?= $(shell git describe --tags --match 'v[0-9]*' 2>/dev/null || echo "v0.0.0-dev+$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)")
LDFLAGS   := -X github.com/earshot/earshot/internal/cli.version=$(VERSION)
NFPM      := github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
# Build tags: TAGS=sherpa compiles in the optional sherpa-onnx speech engine.
TAGS      ?=
# Every go command needs duckdb_arrow: the query API reads the lake through
# duckdb-go's Arrow interface, which is compiled only with that tag.
export GOFLAGS := -tags=duckdb_arrow
comma := ,
BUILD_TAGS := duckdb_arrow$(if $(TAGS),$(comma)$(TAGS))

# System packages the project uses: ffmpeg and PocketSphinx for audio,
# Sphinxtrain and sphinxbase-utils to adapt the acoustic model (earshot asr
# adapt), flite and sox to synthesize test calls, pkg-config to find the libraries for cgo,
# jq and curl for the README's and the demo's curl examples, postgresql for
# the tests' throwaway catalog clusters (internal/pgtest), chromium for the
# web console's tests in a real browser.
SYSTEM_PACKAGES := ffmpeg pocketsphinx pocketsphinx-en-us libpocketsphinx-dev \
                   libsphinxbase-dev sphinxtrain sphinxbase-utils pkg-config flite sox jq curl postgresql chromium

# Every fuzz target, as package:FuzzName.
FUZZ_TARGETS := ./internal/contract/dates:FuzzParse ./api/oauth:FuzzBearer ./api/reqbody:FuzzParse ./internal/contract/uploadmeta:FuzzParse ./pipeline/chat:FuzzParse ./pipeline/archive:FuzzWalk ./pipeline/bulk:FuzzManifest ./pipeline/asr/spoken:FuzzWords \
                ./pipeline/asr/lm:FuzzReadDictionary ./pipeline/asr/adapt:FuzzReadSendump ./pipeline/asr/sherpa:FuzzCheckONNX \
                ./pipeline/analysis:FuzzTokenize ./pipeline/analysis/phrase:FuzzCompile ./pipeline/analysis/core:FuzzFindPII ./pipeline/analysis/core:FuzzBirthContexts ./pipeline/analysis/core:FuzzPIIGlances ./pipeline/analysis/core:FuzzCompound ./pipeline/analysis/words:FuzzFind ./pipeline/analysis/trained:FuzzReadLabelled ./pipeline/analysis/numbers:FuzzRead ./api:FuzzAppendJSONString \
                ./pipeline/quality:FuzzFormAndAnswers ./jobs:FuzzAcknowledgement ./api:FuzzApplyPatch ./api:FuzzSCIMClientBody ./api:FuzzSCIMProject ./internal/timing:FuzzParse ./api/console:FuzzFlightOf ./api/console:FuzzParseFormText ./api/console:FuzzParseTemplateText ./warehouse/results:FuzzDecodeFigures ./warehouse/catalog:FuzzStoredTime

.PHONY: all deps build run test unit fuzz bench bench-ingest bench-query scaling-pack lint clean package package-check

all: build

## deps: install missing system packages (apt-get) and the Go modules this platform needs
deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@# axe-core, which the console's browser tests check each page's accessibility with (web/package-lock.json).
	@test -f web/node_modules/axe-core/axe.min.js || npm ci --prefix web --no-audit --no-fund --silent
	@# Only this platform's modules: a bare `go mod download` would fetch DuckDB for every platform.
	@$(GO) list -deps -test ./... >/dev/null
	@$(GO) list -tags sherpa,duckdb_arrow -deps ./pipeline/asr/sherpa >/dev/null

## build: compile bin/earshot and, beside it, bin/earshot-lab (TAGS=sherpa adds the sherpa-onnx engine)
build:
	$(GO) build -tags '$(BUILD_TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/earshot
	$(GO) build -tags '$(BUILD_TAGS)' -ldflags '$(LDFLAGS)' -o $(LAB) ./cmd/earshot-lab

## package: the Debian package dist/earshot_VERSION_ARCH.deb (nfpm; packaging/)
package: build
	rm -rf dist && mkdir -p dist
	VERSION='$(patsubst v%,%,$(VERSION))' ARCH=$$(dpkg --print-architecture) $(GO) run $(NFPM) package --config packaging/nfpm.yaml --packager deb --target dist/

## package-check: build the package, install it with dpkg, verify its unit and serve as the unit would (CI; changes the machine)
package-check: deps package
	bash packaging/check.sh dist/earshot_*.deb '$(VERSION)'

## run: build, load the demo into a fresh data dir (skipped when it has data), and serve on http://127.0.0.1:8080
run: deps build
	./$(BIN) demo --data $(DATA) --if-empty
	./$(BIN) serve --data $(DATA)

## test: everything — vet, unit and integration tests (real DuckDB, real files, fake-gcs-server), fuzzing; each stage's time printed
test:
	@for stage in deps lint unit fuzz; do \
	  start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$stage || exit 1; \
	  echo "== make $$stage: $$(( $$(date +%s) - start )) s"; \
	done

unit:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	@# The optional sherpa-onnx engine: it builds, and is tested up to where a model is needed.
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -tags sherpa,duckdb_arrow ./pipeline/asr/sherpa/
	$(GO) build -race -tags sherpa,duckdb_arrow -o /dev/null ./cmd/earshot

fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$pkg $$name for $(FUZZTIME)"; \
	  $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) >/tmp/earshot-fuzz.log 2>&1 || { cat /tmp/earshot-fuzz.log; exit 1; }; \
	done

## bench: benchmarks, each printed beside its baseline
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-ingest: ingest end to end (10,000 chats in 100 tar archives through a fresh server), beside BASELINE=BINARY when given
bench-ingest: deps build
	$(BIN) bench ingest $(if $(BASELINE),--baseline $(BASELINE))

## bench-query: /ModelResults and /Conversations/Insights latency over a generated lake (QUERY_SIZE conversations)
bench-query: deps build
	test -f $(QUERY_LAKE)/catalog.db || $(BIN) --data $(QUERY_LAKE) bench gen --conversations $(QUERY_SIZE)
	$(BIN) --data $(QUERY_LAKE) bench query

## scaling-pack: bin/scaling/, what cmd/earshot-lab/scaling.sh needs to print issue 43's scaling figures on a machine without Go or the speech engine
scaling-pack: deps
	rm -rf bin/scaling && mkdir -p bin/scaling/lib
	$(GO) build -tags '$(BUILD_TAGS)' -ldflags '-s -w $(LDFLAGS)' -o bin/scaling/earshot-lab ./cmd/earshot-lab
	@# The libraries beyond the C and C++ runtimes: the speech engine's and what it links.
	ldd bin/scaling/earshot-lab | awk '$$2 == "=>" && $$3 ~ /^\// {print $$3}' | \
	  grep -Ev '/lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so' | xargs -r cp -L -t bin/scaling/lib
	tar -czf bin/scaling/lib.tar.gz -C bin/scaling lib && rm -r bin/scaling/lib
	gzip -9 bin/scaling/earshot-lab
	@# What travels to a device machine is at most 64 MiB, the working tree included.
	du -sh bin/scaling

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

## lint: formatting, vet and staticcheck. They check the -race build the tests
## compile: the tree is then compiled once for both, not once each.
lint:
	@# The repository holds sources only: no tracked file over 1 MB.
	@big=$$(git ls-files -z 2>/dev/null | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$$1 > 1048576 {print $$2}'); \
	if [ -n "$$big" ]; then echo "tracked files over 1 MB (build outputs belong in bin/, ignored): $$big"; exit 1; fi
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet -race ./...
	$(GO) vet -race -tags sherpa,duckdb_arrow ./pipeline/asr/sherpa/
	GOBIN=$(CURDIR)/bin $(GO) install $(STATICCHECK)
	GOFLAGS="$(GOFLAGS) -race" bin/staticcheck ./...

clean:
	rm -rf bin

## web-vendor: copy the console's browser libraries from web/node_modules (npm ci --prefix web) into web/static/vendor, which is committed
web-vendor:
	npm ci --prefix web --no-audit --no-fund --silent
	cp web/node_modules/chart.js/dist/chart.umd.min.js web/static/vendor/
