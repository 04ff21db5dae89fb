# Two commands: `make run` (serve the site on SQLite) and `make test` (SQLite and PostgreSQL).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
DEV := DEBUG=1
PYTEST_ARGS ?=

.PHONY: install run migrate sample browser test test-sqlite test-postgres lint bench clean

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

test: browser test-sqlite test-postgres

# Browser tests drive Debian's chromium (never a downloaded browser build).
browser:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: sudo apt-get install -y chromium" >&2; exit 1; fi; }

test-sqlite: install
	DATABASE_URL= $(BIN)/pytest $(PYTEST_ARGS)

test-postgres: install
	scripts/with-postgres $(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

bench: install
	scripts/with-postgres $(BIN)/python bench/card_search.py
	scripts/with-postgres $(BIN)/python bench/validate_rps.py

clean:
	rm -rf $(VENV) staticfiles *.egg-info db.sqlite3
