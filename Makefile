# Everything a fresh machine needs: `make demo` and `make test` create .venv and install.
VENV   ?= .venv
PY     := $(VENV)/bin/python
# torch is installed first and pinned: a range that admits a newer release would make
# pip fetch a multi-GB CUDA build. numpy stops `import torch` warning into every capture.
TORCH  := torch==2.13.0

.PHONY: install demo check test lint docs cli-reference validate bench bench-scale bench-serve messages clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH) numpy
	# The distribution was called `graders` before: leave one copy of the package.
	$(PY) -m pip uninstall -q -y graders 2>/dev/null || true
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	touch $@

demo: install
	$(VENV)/bin/graders demo

# The suite on every core (pytest-xdist), each module's tests on one worker: a module's
# fixtures are built once, and the heaviest modules are handed out first (what_starts.py).
XDIST  := --numprocesses=auto --dist=loadscope

# Before every commit: lint, format check, type check, then every test that starts nothing: no
# server, cluster, browser, nbgrader, database, sandbox or graders command (tests/what_starts.py).
check: lint
	$(VENV)/bin/pytest -q $(XDIST) -m "not (server or cluster or browser or nbgrader or postgres or sandbox or command)"

# What CI runs: lint first (seconds), then the whole suite, its 20 slowest tests named.
test: lint
	$(VENV)/bin/pytest -q $(XDIST) --durations=20

lint: install
	$(VENV)/bin/ruff check graders tests benchmarks
	$(VENV)/bin/ruff format --check graders tests benchmarks
	$(VENV)/bin/mypy

# docs/reference/cli.md from the commands' own --help (committed; the suite checks it is fresh).
cli-reference: install
	$(PY) docs/cli_reference.py

# The documentation site (mkdocs.yml, docs/) into site/, warnings as errors; the suite builds
# it too (tests/test_docs.py), so `make test` fails on a broken link or a missing page.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

validate: install
	$(VENV)/bin/graders validate

# graders' own words (graders/i18n/catalogues.py): extracted from the code and templates into the
# template, merged into each language's catalogue (a new message comes untranslated, and
# tests/test_messages.py names it until it is translated), then compiled into the .mo
# files graders reads (committed: a learner's install needs no Babel).
POT := graders/locale/graders.pot
messages: install
	$(VENV)/bin/pybabel -q extract -F babel.cfg -k N_ -k say -k say_n:1,2 --no-location --sort-output -w 100 \
	  --project autograd-graders --version 0.1.0 -o $(POT) \
	  --header-comment "# Translations template of graders' own words (graders/i18n/): make messages." .
	$(VENV)/bin/pybabel -q update -i $(POT) -d graders/locale -D graders \
	  --ignore-obsolete -w 100
	$(VENV)/bin/pybabel -q compile -d graders/locale -D graders

# The performance benchmark against real nbgrader (about 16 minutes on 2 cores).
bench: install
	$(PY) benchmarks/class_batch.py --students 500 --json bench.json
	$(PY) benchmarks/readme_table.py bench.json

# A class of ps1 through autograde -> feedback -> report -> export at 1,000 and 10,000
# learners, on this machine into SQLite and on a local Dask cluster into PostgreSQL, and
# graders check started cold (about an hour on 2 cores); the performance page's table from the run.
bench-scale: install
	$(PY) benchmarks/scale_pipeline.py --json bench-scale.json
	$(PY) benchmarks/scale_table.py bench-scale.json

# graders serve under a burst: 500 learners uploading ps1 within 60 s (latency p50/p99,
# errors, lost), the sustained rate, and one graders autograde of the same notebooks.
bench-serve: install
	$(PY) benchmarks/serve_burst.py --learners 500 --within 60 --json bench-serve.json

clean:
	rm -rf $(VENV) .graders-cache autograded release build site *.egg-info
