# Two commands: `make run` (serve the site on SQLite) and `make test` (SQLite and PostgreSQL).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
DEV := DEBUG=1
PYTEST_ARGS ?=

.PHONY: install run migrate sample browser servers test test-sqlite test-postgres cluster lint bench clean

$(BIN)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); $(PYTHON) -m pip install --user --quiet virtualenv && $(PYTHON) -m virtualenv $(VENV); }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt '.[dev]'  # dependencies; the code runs from here
	touch $@

install: $(BIN)/.installed

migrate: install
	$(DEV) $(BIN)/python manage.py migrate --noinput

sample: migrate
	$(DEV) $(BIN)/python manage.py load_sample_data

run: sample
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(DEV) $(BIN)/python manage.py runserver $(HOST):$(PORT)

test: browser servers test-sqlite test-postgres

# Debian packages the tests drive: chromium (browser tests; never a downloaded browser build),
# nginx and redis-server (the two-server cluster test). Installed with apt when missing.
APT_INSTALL = if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; \
	  else echo "missing: sudo apt-get install -y $(1)" >&2; exit 1; fi
browser:
	@command -v chromium >/dev/null || { $(call APT_INSTALL,chromium); }
servers:
	@{ [ -x /usr/sbin/nginx ] && command -v redis-server >/dev/null; } || { $(call APT_INSTALL,nginx redis-server); }

# Each database's run is two: the unit and page tests on both cores (pytest-xdist), then the
# browser tests one at a time (each drives a live server and chromium). PYTEST_ARGS picks tests.
SUITE = $(if $(PYTEST_ARGS),$(PYTEST_ARGS),-n 2 --ignore=tests/e2e)
test-sqlite: install
	DATABASE_URL= $(BIN)/pytest $(SUITE)
	$(if $(PYTEST_ARGS),,DATABASE_URL= $(BIN)/pytest tests/e2e)

test-postgres: install
	scripts/with-postgres $(BIN)/pytest $(SUITE)
	$(if $(PYTEST_ARGS),,scripts/with-postgres $(BIN)/pytest tests/e2e)

# Production topology on this machine: nginx → two gunicorns → one PostgreSQL and one Redis.
cluster: install servers
	scripts/with-postgres $(BIN)/python scripts/cluster.py --sample --port $(PORT)

# docs/screenshots/: each main page at 1280 and 390 px wide, light and dark (tests/e2e/test_look.py).
.PHONY: screenshots
screenshots: install browser
	SCREENSHOTS_DIR=docs/screenshots DATABASE_URL= $(BIN)/pytest -p no:cacheprovider tests/e2e/test_look.py -k axe_clean

lint: install
	$(BIN)/ruff check .

bench: install
	scripts/with-postgres $(BIN)/python bench/card_search.py
	scripts/with-postgres $(BIN)/python bench/validate_rps.py
	scripts/with-postgres $(BIN)/python bench/pages.py
	DATABASE_URL= $(BIN)/python bench/import_cards.py
	scripts/with-postgres $(BIN)/python bench/import_cards.py
	DATABASE_URL= $(BIN)/python bench/rules.py
	scripts/with-postgres $(BIN)/python bench/rules.py

clean:
	rm -rf $(VENV) staticfiles *.egg-info db.sqlite3
