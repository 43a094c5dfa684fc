# DP Explorer — the two set-up commands (README), then the lessons and the benchmarks.
#   make app        create .venv, install, serve the app headless on http://127.0.0.1:8501 (its lessons on :2719)
#   make test       create .venv, install the test extras (+ Debian chromium when missing and possible), run the gate
#                   (make lint), then the whole suite
#   make lint       the gate alone: ruff's rules and mypy, both configured in pyproject.toml
#   make test-fast  the fast layers only (not slow, not in a browser), on two workers
#   make notebooks  open the marimo lessons (notebooks/) in marimo's editor on http://127.0.0.1:2718 (the link it
#                   prints carries the editor's access token)
#   make lesson NAME=brdp   serve one lesson read-only as an app on http://127.0.0.1:2718
#   make bench      print the benchmark table (not part of pass/fail)
#   make handouts   write build/handouts/<topic>.html: the first course and each paper as one file that opens from
#                   file:// with no server and no network (hand it to a class; it prints cleanly)
# Both are idempotent: the install step re-runs only when pyproject.toml or the constraints change.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CONSTRAINTS := requirements/constraints.txt
PYTEST_ARGS ?=
# one BLAS thread per process: the small optimisations in dpcore slow down 10-25x when BLAS threads compete
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1

.PHONY: app test test-fast lint bench chromium clean notebooks lesson bench-lessons handouts bench-instant
LESSON_PORT ?= 2718
NAME ?= baselines

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml $(CONSTRAINTS)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e ".[test]"
	touch $@

$(VENV)/.installed-handouts: $(VENV)/.installed pyproject.toml $(CONSTRAINTS)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e ".[handouts]"
	touch $@

$(VENV)/.installed-notebooks: $(VENV)/.installed pyproject.toml $(CONSTRAINTS)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e ".[notebooks]"
	touch $@

# The app, and beside it every lesson read-only (marimo's gallery of notebooks/), so each page's "Open the lesson"
# link works; the lesson server stops with the app. The gallery runs without a token: `marimo run` serves the lessons
# read-only (no editing, no files), which anyone may read in the repository anyway, and a token would have to be in
# every page's link for students to open them. Like every marimo server here it refuses foreign Host and Origin
# headers (app/host_guard.py).
APP_LESSON_PORT ?= 2719
app: $(VENV)/.installed-notebooks
	@PYTHONPATH=$(CURDIR) $(BIN)/marimo run notebooks --headless --host 127.0.0.1 --port $(APP_LESSON_PORT) \
		--no-token >/dev/null 2>&1 & lessons=$$!; trap 'kill $$lessons 2>/dev/null' EXIT INT TERM; \
	DPX_LESSONS_URL=http://127.0.0.1:$(APP_LESSON_PORT) $(BIN)/streamlit run app/serve.py --server.headless true \
		--server.address 127.0.0.1 --server.port 8501 --browser.gatherUsageStats false

# Debian packages for the tests that need a program: installed when its check fails and we can (root, or
# password-less sudo); otherwise a line says which tests will be skipped. Arguments: the shell check that the program
# is there, the packages, what installing says (nothing when empty), what to say when it cannot be installed.
comma := ,
define debian_install
	@if $(1); then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		$(if $(3),echo "$(3)";) \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		sudo -n apt-get update -qq && sudo -n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; \
	else echo "$(4)"; fi
endef

# Debian chromium for the browser tests.
chromium:
	$(call debian_install,command -v chromium >/dev/null 2>&1,chromium,installing Debian chromium for the browser tests,chromium not found and cannot be installed here: browser tests will be skipped (they fail under CI=true))

test: $(VENV)/.installed-test lint chromium postgres podman nginx-if-possible
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)

# The gate: ruff's rule set, ruff's formatter (the code is as `ruff format` writes it) and mypy (dpcore, app/compute,
# app/figures), all configured in pyproject.toml.
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The fast layers: everything but the slow tests (Monte Carlo, long compositions, the lessons) and the browser tests.
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 2 -m "not slow and not e2e" $(PYTEST_ARGS)

bench: $(VENV)/.installed-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV)

# Browser latency (slider release → chart updated, headless Debian chromium) and the 40-session classroom load test;
# each starts its own server on a private port. See bench/README.md.
.PHONY: bench-browser bench-load
bench-browser: $(VENV)/.installed-test
	$(BIN)/python bench/browser.py

bench-load: $(VENV)/.installed-test
	$(BIN)/python bench/load.py; classroom=$$?; $(BIN)/python bench/load.py --noisy 6 --trials 4; \
		exit $$(( classroom || $$? ))

