# One command each: `make test`, `make lint`, `make bench`.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test lint bench install clean

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VPY)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

test: install
	$(VPY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy

bench: install
	@for script in bench/*.py; do echo "# $$script" >&2; $(VPY) $$script --json || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
