# mcpx — see README.md. Every target installs what it needs from package.json first.
BUN := node_modules/.bin/bun
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
SOURCES := $(shell find cmd lib launcher -name '*.ts') package.json build.ts

.PHONY: all install build demo test test-unit test-e2e test-release bench typecheck cycles lint format conformance release clean

all: build demo

node_modules/.installed: package.json
	npm install --no-audit --no-fund
	@touch $@

install: node_modules/.installed

dist/mcpx: node_modules/.installed $(SOURCES)
	$(BUN) run build.ts

build: dist/mcpx

# the main job on an embedded default: the bundled fixture server and sample script
demo: dist/mcpx
	@# the demo's .mcpx.json starts a server: a project's file does that once trusted (docs/security.md); idempotent
	cd fixtures/demo && ../../dist/mcpx trust .mcpx.json
	cd fixtures/demo && ../../dist/mcpx run report.ts world --before 'console.error("[before] starting")' --suffix 'console.error("[suffix] done")'

typecheck: node_modules/.installed
	node_modules/.bin/tsc --noEmit -p .

# no import cycle between files or between folders (lib/<concern>, cmd, launcher), type-only imports included
cycles: node_modules/.installed
	$(BUN) run test/cycles.ts

# formatting and lint rules (biome.jsonc; checks, never writes), no line over 160 characters,
# unused files, exports and dependencies (knip.json), and the cycle check; CI runs it (.ci/run)
lint: node_modules/.installed
	node_modules/.bin/biome check --error-on-warnings .
	$(BUN) run test/line-length.ts
	node_modules/.bin/knip --no-progress
	$(BUN) run test/cycles.ts

# writes Biome's formatting (the style make lint checks)
format: node_modules/.installed
	node_modules/.bin/biome format --write .

test: dist/mcpx
	$(BUN) run test/run.ts

test-unit: node_modules/.installed
	$(BUN) run test/run.ts unit

test-e2e: dist/mcpx
	$(BUN) run test/run.ts e2e

# the documented `make release` checked for all six targets; in make test it builds this machine's only
test-release: dist/mcpx
	MCPX_TEST_RELEASE=all $(BUN) run test/run.ts test/e2e/docs-commands.test.ts

# the MCP conformance suite against mcpx's /mcp handler, then its client scenarios against mcpx
# ls/auth/call (both also part of make test)
conformance: dist/mcpx
	$(BUN) run test/conformance/run.ts
	$(BUN) run test/conformance/client-run.ts

# mcporter is only the peer the bench compares with, and wants Node >= 24: it is installed here, into a
# cache of its own, so `npm install` of the project has no engine warnings (test/unit/engines.test.ts)
MCPORTER_VERSION := 0.12.3
MCPORTER_DIR := node_modules/.cache/mcporter-$(MCPORTER_VERSION)

$(MCPORTER_DIR)/node_modules/mcporter/package.json: node_modules/.installed
	npm install --prefix $(MCPORTER_DIR) --no-save --no-package-lock --no-audit --no-fund --loglevel=error mcporter@$(MCPORTER_VERSION) >/dev/null

bench: dist/mcpx $(MCPORTER_DIR)/node_modules/mcporter/package.json
	MCPX_BENCH_MCPORTER=$(CURDIR)/$(MCPORTER_DIR)/node_modules/mcporter $(BUN) run test/bench/bench.ts

# every release binary (linux x64/arm64, glibc and musl; darwin arm64/x64) and SHA256SUMS in
# dist/release; RELEASE_TARGETS="linux-x64 …" builds only those (docs/install.md)
release: node_modules/.installed
	$(BUN) run build.ts release $(RELEASE_TARGETS)

clean:
	rm -rf dist