# The marimo lessons: the editor over notebooks/ (every lesson one click away), or one lesson read-only as an app.
# The editor can change and run code and read files: it keeps marimo's access token (open the link it prints, which
# carries it); `make lesson` is read-only like the app's gallery and runs without one.
notebooks: $(VENV)/.installed-notebooks
	PYTHONPATH=$(CURDIR) $(BIN)/marimo edit notebooks --headless --host 127.0.0.1 --port $(LESSON_PORT)

lesson: $(VENV)/.installed-notebooks
	@test -f notebooks/$(NAME).py || { echo "no lesson notebooks/$(NAME).py; the lessons are:"; ls notebooks/*.py; exit 2; }
	PYTHONPATH=$(CURDIR) $(BIN)/marimo run notebooks/$(NAME).py --headless --host 127.0.0.1 --port $(LESSON_PORT) --no-token

# Slider move → chart redrawn in every lesson, headless chromium (bench/results-lessons.md).
bench-lessons: $(VENV)/.installed-test chromium
	$(BIN)/python bench/lessons.py

# → / ← between the steps of every ready-made lesson at 1280×720, headless chromium (bench/results-present.md).
.PHONY: bench-present
bench-present: $(VENV)/.installed-test chromium
	$(BIN)/python bench/present.py

# Every topic as one self-contained HTML file (plotly.js inlined, maths as MathML, the pictures' in-figure sliders):
# build/handouts/course.html (the first course) and build/handouts/<paper>.html. TOPICS="brdp svt" for some only.
TOPICS ?=
handouts: $(VENV)/.installed-handouts
	$(BIN)/python -m app.handouts --out build/handouts $(TOPICS)

# In-figure slider against the page's own slider: input → changed chart, headless chromium (bench/results-instant.md).
bench-instant: $(VENV)/.installed-test chromium
	$(BIN)/python bench/instant.py

# A lesson as static HTML (outputs at its defaults, controls frozen) and as a Jupyter notebook with stored outputs.
.PHONY: export
export: $(VENV)/.installed-notebooks
	@test -f notebooks/$(NAME).py || { echo "no lesson notebooks/$(NAME).py"; exit 2; }
	mkdir -p build/lessons
	PYTHONPATH=$(CURDIR) $(BIN)/marimo export html notebooks/$(NAME).py -o build/lessons/$(NAME).html
	PYTHONPATH=$(CURDIR) $(BIN)/marimo export ipynb notebooks/$(NAME).py -o build/lessons/$(NAME).ipynb --include-outputs
	@echo "wrote build/lessons/$(NAME).html and build/lessons/$(NAME).ipynb"

# Debian PostgreSQL for the ledger-store tests (tests/store start and stop their own server) and the cluster; nginx for
# the cluster. Installed when missing and we can (root, or password-less sudo), like chromium above.
.PHONY: postgres nginx cluster
postgres:
	$(call debian_install,ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1,postgresql,installing Debian postgresql for the ledger-store tests,PostgreSQL not found and cannot be installed here: its store tests will be skipped (they fail under CI=true))

# nginx: the cluster needs it; the test command installs it where it can for the header and limit tests
# (tests/e2e/test_security.py: skipped without it, failed under CI=true)
.PHONY: nginx-if-possible
nginx-if-possible:
	$(call debian_install,command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ],nginx-light,,nginx not found and cannot be installed here: its tests will be skipped (they fail under CI=true))

nginx: nginx-if-possible
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { echo "nginx not found and cannot be installed here"; exit 1; }

# podman, runc and debootstrap build and run the Dockerfile where no Docker engine runs (deploy/image.py; the image's
# browser test). Installed when missing and we can, like chromium above.
.PHONY: podman image image-run
podman:
	$(call debian_install,command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1 && [ -x /usr/sbin/debootstrap ],podman runc debootstrap,installing Debian podman$(comma) runc and debootstrap for the container image test,podman not found and cannot be installed here: the image test will be skipped (it fails under CI=true))

# the container image (localhost/dp-explorer:latest), and the image served on http://127.0.0.1:8501 (ledgers in the
# named volume dpx-data)
image: podman
	$(PYTHON) deploy/image.py build
image-run: image
	$(PYTHON) deploy/image.py run --port 8501 --volume dpx-data

# N replicas behind nginx on http://127.0.0.1:8600/, sharing a private PostgreSQL ledger store (deploy/README.md)
N ?= 3
cluster: $(VENV)/.installed-test postgres nginx
	$(BIN)/python deploy/cluster.py --replicas $(N) --port 8600

# A class poll under load: 200 phones on one server, then on N replicas behind nginx (bench/poll.py)
.PHONY: bench-poll
bench-poll: $(VENV)/.installed-test postgres nginx
	$(BIN)/python bench/poll.py --replicas $(N)
