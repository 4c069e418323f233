# Brag Tables. `make run` serves the app on http://127.0.0.1:8000 (SQLite) with uvicorn, with
# the options in brag_tables/serving.py; `make test` runs the whole suite. Both set up .venv
# from the pinned requirements first.
# `make run HOST=0.0.0.0` serves the pub's wifi too: the machine's LAN address is allowed
# automatically and printed with a QR code for the tablets. PORT=8080 picks another port.
# `make dev` is the same with Django's autoreloading development server, for working on it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# runserver wants an IPv6 address in brackets (HOST=:: or HOST=::1); uvicorn takes it bare.
BIND := $(if $(findstring :,$(HOST)),[$(HOST)],$(HOST)):$(PORT)
# A local run is plain HTTP; production keeps the HTTPS hardening on (see docs/operating.md).
LOCAL_ENV := DJANGO_HTTPS=$${DJANGO_HTTPS:-0}
# The suite runs on every core (pytest-xdist): each worker has its own test database, live
# server and Chromium. XDIST= runs it in one process, as a debugger wants.
XDIST ?= -n auto

.PHONY: run dev serve-setup test test-js test-fast screenshots lint format setup setup-dev migrate bench loadtest messages clean

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit("Brag Tables needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

setup: $(VENV)/.runtime
setup-dev: $(VENV)/.dev

migrate: setup
	$(LOCAL_ENV) $(PY) manage.py migrate --noinput

# Static files are collected for WhiteNoise, which serves them from the app itself.
serve-setup: migrate
	$(LOCAL_ENV) $(PY) manage.py collectstatic --noinput --verbosity 0
	@$(LOCAL_ENV) BRAG_BIND_HOST=$(HOST) $(PY) manage.py lan_address --host $(HOST) --port $(PORT)
	@echo "Ctrl+C to stop."

# The night's server: uvicorn with brag_tables/serving.py's options, one worker process
# (WEB_CONCURRENCY=3 make run for three).
run: serve-setup
	$(LOCAL_ENV) BRAG_BIND_HOST=$(HOST) $(PY) -m brag_tables.serving --host $(HOST) --port $(PORT)

# Django's development server, which reloads on every code change: not for the night.
# runserver has no ASGI lifespan to start the ratings worker (matches/ratings/supervisor.py):
# it runs beside it here, and Ctrl+C stops both.
dev: serve-setup
	$(LOCAL_ENV) $(PY) manage.py ratings_worker & trap 'kill $$! 2>/dev/null' EXIT INT TERM; \
	$(LOCAL_ENV) BRAG_BIND_HOST=$(HOST) $(PY) manage.py runserver $(BIND)

test: lint
	$(LOCAL_ENV) $(PY) manage.py makemigrations --check --dry-run
	@if command -v node >/dev/null 2>&1; then $(MAKE) --no-print-directory test-js; \
	else echo "Node.js not found: the tap queue's logic tests (make test-js) did not run; .ci/run installs it."; fi
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

# The tablet script's pure logic (static/js/tap-logic.js) under Node's own test runner: no
# npm packages. BRAG_SEED=<n> picks another seed for its random sequences.
test-js:
	node --test tests/js/

# The suite without the browser tests (no Chromium, no Playwright imported): a quick check
# while working. `make test` is still the one that counts.
test-fast: setup-dev
	$(PY) -m pytest $(XDIST) -m "not browser" --ignore=tests/browser $(PYTEST_ARGS)

# Refresh the README's pictures in docs/screenshots: only the browser tests that take them.
# Any other run writes its screenshots into tests/browser/screenshots, which git ignores.
screenshots: setup-dev
	BRAG_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/browser -m screenshots $(PYTEST_ARGS)

# pre-commit's hooks (.pre-commit-config.yaml: ruff, ruff format, djhtml's template indentation
# and the template line length), then the import rule (pyproject.toml's [tool.importlinter]:
# layered packages, only the URLconf, admin and template tags import web/, no cycle anywhere in
# matches/). Then mypy: rules/ core/ play/ ratings/ allow no error, the rest only
# mypy-baseline.txt's.
lint: setup-dev
	$(VENV)/bin/pre-commit run --all-files --show-diff-on-failure
	$(VENV)/bin/lint-imports --no-cache
	$(PY) tools/mypy_check.py

format: setup-dev
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .
	$(VENV)/bin/djhtml templates

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache .hypothesis test_db.sqlite3*

# Seeds a fresh league (manage.py seed_league, 100,000 filed matches by default) and times the
# main pages against two floors. BENCH_ARGS="--matches 2000" for a quick run; --database-url
# for PostgreSQL. The first run's one venue holds every match; the second spreads them over
# 100 pubs and times the venue rows only.
bench: setup-dev
	$(PY) bench/run.py $(BENCH_ARGS)
	$(PY) bench/run.py --venues 100 --tables 200 --only venue $(BENCH_ARGS)

# uvicorn (brag_tables/serving.py) under load, then a SIGKILL mid-run: SQLite, and PostgreSQL
# when one is reachable (there also two uvicorns on one database, taps spread across both).
# LOADTEST_ARGS=--short is the CI size. LOADTEST_ARGS=--spectator-capacity (with --short in CI)
# instead finds how many spectators polling every 3 s one uvicorn worker process holds with
# p95 < 50 ms. LOADTEST_ARGS="--push --subscribers 5000" instead times a tap's way to that
# many event-stream subscribers (--short in CI).
LOADTEST_PG_URL ?= postgres://postgres@127.0.0.1:5432/brag_load
loadtest: setup-dev
	$(PY) loadtest/run.py $(LOADTEST_ARGS)
	@if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then \
		$(PY) loadtest/run.py --database-url $(LOADTEST_PG_URL) $(LOADTEST_ARGS) && \
		$(PY) loadtest/run.py --two-servers --database-url $(LOADTEST_PG_URL)_two $(LOADTEST_ARGS); \
	else echo "PostgreSQL not reachable on 127.0.0.1:5432: skipped its load test"; fi

# Refresh the Portuguese catalogue after changing user-facing strings (needs GNU gettext),
# then translate what is new in locale/pt/LC_MESSAGES/django.po and compile it.
messages: setup-dev
	$(LOCAL_ENV) $(PY) manage.py makemessages -l pt --ignore=.venv --ignore=bench --ignore=loadtest --ignore=tests --ignore=staticfiles
	$(LOCAL_ENV) $(PY) manage.py compilemessages -l pt --ignore=.venv
