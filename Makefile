# chat-runtime: two commands on a fresh Debian machine.
#   make demo   installs what is missing, builds pkg/ and serves the demo on http://127.0.0.1:$(PORT)
#   make test   installs what is missing and runs every test (native, wasm in headless Chromium, JS, e2e)
# Every install step is idempotent and quick when the tool is already there.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PORT ?= 8080
# Must equal the `wasm-bindgen = "=..."` pin in Cargo.toml (checked by `make tools`).
WASM_BINDGEN_VERSION := 0.2.130
WASM_PACK_VERSION := 0.15.1
CARGO_BIN := $(HOME)/.cargo/bin
export PATH := $(CARGO_BIN):$(CURDIR)/node_modules/.bin:$(PATH)
export CHROMEDRIVER := /usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT := 120
# Never let a test tool download a browser: there is no network for it here.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

APT_STAMP := /usr/bin/chromedriver

.PHONY: help check tools rust-tools browser node-deps build pkg pack vendor demo-tools demo-agent size test test-native test-agent test-wasm test-types test-js test-e2e test-packaging test-size servers-venv test-servers demo demo-react demo-assistant-ui bench bench-native bench-dist fuzz clean nginx helm-sdk test-deploy

help:
	@echo "make demo   - install what is missing, build, serve the demo on http://127.0.0.1:$(PORT)"
	@echo "make test   - install what is missing, run every test"
	@echo "make check  - formatting, clippy (host and wasm32, the size rules of clippy.toml), tsc of the React adapter, file lengths, import circles"
	@echo "make build  - build pkg/ (wasm-pack --target web, wasm-opt -Os) and print its size"
	@echo "make pack   - npm pack pkg/ into target/pack/chat-runtime-<version>.tgz"
	@echo "make vendor APP=dir - copy that tarball into dir/vendor/ (an app built without a registry)"
	@echo "make demo-react - the React demo (demo/react) on the packed tarball, served by the demo agent"
	@echo "make demo-assistant-ui - the assistant-ui demo (demo/assistant-ui) on the tarball, agent in gateway mode"
	@echo "make bench  - browser benchmark vs @ag-ui/client (headless Chromium), writes bench/RESULTS.md"
	@echo "make bench-native - native decode+reduce throughput (cargo bench)"

## ---- installs -------------------------------------------------------------

tools: rust-tools browser node-deps

rust-tools:
	@grep -q '^wasm-bindgen = "=$(WASM_BINDGEN_VERSION)"' Cargo.toml \
	  || { echo "Makefile WASM_BINDGEN_VERSION does not match the pin in Cargo.toml" >&2; exit 1; }
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
	  || rustup target add wasm32-unknown-unknown
	@cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1 \
	  || rustup component add clippy rustfmt
	@[ "$$(wasm-bindgen --version 2>/dev/null)" = "wasm-bindgen $(WASM_BINDGEN_VERSION)" ] \
	  || cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION) --force
	@wasm-pack --version 2>/dev/null | grep -q '$(WASM_PACK_VERSION)' \
	  || cargo install wasm-pack --version $(WASM_PACK_VERSION) --force

