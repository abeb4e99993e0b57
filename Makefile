# Two commands on a fresh machine:
#   make demo   installs masta into ./.venv and referees the bundled demo game in the browser
#   make test   installs masta and its test tools into ./.venv and runs the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.masta-installed

.PHONY: demo test install system-packages train-fonts clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Re-install whenever pyproject.toml changes.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e ".[train,dev]"
	touch $(STAMP)

install: $(STAMP)

# Test-only system packages from Debian: chromium for the browser tests (never a downloaded
# browser) and the PostgreSQL server for the --db test. Installed only when missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-packages:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The fonts `masta train` draws its own card decks with (datasets/faces.py; drawn-00 to
# drawn-15 use the first two families only): Debian's packages. Only for training.
TRAIN_FONTS := fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-freefont-ttf \
	fonts-urw-base35 fonts-linuxlibertine fonts-crosextra-caladea fonts-ebgaramond \
	fonts-open-sans fonts-cantarell fonts-lato fonts-comic-neue
train-fonts:
	$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TRAIN_FONTS) >/dev/null

demo: install
	$(VENV)/bin/masta demo

test: install system-packages
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
