# Two commands set everything up on a fresh machine with Python 3.11 and the Rust toolchain:
#   make run    create .venv, build the extension (release), run the main job
#   make test   the same set-up, then the Rust and Python tests and the documentation site
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ccscope-installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock
OUT ?= out/main
WHEELS := target/wheels

.PHONY: run test test-rust test-python docs validate bench lint format-check clean install ns2 chromium tshark wheel

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The development install and `make wheel` build the extension alike (release, linked by zig
# against glibc 2.17 for manylinux2014, the pip package ziglang), so that the wheel reuses the
# install's compiled crates; the install is editable (Python edits need no rebuild).
ZIG_BUILD := MATURIN_PEP517_ARGS="--zig --compatibility manylinux2014" PATH="$(abspath $(BIN)):$$PATH"

$(STAMP): $(BIN)/python pyproject.toml $(RUST_SOURCES)
	$(BIN)/pip install --quiet "maturin[zig]>=1.5,<2"
	$(ZIG_BUILD) $(BIN)/pip install --quiet --no-build-isolation --editable ".[test]"
	touch $@

# An abi3 wheel (CPython >= 3.11, manylinux2014 x86_64) and the sdist, in target/wheels:
# `pip install target/wheels/ccscope-*.whl` needs no Rust toolchain.
wheel: $(STAMP)
	rm -rf $(WHEELS)
	$(ZIG_BUILD) $(BIN)/pip wheel --quiet --no-build-isolation --no-deps --wheel-dir $(WHEELS) .
	$(BIN)/maturin sdist --out $(WHEELS)

run: $(STAMP)
	$(BIN)/ccscope run scenarios/dumbbell-mix.toml --out $(OUT)

test: $(STAMP) test-rust test-python docs

test-rust:
	cargo test -p ccscope-core --quiet

# tests/platform/test_wheel.py installs the wheel into a fresh virtual environment. The
# simulated tests run on every core (pytest-xdist; a file's tests stay in one worker, since a
# documentation page's blocks build on each other); the real-time ones (marker `realtime`: the
# udp engine keeps time only on cores nothing else loads) run after them, one at a time.
test-python: $(STAMP) chromium tshark wheel
	$(BIN)/python -m pytest -q -m "not slow and not realtime" -n auto --dist loadfile
	$(BIN)/python -m pytest -q -m "realtime and not slow"

# The documentation site (docs/, Sphinx with MyST Markdown) into out/docs, warnings as errors;
# -E rereads every page, since the CLI and schema pages are generated from the program.
# The pages' code blocks run in the Python tests (tests/test_docs.py); the example notebooks
# (docs/notebooks) run in this build, which fails on a cell's error.
docs: $(STAMP)
	$(BIN)/sphinx-build -E -W --keep-going -q -b html docs out/docs

# `ccscope report` is tested in headless Chromium (Debian package chromium); the test fails,
# never skips, without it.
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# Packet captures (`[trace] pcap`) are read back with tshark (Debian package tshark) in
# tests/test_pcap.py, which skips, naming it, without it.
tshark:
	@command -v tshark >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark)

# The long reproductions of the papers' results (pytest -m slow), then TCP and the rate-based
# controls and four reproductions beside ns-2.35; --store writes the validation table's
# ns-2.35 column (python/ccscope/ns2column.json, committed).
validate: $(STAMP) ns2
	$(BIN)/python -m pytest -q -m slow
	$(BIN)/python bench/ns2_compare_tcp.py
	$(BIN)/python bench/ns2_compare_rate.py
	$(BIN)/python bench/ns2_compare_yang.py --store
	$(BIN)/python bench/ns2_compare_figs.py yang-f --store
	$(BIN)/python bench/ns2_compare_figs.py yang-onoff --store
	$(BIN)/python bench/ns2_compare_figs.py yang-fig29 --seeds 10 --store
	$(BIN)/python bench/ns2_compare_figs.py jin-fig20 --seeds 12 --store
	$(BIN)/python bench/ns2_compare_figs.py cai-fig16 --store
	$(BIN)/python bench/ns2_compare_figs.py cai-fig16-start
	$(BIN)/python bench/ns2_compare_figs.py cai-fig10 --store
	$(BIN)/python bench/ns2_compare_figs.py jin-table5 --seeds 10 --store
	$(BIN)/python bench/ns2_compare_figs.py cai-fig17 --store
	$(BIN)/python bench/ns2_compare_figs.py cai-fig8-9 --seeds 10 --store
	$(BIN)/python bench/ns2_compare_figs.py cai-table1 --store
	$(BIN)/python bench/ns2_compare_figs.py cubic --seeds 10 --store
	$(BIN)/python bench/ns2_compare_figs.py vegas --seeds 10 --store

# Speed against ns-2 in the same command: out/bench.json, then the speed page's table from it
# (docs/speed.md).
bench: $(STAMP) ns2
	$(BIN)/python bench/speed.py
	$(BIN)/python bench/sweep_speed.py
	$(BIN)/python bench/queue_speed.py
	$(BIN)/python bench/python_controllers.py
	$(BIN)/python bench/report_speed.py
	$(BIN)/python bench/capacity_trace_speed.py
	$(BIN)/python bench/rmcat_speed.py
	$(BIN)/python bench/speed_page.py
	$(BIN)/python bench/anchors.py
	$(BIN)/python bench/tfrc_anchor.py
	$(BIN)/python bench/realnet_accuracy.py

# The reference simulator the papers used (Debian package ns2); bench and validate compare
# against it when it can be installed, and say so when it cannot.
ns2:
	@command -v ns >/dev/null || (apt-get update -qq && apt-get install -y -qq ns2) \
	  || echo "ns-2 could not be installed: anchor comparisons will run ccscope only"

lint: format-check
	$(BIN)/ruff check python tests bench docs
	cargo clippy --workspace --all-targets -- -D warnings

# Formatting as `cargo fmt` (rustfmt.toml) and `ruff format` (pyproject.toml) leave it; CI checks it.
format-check: $(STAMP)
	cargo fmt --all -- --check
	$(BIN)/ruff format --check python tests bench docs

clean:
	rm -rf $(VENV) target out
