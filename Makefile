# Fresh-machine entry points: `make run` (the pipeline on the embedded broker, with a demo
# answer) and `make test` (the whole suite). Both create the virtualenv on first use and
# compile the stage logic with mypyc (`make native`; CITEFLOW_NATIVE=0 skips it and runs
# plain Python, which gives the same outputs).
#
# The virtualenv's interpreter: the distribution's CPython 3.11 (/usr/bin/python3.11, with
# venv and its headers for the native build) when there is one, else `python3`. Distribution
# builds (and the python:3.11 images deploy/ uses) are compiled with profile-guided and
# link-time optimisation; on a default source build (pyenv's, for one) the stages take
# 20-35% more time per answer. `make PYTHON=...` picks another.
SYSTEM_PYTHON := /usr/bin/python3.11
PYTHON ?= $(if $(shell $(SYSTEM_PYTHON) -c 'import ensurepip, os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null && echo yes),$(SYSTEM_PYTHON),python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

STATIC := services/gateway/static
VENDOR := $(STATIC)/node_modules/.package-lock.json

.PHONY: install native browser postgres tls proxy vendor run test test-unit test-integration bench schemas clean

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@echo "==> [1/3] virtualenv $(VENV) and pip"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@# Older virtualenvs hold the full pymupdf, whose files pymupdf-lite shares: remove it first.
	@$(BIN)/python -m pip uninstall --quiet --yes pymupdf pymupdf-layout pymupdf4llm 2>/dev/null || true
	@echo "==> [2/3] Python packages (pip; a minute or two the first time)"
	@$(BIN)/python -m pip install --quiet -e ./clients/python -e ".[test,native,bench,langchain,llamaindex]"
	@touch $(STAMP)

install: $(STAMP) vendor
	@echo "==> [3/3] native build of the stage logic"
	@if [ "$$CITEFLOW_NATIVE" = "0" ]; then echo "CITEFLOW_NATIVE=0: no native build"; \
	else CITEFLOW_NATIVE=0 $(BIN)/python -m services.native.build --if-stale; fi

native: $(STAMP)
	CITEFLOW_NATIVE=0 $(BIN)/python -m services.native.build

# The gateway's front-end dependencies (Swagger UI ...), pinned by package-lock.json and
# served by the gateway itself: no CDN. Install scripts are not run (one only phones home).
vendor: $(VENDOR)

$(VENDOR): $(STATIC)/package.json $(STATIC)/package-lock.json
	@if ! command -v npm >/dev/null && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends npm) >/dev/null 2>&1; fi
	@echo "==> front-end files of the gateway's pages (npm ci)"
	@cd $(STATIC) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

run: install
	$(BIN)/citeflow up --demo services/examples/demo_answer.json

# Headless Chromium and its driver (Debian packages) for the browser checks of the HTML
# outputs and the pages; where they cannot be installed (no apt-get, not root) those tests
# skip, and `make test` lists them at the end (CI fails on any skip).
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	    chromium chromium-driver) >/dev/null 2>&1 \
	  || echo "could not install chromium: the browser checks will skip"; \
	else echo "no chromium here and no way to install it: the browser checks will skip"; fi

# PostgreSQL server binaries (Debian's `postgresql` package) for the results store's tests,
# which start a throwaway cluster themselves (tests/pg.py: initdb on a free loopback port in
# a temp dir); where it cannot be installed (no apt-get, not root) those tests skip.
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql) \
	    >/dev/null 2>&1 || echo "could not install postgresql: the PostgreSQL tests will skip"; \
	else echo "no PostgreSQL here and no way to install it: the PostgreSQL tests will skip"; fi

# Debian's stunnel4, the TLS terminator the TLS tests and `bench e2e --tls` put in front of
# the embedded broker (which cannot serve TLS itself; services/bench/tls.py), and openssl,
# which makes their certificates.
tls:
	@if command -v stunnel4 >/dev/null && command -v openssl >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends stunnel4 openssl) \
	    >/dev/null 2>&1 || echo "could not install stunnel4: the TLS tests will fail"; \
	else echo "no stunnel4 here and no way to install it: the TLS tests will fail"; fi

# nginx (Debian's package) for the hostile-client test that runs deploy/proxy/citeflow.conf
# in front of a real gateway; where it cannot be installed (no apt-get, not root) that
# test fails for want of nginx.
proxy:
	@if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx-light) \
	    >/dev/null 2>&1 || echo "could not install nginx: the proxy test will fail"; \
	else echo "no nginx here and no way to install it: the proxy test will fail"; fi

# The suite on TEST_WORKERS pytest-xdist workers, each test file whole on one worker (its
# module fixtures start once; each worker has its own session broker, PostgreSQL and
# browser). Most tests wait on the servers they start, so more workers than cores pay.
TEST_WORKERS ?= 3
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

test: install browser postgres tls proxy
	$(PYTEST)

test-unit: install browser postgres
	$(PYTEST) -m "not integration"

test-integration: install postgres tls proxy
	$(PYTEST) -m integration

bench: install browser tls
	$(BIN)/citeflow bench process
	$(BIN)/citeflow bench ingest
	$(BIN)/citeflow bench e2e --tls
	$(BIN)/citeflow bench idle
	$(BIN)/citeflow bench memory
	$(BIN)/citeflow bench gateway
	$(BIN)/citeflow bench store
	$(BIN)/citeflow bench reader
	$(BIN)/citeflow bench verification
	$(BIN)/citeflow bench adapters
	$(BIN)/citeflow eval attribution

schemas: install
	$(BIN)/citeflow schemas export
	$(BIN)/citeflow schemas docs

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .native .native.new $(STATIC)/node_modules