browser:
	@[ -x /usr/bin/chromium ] && [ -x $(APT_STAMP) ] || { \
	  export DEBIAN_FRONTEND=noninteractive; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

# npm ci from the committed lockfile, again only when the lockfile changed.
node-deps: node_modules/.installed
node_modules/.installed: package-lock.json package.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The Python AG-UI servers of tests/servers/ (pydantic-ai, LangGraph): a virtualenv in
# target/servers-venv with exactly tests/servers/requirements.txt (PyPI, pinned), made again only
# when that file changed. python3 and python3-venv come from Debian when `python3 -m venv` fails.
SERVERS_VENV := target/servers-venv
servers-venv: $(SERVERS_VENV)/.installed
$(SERVERS_VENV)/.installed: tests/servers/requirements.txt
	rm -rf $(SERVERS_VENV)
	@python3 -m venv $(SERVERS_VENV) 2>/dev/null || { \
	  rm -rf $(SERVERS_VENV); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3 python3-venv >/dev/null; \
	  python3 -m venv $(SERVERS_VENV); }
	$(SERVERS_VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/servers/requirements.txt
	@touch $@

## ---- build ----------------------------------------------------------------

# No path of this machine in the package: the release build maps the checkout, cargo's home (the
# crates.io sources, whose panic locations the .wasm keeps) and rustup's home to short relative
# names. Passed as `--config` so that cargo joins them to .cargo/config.toml's rustflags (RUSTFLAGS
# would replace those). The standard library's paths are already `/rustc/<commit>/...`.
# tests/packaging/publish.test.mjs scans the tarball for the machine's paths.
CARGO_HOME_DIR := $(or $(CARGO_HOME),$(HOME)/.cargo)
RUSTUP_HOME_DIR := $(or $(RUSTUP_HOME),$(HOME)/.rustup)
REMAP_PATHS := "--remap-path-prefix=$(CURDIR)=.", "--remap-path-prefix=$(CARGO_HOME_DIR)=cargo-home", "--remap-path-prefix=$(RUSTUP_HOME_DIR)=rustup-home"

build: pkg demo-tools
# Two builds: pkg/ is `chat-runtime`, AG-UI only (no Coder code at all); pkg/coder/ is
# `chat-runtime/coder`, the `coder` cargo feature (both backends), built first into target/pkg-coder/
# and copied in (merge-package.mjs points its glue at pkg/'s snippets: one ChatRuntimeError class).
# Before wasm-opt, scripts/drop-closure-shims.mjs takes out of the function table the closure shims
# wasm-bindgen leaves there that nothing can call (one per closure signature js-sys and web-sys
# describe), so wasm-opt drops their code (docs/numbers.md, "Two builds"); then
# scripts/short-import-names.mjs drops the hash from the names the wasm imports from its glue and from
# the closure shims it exports to it, and gives the import modules one-character names, in both.
# wasm-opt: -Os; --low-memory-unused (lets it fold small constants into load and store offsets:
# nothing lives below address 1,024, the stack is placed first and grows down from 1 MiB, so only a
# stack within 1 KiB of overflowing reaches there); --converge (-Os again until nothing shrinks);
# the producers and target-features sections stripped (nothing reads them). docs/numbers.md.
WASM_OPT := wasm-opt -Os --low-memory-unused --converge --strip-producers --strip-target-features \
	  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	  --enable-mutable-globals --enable-reference-types --enable-multivalue
pkg: rust-tools node-deps
	wasm-pack build --release --target web --out-dir target/pkg-coder --out-name chat_runtime \
	  -- --features coder --config 'target.wasm32-unknown-unknown.rustflags=[$(REMAP_PATHS)]'
	node scripts/drop-closure-shims.mjs target/pkg-coder/chat_runtime_bg.wasm
	node scripts/short-import-names.mjs target/pkg-coder
	$(WASM_OPT) target/pkg-coder/chat_runtime_bg.wasm -o target/pkg-coder/chat_runtime_bg.wasm
	wasm-pack build --release --target web --out-dir pkg --out-name chat_runtime \
	  -- --config 'target.wasm32-unknown-unknown.rustflags=[$(REMAP_PATHS)]'
	node scripts/drop-closure-shims.mjs pkg/chat_runtime_bg.wasm
	node scripts/short-import-names.mjs pkg
	$(WASM_OPT) pkg/chat_runtime_bg.wasm -o pkg/chat_runtime_bg.wasm
	rm -rf pkg/coder && mkdir -p pkg/coder
	cp target/pkg-coder/chat_runtime.js target/pkg-coder/chat_runtime.d.ts \
	  target/pkg-coder/chat_runtime_bg.wasm target/pkg-coder/chat_runtime_bg.wasm.d.ts pkg/coder/
	cp -r target/pkg-coder/snippets pkg/coder/snippets
	node scripts/merge-package.mjs
	node scripts/size-report.mjs
	node scripts/doc-sizes.mjs --write

size:
	node scripts/size-report.mjs

# A regression guard on what the package ships (.wasm + JS glue, gzip -9), just above today's size.
# The size work aimed at 150,000 and stopped at 166,902; docs/numbers.md says what reaching 150,000
# would take. 170,000 + 13,972 for the hostile-input work (docs/guarantees.md, docs/numbers.md):
# the linear-time `pattern` matcher (+8,027), the catch bindings and free (+3,436), the resume and
# interrupt fixes (+1,124), the exact strings at every exit and the merge (about +1,400); then +472
# for the activity event (+218) and the memory bounds (+254). The house and merge work of 2026-11-25
# (+1,375, docs/numbers.md) fits under it: 182,688. Then +29,572 for the Coder backend
# (docs/coder.md, "What it costs"): 212,260; its trimming round took 2,804 off: 209,456.
# Then the backend became a type (docs/numbers.md, "Two builds"): `chat-runtime` is the AG-UI build,
# with no Coder code (183,834 at the split), and `chat-runtime/coder` carries both backends (209,481).
# Since: the session's rooms (+86 / +135), the lower floors (+12) and the Coder auth as coderd checks
# it (+3,143 on the Coder build alone, docs/coder.md), then issue 38's pattern budget, NaN refusals
# and memory steps (+1,014 / +891): 184,913 and 213,584. Then the Coder turns against a real coderd
# (issue 36's session side, docs/coder.md): +7,219 on the Coder build alone, 220,803. Then the
# `messages` event's `replace: true` (issue 36's duplicates; the .wasm +36 / +42): 184,974 and 220,853.
# Then a trimming round with no change of behaviour (docs/numbers.md, "Two builds"): -618 / -1,053
# on its own base; merged with `replace`: 184,337 and 219,791 (219,782 as built since). Then a call of
# a tool unregistered mid-call answered TOOL_NOT_AVAILABLE (issue 37): +16 / +22; issue 36's last
# points (the reconnecting activity, the chat's title/queue/last-error events, the tool-results POST
# bound): +1,044 on the Coder build alone. Then issue 35's byte round (six steps, docs/numbers.md
# "Two builds": the closure shims nothing calls, the wasm-opt flags, the import names without their
# hash, three string matches as tables): -5,317 / -5,782 on 184,337 / 219,782. Merged: 179,036
# and 214,857. Then issue 38's request body written to JavaScript in pieces, never whole in wasm
# memory (docs/architecture.md, "Memory"): +279 / +542 on 184,337 / 219,782. Then `pendingCalls`
# (issue 35: the React adapter reads the core's pending rule, not its own copy): +369 / +355; the
# rest of issue 35's session step (no import circle, the Coder types in the Coder rooms, the call
# table; moves only): -4 / -86. Then `omitRequestFields` (issue 39): +736 / +739 on 184,337 /
# 219,782. Then a second trimming round (-909 / -617), the body's concatenation bound with catch
# (+153 / +163) and the driver keyed by the session's run handle (+11 / -95). Merged: 179,785 and
# 215,826. Then a third trimming round (seven steps, docs/numbers.md "Two builds"): -2,888 / -2,550:
# 176,897 and 213,276. Merged with issue 38's speed and memory steps of that session: 179,479 and
# 216,174. Then the messages added between two frames sent as positions (-87 / -172) and the
# messages' long strings crossing apart (+684 / +751): 180,076 and 216,753. Then issue 38's speed on
# the default path (text and args deltas read straight, bench/PROFILE.md): +416 / +458 on 179,392 /
# 216,002. Merged: 180,503 and 217,354. Then a messages batch as the event's array (-98 / -123);
# issue 38's id indexes without a copy of each id (`lean::ids`: the thread's indexes, the run's tool
# call tally, the verifier's owners): +614 / +527 on 179,392 / 216,002; their values held only once
# one is not 0: +82 / +107; two entries a bucket: -4 / +24. Merged: 181,261 and 218,097. Then a
# read decoded 8 KiB at a time (+1) and `messages` batches of 64 KiB in a buffer sized for them,
# appended in one call (+106 / +143): 181,368 and 218,240. Then `fillLong` bound with `catch`
# (+54 / +65): 181,422 and 218,305. Then the flat events (text and tool-call starts and ends,
# results, steps) read straight, as the deltas (+791 / +816): 182,213 and 219,121. Then a chunk
# that fits a slice copied whole, into a buffer kept (-15 / -29): 182,198 and 219,092. Then the
# Coder calls a Stop cut short answered as stopped by the next turn (+0 / +364): 219,456. Issue
# 38's smaller `Message` (its rare fields boxed together, 88 -> 44 bytes in wasm32; docs/numbers.md
# "Memory"), +315 / +164 on 181,422 / 218,305. Merged: 182,442 and 219,604. Then a tool call's rare
# fields boxed too (60 -> 40 bytes), -60 / -59 on 181,737 / 218,469. Merged: 182,390 and 219,530.
# Then a text message's rare fields built once in the fold, not in each role's arm (+14 / +51):
# 182,404 and 219,581. Then one `merge_rare_metadata` for the four near-copies of the fold and
# one `name_index` for the literals' two searches (+4 / +13): 182,408 and 219,594. Then nothing
# folded after a `RUN_ERROR` in the same read (+18 / +25): 182,426 and 219,619. Then consecutive
# deltas merged in the decoder while no `agui` listener reads them (+593 / +573): 183,019 and
# 220,192. Then a new message's strings moved out of the event, not copied (+36 / +345): 183,055
# and 220,537. Then the state delta's by-value apply folded into `fold_moving` (-11 / -28):
# 183,044 and 220,509.
SIZE_BUDGET_GZIP ?= 183044
SIZE_BUDGET_CODER_GZIP ?= 220509
test-size: build
	node scripts/size-report.mjs --budget $(SIZE_BUDGET_GZIP) --coder-budget $(SIZE_BUDGET_CODER_GZIP)

# The npm tarball, exactly what `npm publish` would upload: target/pack/chat-runtime-<version>.tgz.
# Packs the pkg/ that is there (`make build` first; built here only when missing), with its README
# made again from the docs of this tree (scripts/npm-readme.mjs).
pack: node-deps
	@[ -f pkg/chat_runtime.js ] || $(MAKE) pkg
	node scripts/npm-readme.mjs
	@mkdir -p target/pack && rm -f target/pack/chat-runtime-*.tgz
	cd pkg && npm pack --pack-destination ../target/pack --loglevel=error >/dev/null
	@ls -l target/pack/chat-runtime-*.tgz

# The tarball inside an app's own folder, for a build without a registry whose context is that
# folder (a Docker build of frontend/): `make vendor APP=path/to/frontend` writes
# APP/vendor/chat-runtime-<version>.tgz (an older one there is removed); then, once, in APP:
# `npm install ./vendor/chat-runtime-<version>.tgz` (package.json gets a `file:vendor/...` spec, the
# lockfile its integrity), and commit both with the tarball. docs/packaging.md, "Without a registry".
vendor: pack
	@[ -n "$(APP)" ] || { echo "usage: make vendor APP=path/to/app" >&2; exit 1; }
	@[ -f "$(APP)/package.json" ] || { echo "make vendor: $(APP)/package.json not found" >&2; exit 1; }
	mkdir -p "$(APP)/vendor"
	rm -f "$(APP)"/vendor/chat-runtime-*.tgz
	cp target/pack/chat-runtime-*.tgz "$(APP)/vendor/"
	@echo "then, in $(APP): npm install ./vendor/$$(cd target/pack && ls chat-runtime-*.tgz)"

# The demo's frontend tools: TypeScript in demo/tools-src, compiled to the ES modules the browser
# imports from /tools (demo/tools/*.js, generated and gitignored; demo/tools/tools.json is committed).
demo-tools: node-deps
	tsc -p demo/tools-src

# The demo agent (demo/agent): the page's AG-UI server and its static file server.
demo-agent:
	cargo build -q -p chat-runtime-agent

## ---- tests ----------------------------------------------------------------

# The habits that check themselves (CONTRIBUTING.md), run first by .ci/run: rustfmt; clippy with
# warnings as errors for the host and for wasm32, each for both builds (without and with `coder`) (Cargo.toml's lints, `await_holding_refcell_ref`
# among them); the size rules of clippy.toml (disallowed methods and types) on the library the
# package ships, tests and the demo agent exempt; the React adapter's strict TypeScript; the size
# rules of the code (scripts/size-rules.mjs: no file in src/ or react/src/ over 1,000 lines, none in
# src/session/ over 500; each offender named with its line count, tests/js/size-rules.test.mjs); the
# import rule (scripts/import-circles.mjs: no import circle among src/'s or react/src/'s files, each
# circle named with what ties it, tests/js/import-circles.test.mjs).
CLIPPY_EXEMPT := -A clippy::disallowed_methods -A clippy::disallowed_types
check: rust-tools node-deps
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings $(CLIPPY_EXEMPT)
	cargo clippy --all-targets --features coder -- -D warnings $(CLIPPY_EXEMPT)
	cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings $(CLIPPY_EXEMPT)
	cargo clippy --target wasm32-unknown-unknown --all-targets --features coder -- -D warnings $(CLIPPY_EXEMPT)
	cargo clippy --lib -- -D warnings
	cargo clippy --lib --features coder -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown --features coder -- -D warnings
	@# The adapter is checked against the declarations of this very tree (src/wasm/types.d.ts in pkg/).
	$(MAKE) pkg
	tsc -p react --noEmit
	node scripts/size-rules.mjs
	node scripts/import-circles.mjs
	@echo "make check: clean"

test: tools test-native test-agent test-wasm build test-size test-types test-js test-e2e test-servers test-packaging test-deploy
	@echo "make test: all suites passed"

# Both builds: the AG-UI one (no `coder` feature) and the one with the Coder backend.
test-native: rust-tools
	cargo test
	cargo test --features coder

# The demo agent (demo/agent, a workspace member plain `cargo test` skips). Its --llm-url tests
# run against npm @copilotkit/aimock from node_modules, hence node-deps.
test-agent: node-deps
	cargo test -p chat-runtime-agent

# The web tests fetch tools.json from the scripted test server (demo/agent), started for them:
# every suite on the AG-UI build, then the Coder build's own (its socket, its session, its options).
test-wasm: rust-tools browser
	scripts/with-agent.sh --static /tools=tests/fixtures/tools -- \
	  cargo test --target wasm32-unknown-unknown --tests
	scripts/with-agent.sh --static /tools=tests/fixtures/tools -- \
	  cargo test --target wasm32-unknown-unknown --features coder --lib --test coder --test coder_session --test options

# The package's declarations (tests/types.ts) and chat-runtime/react's generated ones (tests/react/),
# both against pkg/ (make build); the adapter's source itself is compiled strictly by make pkg.
test-types: node-deps
	tsc -p tests/tsconfig.json
	tsc -p tests/react/tsconfig.json

test-js: node-deps
	node --test tests/js/ tests/support/

# In headless Chromium against the real demo agent: the demo page (demo mode) and the run loop
# (script mode); needs pkg/ (make build).
test-e2e: node-deps browser demo-tools demo-agent
	@[ -f pkg/chat_runtime.js ] || $(MAKE) pkg
	node --test --test-concurrency=1 tests/e2e/

# ChatRuntime in headless Chromium against real AG-UI servers: pydantic-ai's AGUIAdapter and
# LangGraph through ag-ui-langgraph, each on a scripted model (tests/servers/); needs pkg/.
test-servers: node-deps browser servers-venv
	@[ -f pkg/chat_runtime.js ] || $(MAKE) pkg
	node --test --test-concurrency=1 tests/servers/

# The packed tarball installed into fresh projects (tests/packaging/*/ copied to a temp dir):
# Vite dev + build, webpack 5, a plain <script type="module">, Node, and the React app demo/react
# against the demo agent, each checked in headless Chromium (or Node). And the tarball as published
# (tests/packaging/publish.test.mjs): publint and @arethetypeswrong/cli from node_modules, and
# `npm publish --dry-run` of pkg/ against a registry URL that refuses.
test-packaging: node-deps browser demo-tools demo-agent pack
	node --test --test-concurrency=1 tests/packaging/

# Debian's nginx for the deploy/nginx.conf test (run by the test itself, in the foreground, on a
# free port under a temp prefix; the package's own service is not started here).
nginx:
	@[ -x /usr/sbin/nginx ] || { \
	  export DEBIAN_FRONTEND=noninteractive; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq nginx >/dev/null; }

# Helm's engine for the chart test: PyPI's helm-python-sdk (Helm v4's Go SDK in the wheel), pinned
# by hash in tests/deploy/requirements.txt, in a venv of its own (target/helm-venv).
HELM_VENV := target/helm-venv
helm-sdk: $(HELM_VENV)/.installed
$(HELM_VENV)/.installed: tests/deploy/requirements.txt
	@python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || { \
	  export DEBIAN_FRONTEND=noninteractive; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv >/dev/null; }
	rm -rf $(HELM_VENV) && python3 -m venv $(HELM_VENV)
	$(HELM_VENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r tests/deploy/requirements.txt
	@touch $@

# deploy/: the nginx server block under Debian's nginx over the demo in headless Chromium (a tool
# module rewritten on disk runs after a reload), the Helm chart under Helm's engine, and
# `chat-runtime check-tools` on good and broken folders. Needs pkg/ and the demo tools (make build).
test-deploy: node-deps browser nginx helm-sdk demo-tools demo-agent
	@[ -f pkg/bin/chat-runtime.js ] || $(MAKE) pkg
	node --test --test-concurrency=1 tests/deploy/

## ---- run ------------------------------------------------------------------

# Serves the page, the package and the tools from the demo agent itself; Ctrl-C stops it. The
# Coder mock requires a session and signs the page in by cookie with Coder's CSRF token, so
# /?backend=coder runs in cookie mode with CSRF on, as on a real Coder deployment.
demo: tools build demo-agent
	@echo "chat-runtime demo: open http://127.0.0.1:$(PORT)/  (the stream decoder: /decoder.html; Ctrl-C stops)"
	exec target/debug/chat-runtime-agent --port $(PORT) \
	  --static /=demo --static /pkg=pkg --static /tools=demo/tools --static /fixtures=tests/fixtures \
	  --coder-token demo-session --coder-sign-in

# The React app (demo/react, Vite + React 19 on the packed tarball and chat-runtime/react), built and
# served by the demo agent on http://127.0.0.1:$(PORT) with the demo tools.
demo-react: tools build demo-agent pack
	cd demo/react && npm ci --no-audit --no-fund --loglevel=error \
	  && npm install --no-audit --no-fund --no-save --loglevel=error ../../target/pack/chat-runtime-*.tgz \
	  && npx vite build
	@echo "chat-runtime React demo: open http://127.0.0.1:$(PORT)/  (Ctrl-C stops)"
	exec target/debug/chat-runtime-agent --port $(PORT) --static /=demo/react/dist --static /tools=demo/tools

# The assistant-ui app (demo/assistant-ui: Vite + React 19 + @assistant-ui/react on the packed tarball
# and chat-runtime/assistant-ui; an observability UI whose Ask panel has the contextual tools of
# Jaeger's RFC 0002), built and served by the demo agent in gateway mode on http://127.0.0.1:$(PORT).
demo-assistant-ui: tools build demo-agent pack
	cd demo/assistant-ui && npm ci --no-audit --no-fund --loglevel=error \
	  && npm install --no-audit --no-fund --no-save --loglevel=error ../../target/pack/chat-runtime-*.tgz \
	  && npx vite build
	@echo "chat-runtime assistant-ui demo: open http://127.0.0.1:$(PORT)/  (Ctrl-C stops)"
	exec target/debug/chat-runtime-agent --mode gateway --port $(PORT) --static /=demo/assistant-ui/dist --static /tools=demo/tools

# The browser benchmark (bench/): chat-runtime vs @ag-ui/client 1.0.0 in headless Chromium, against
# the scripted agent (release build). Writes bench/RESULTS.md. A report: it asserts no speed.
bench: node-deps browser pkg bench-dist
	cargo build --release -q -p chat-runtime-agent
	node bench/run.mjs

# @ag-ui/client bundled for the page (esbuild, minified): the whole API, and HttpAgent alone.
bench-dist: node-deps
	esbuild bench/agui-entry.mjs --bundle --minify --format=esm --platform=browser \
	  --log-level=warning --outfile=bench/dist/agui.js
	esbuild bench/agui-httpagent-entry.mjs --bundle --minify --format=esm --platform=browser \
	  --log-level=warning --outfile=bench/dist/agui-httpagent.js

bench-native: rust-tools
	cargo bench --bench throughput

# Not part of `make test`: run by hand (needs nightly and cargo-fuzz). Three targets: the decoder
# pipeline over arbitrary bytes, the session (the loop) over arbitrary input sequences, and the
# JSON layer against serde_json (plus JSON Patch atomicity).
fuzz:
	cargo +nightly fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz
	cd fuzz && cargo +nightly fuzz run decode -- -max_total_time=$${FUZZ_SECONDS:-300}
	cd fuzz && cargo +nightly fuzz run session -- -dict=session.dict -max_len=4096 -max_total_time=$${FUZZ_SECONDS:-300}
	cd fuzz && cargo +nightly fuzz run json -- -dict=json.dict -max_len=2048 -max_total_time=$${FUZZ_SECONDS:-300}

clean:
	rm -rf pkg target node_modules
