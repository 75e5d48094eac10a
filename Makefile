# Two commands set everything up on a fresh machine with Python 3.11 and the Rust toolchain:
#   make run    create .venv, build the extension (release), run the main job
#   make test   the same set-up, then the Rust and Python tests
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ccscope-installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock
OUT ?= out/main

.PHONY: run test test-rust test-python validate bench lint clean install

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml $(RUST_SOURCES)
	$(BIN)/pip install --quiet "maturin>=1.5,<2"
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras test --quiet
	touch $@

run: $(STAMP)
	$(BIN)/ccscope run scenarios/dumbbell-cbr.toml --out $(OUT)

test: $(STAMP) test-rust test-python

test-rust:
	cargo test -p ccscope-core --quiet

test-python: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

validate: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)
	cargo run --release -p ccscope-core --example bench_engine --quiet

lint: $(STAMP)
	$(BIN)/ruff check python tests
	cargo clippy --workspace --all-targets -- -D warnings

clean:
	rm -rf $(VENV) target out
