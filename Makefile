# Two commands on a fresh machine:
#   make demo   installs masta into ./.venv and referees the bundled demo game in the browser
#   make test   installs masta and its test tools into ./.venv and runs the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.masta-installed

.PHONY: demo test install system-packages train-fonts train-decks clean

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

# The deck designs `../shared/data/decks.md` lists for training (datasets/package_decks.py renders
# only those, at training time; nothing rendered is committed): Debian's card packages, rsvg-convert
# to render their SVGs, and arcade's wheel for Kenney's cards (downloaded, not installed: its images
# are read from the wheel). texlive-games is not installed (about 40 MB and the TeX base packages for
# one font): `apt-get download texlive-games` and `dpkg-deb -x` give the NKD04 font alone.
TRAIN_DECKS := gnome-cards-data aisleriot kdegames-card-data-kf5 pokerth-data librsvg2-bin
train-decks:
	$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(TRAIN_DECKS) >/dev/null
	mkdir -p runs/wheels && $(PIP) download -q --no-deps -d runs/wheels arcade

demo: install
	$(VENV)/bin/masta demo

test: install system-packages
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
