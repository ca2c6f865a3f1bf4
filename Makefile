# One command each: `make test`, `make lint`, `make bench`.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test lint bench bench-peers install clean agents corpus browser postgres tmux

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VPY)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The pinned agent CLIs for the real_agents tests; `npm ci` reruns only when the lock changes.
# The npm set includes Grok CLI (sample plugin localrun-providers/grok); the Python CLIs of the
# sample plugins (Hermes Agent) go into their own venv, agent-clis/python, whose pinned
# dependencies must not meet hangar's own.
AGENTS_DIR   := agent-clis
AGENTS_STAMP := $(AGENTS_DIR)/node_modules/.hangar-stamp
PYCLIS_STAMP := $(AGENTS_DIR)/python/.hangar-stamp

# The lock lists every platform build of Qwen Code's optional clipboard addon
# (@teddyzhu/clipboard-*) by hand: from a registry mirror that serves only some of them,
# `npm install` leaves out the optional packages it cannot fetch, and `npm ci` then refuses
# the lock as out of sync with the addon's optionalDependencies. Entries with `os`/`cpu` and
# no tarball are what npm skips on other platforms without fetching; regenerating the lock
# from such a mirror drops them again (put the five entries back).
#
# opencode's postinstall runs `opencode --version`, which creates XDG folders: keep them
# inside node_modules instead of the user's home.
AGENTS_XDG   := $(CURDIR)/$(AGENTS_DIR)/node_modules/.install-home

$(AGENTS_STAMP): $(AGENTS_DIR)/package.json $(AGENTS_DIR)/package-lock.json
	cd $(AGENTS_DIR) && XDG_DATA_HOME=$(AGENTS_XDG)/share XDG_CACHE_HOME=$(AGENTS_XDG)/cache \
		XDG_CONFIG_HOME=$(AGENTS_XDG)/config XDG_STATE_HOME=$(AGENTS_XDG)/state \
		npm ci --no-audit --no-fund
	touch $(AGENTS_STAMP)

$(PYCLIS_STAMP): $(AGENTS_DIR)/requirements.txt
	$(PYTHON) -m venv $(AGENTS_DIR)/python
	$(AGENTS_DIR)/python/bin/pip install --quiet -r $(AGENTS_DIR)/requirements.txt
	touch $(PYCLIS_STAMP)

agents: $(AGENTS_STAMP) $(PYCLIS_STAMP)

# Regenerates the committed demo corpus (demo/corpus/) by running every CLI offline.
corpus: install agents
	$(VPY) -m hangar.testing.corpus demo/corpus

# Debian's chromium for the browser tests (Playwright drives it); installed only as root.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "chromium not installed and not root: browser tests will skip" >&2; fi; }

# Debian's PostgreSQL for the hub's portability tests (they start their own server).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
	  else echo "postgresql not installed and not root: PostgreSQL tests will skip" >&2; fi; }

# Debian's tmux for the real-terminal tests of the inline menu and card (libtmux drives it).
tmux:
	@command -v tmux >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux; \
	  else echo "tmux not installed and not root: real-terminal tests will skip" >&2; fi; }

test: install agents browser postgres tmux
	$(VPY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The peers bench/cli.py compares with (AgentsView), pinned in bench/requirements.txt, in their
# own venv: they are not part of hangar and never meet its dependencies.
PEERS_DIR   := bench/.peers
PEERS_STAMP := $(PEERS_DIR)/.hangar-stamp

$(PEERS_STAMP): bench/requirements.txt
	$(PYTHON) -m venv $(PEERS_DIR)
	$(PEERS_DIR)/bin/pip install --quiet -r bench/requirements.txt
	touch $(PEERS_STAMP)

bench-peers: $(PEERS_STAMP)

# Every script prints its figures, even after one missed a target; the exit status says whether
# all met theirs. bench/cli.py compares with the AgentsView of bench/.peers (or the binary
# HANGAR_BENCH_AGENTSVIEW names); bench/continue.py drives the pinned agent CLIs and
# bench/web.py Chromium, installed as for `make test`.
bench: install agents browser bench-peers
	@status=0; for script in bench/*.py; do echo "# $$script" >&2; \
	  $(VPY) $$script --json || status=1; done; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
