# Parley developer commands. Every target creates .venv and installs what is missing;
# re-running is quick once everything is in place.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
STAMP_RUN := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test
TORCH_VERSION := 2.13.0
CUDA_VENV := build/venv-cuda
SAMPLE := assets/hello_24k.wav
FUZZ_EXAMPLES ?= 5000

.PHONY: run test check fuzz bench screenshots translations package package-cuda lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# torch first: on Linux x86_64 without an NVIDIA driver, the CPU build (a bare
# `torch` requirement would pull a multi-GB CUDA build).
$(STAMP_RUN): pyproject.toml | $(PY)
	@if $(PY) -c "import torch" 2>/dev/null; then :; \
	elif [ "$$(uname -s)-$$(uname -m)" = "Linux-x86_64" ] && ! command -v nvidia-smi >/dev/null 2>&1; then \
		echo "installing torch (CPU build)"; $(PIP) install torch==$(TORCH_VERSION); \
	else echo "installing torch"; $(PIP) install torch; fi
	$(PIP) install -e .
	@touch $@

$(STAMP_TEST): $(STAMP_RUN)
	$(PIP) install -e '.[dev]'
	$(PIP) install einops sphn
	$(PIP) install --no-deps moshi==0.2.13
	$(PIP) install --no-deps hibiki-zero==0.0.4  # the interpreter's oracle; its own pins (gradio, jupyter) are not needed
	$(PIP) install aiohttp ipython  # what hibiki_zero.inference imports
	$(PIP) install pocket-tts==4.0.1  # the Pocket TTS oracle (its pins leave torch as installed)
	@# `parley chat`'s real language model server. A source build only: 5-15 min on 2 cores, once (pip
	@# caches the wheel by version, not flags). Portable flags: the default build is -march=native.
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" $(PIP) install 'llama-cpp-python[server]==0.3.36'
	@touch $@

run: $(STAMP_RUN)
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$(uname -s)" != "Linux" ]; then \
		$(VENV)/bin/parley; \
	else \
		echo "No display found: running the engine offline on a sample instead."; \
		echo "  (use: $(VENV)/bin/parley offline --model demo --input IN.wav --output OUT.wav)"; \
		$(VENV)/bin/parley offline --model demo --input $(SAMPLE) --output parley-demo-out.wav; \
	fi

test: $(STAMP_TEST)
	@bash tests/setup_system.sh
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q --durations=15

# Day-to-day: the whole suite but the bundle builds (marker `bundle`) and the long soak-style runs
# (marker `slow`); `make test` (and CI) runs those too.
check: $(STAMP_TEST)
	@bash tests/setup_system.sh
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q --durations=15 -m "not bundle and not slow"

# The fuzzer of every reader of untrusted bytes (tests/fuzz_readers.py), long: FUZZ_EXAMPLES new
# random inputs per reader (`make test` runs a few dozen, the same each time). It prints how many
# inputs each reader took and how they ended; a failure prints the input that broke the contract.
fuzz: $(STAMP_TEST)
	PARLEY_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -s tests/test_fuzz_readers.py

bench: $(STAMP_TEST)
	$(PY) -m bench.run_all

screenshots: $(STAMP_TEST)
	@bash tests/setup_system.sh
	QT_QPA_PLATFORM=offscreen $(PY) -m app.window.screenshots screenshots

# The interface's translations (app/i18n.py): collect every translatable string of app/ into the .ts
# sources (new strings arrive unfinished, for a translator; line numbers are left out so that edits
# elsewhere do not churn them), then compile the .qm files the app loads (committed, so that a checkout
# and both bundles have them; tests/test_app_translations.py fails when they are older than the .ts).
# English's catalogue holds only the plural forms ("%n seconds": "1 second", "2 seconds").
LANGUAGES := fr de es
TS := $(foreach l,$(LANGUAGES),app/translations/parley_$(l).ts)
translations: $(STAMP_RUN)
	$(VENV)/bin/pyside6-lupdate -locations none -no-obsolete $$(find app -name '*.py' | sort) -ts $(TS)
	$(VENV)/bin/pyside6-lupdate -locations none -no-obsolete -pluralonly $$(find app -name '*.py' | sort) \
		-ts app/translations/parley_en.ts
	for ts in $(TS) app/translations/parley_en.ts; do \
		$(VENV)/bin/pyside6-lrelease -silent $$ts -qm $${ts%.ts}.qm || exit 1; done

# dist/parley/ (PyInstaller onedir) + dist/*.tar.gz + dist/*.deb, from a CPU-only torch environment
# (build.py refuses a CUDA torch and says how to make a CPU venv: make package VENV=build/venv-cpu).
PYINSTALLER := pyinstaller==6.22.3
package: $(STAMP_RUN)
	$(PIP) install $(PYINSTALLER)
	$(PY) packaging/build.py

# dist/parley-cuda/ + dist/parley-<version>-linux-x86_64-cuda.tar.gz + dist/parley-cuda_<version>_amd64.deb:
# the same app with PyPI's CUDA torch (torch==$(TORCH_VERSION) and its nvidia-* wheels), built from its own
# venv ($(CUDA_VENV); .venv keeps its CPU torch). The venv is (re)installed only when its inputs change
# (pip's cache serves what it has), the bundle only when it is older than what it bundles.
package-cuda:
	$(PYTHON) packaging/cuda_venv.py --venv $(CUDA_VENV) --torch $(TORCH_VERSION) --pyinstaller $(PYINSTALLER)
	$(CUDA_VENV)/bin/python packaging/build.py --variant cuda --if-stale

lint: $(STAMP_TEST)
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) build dist *.egg-info
