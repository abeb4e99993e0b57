# Two commands on a fresh machine:
#   make demo   installs masta into ./.venv and referees the bundled demo game in the browser
#   make test   installs masta and its test tools into ./.venv and runs the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.masta-installed

.PHONY: demo test install install-dev browser clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Re-install whenever pyproject.toml changes.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e ".[train,dev]"
	touch $(STAMP)

install: $(STAMP)

# Browser tests drive Debian's chromium (never a downloaded browser).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; }

demo: install
	$(VENV)/bin/masta demo

test: install browser
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
