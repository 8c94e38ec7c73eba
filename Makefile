# The verbs of the project. `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
TORCH_SPEC ?= torch==2.13.0
# Extra pip arguments for the torch install only, e.g. the CPU wheel index (see README).
TORCH_PIP_ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rlpyt-installed
RAY_STAMP := $(VENV)/.rlpyt-ray-installed
MUJOCO_STAMP := $(VENV)/.rlpyt-mujoco-installed
ENVPOOL_STAMP := $(VENV)/.rlpyt-envpool-installed
DOCS_STAMP := $(VENV)/.rlpyt-docs-installed

.PHONY: setup demo test test-fast docs docs-build lint format type check bench clean gpu-wheels gpu-check

setup: $(STAMP)

# torch goes first and pinned: an unpinned torch pulls a CUDA build of several GB.
$(STAMP): setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(TORCH_PIP_ARGS) "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -e ".[test,dev,plot,slurm]"
	touch $(STAMP)

demo: setup
	$(BIN)/python experiments/scripts/classic/pg/launch/launch_cartpole_ppo_demo.py

# The tests also exercise the Ray Tune sweep, so they install the `ray` extra (large: kept out of
# `setup`, which the demo uses).
$(RAY_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[ray]"
	touch $(RAY_STAMP)

# The tests run MuJoCo envs (HalfCheetah, Hopper) and the MuJoCo configs and scripts, so they
# install the `mujoco` extra (about 100 MB; kept out of `setup`, which the demo uses).
$(MUJOCO_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[mujoco]"
	touch $(MUJOCO_STAMP)

# The tests run the envpool backend where envpool has a wheel (Linux x86_64; about 300 MB to
# download): elsewhere the install is skipped with a message, and so are those tests.
$(ENVPOOL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[envpool]" || echo "envpool is not available here: its tests will be skipped"
	touch $(ENVPOOL_STAMP)

# The documentation site (mkdocs.yml, docs/): MkDocs, Material and mkdocstrings, about 115 MB.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

# Serves the site at http://127.0.0.1:8000, rebuilt on every change.
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# The strict build, into a temporary folder: a broken link or anchor, a page missing from the
# nav, or an API entry or docstring the reference cannot resolve fails it.
docs-build: $(DOCS_STAMP)
	@site=$$(mktemp -d) && NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict \
		--site-dir "$$site"; status=$$?; rm -rf "$$site"; exit $$status

# The suite runs in TEST_WORKERS pytest-xdist processes (0 runs it in this one). The test files
# that start several worker processes form one group that runs in a single worker
# (tests/conftest.py), so they never run beside each other.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

# `make test` ends with the 30 slowest tests, so every CI log says where the time goes.
test: setup $(RAY_STAMP) $(MUJOCO_STAMP) $(ENVPOOL_STAMP) docs-build
	$(PYTEST) tests --durations=30

# The edit-test loop: the unit tests only (one module or class each, no training runs; about
# two minutes here). The integration and learning tests run in `make test`.
test-fast: setup $(MUJOCO_STAMP)
	$(PYTEST) tests/unit -m "not learning"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

type: setup
	$(BIN)/mypy

check: lint type test

bench: setup
	$(BIN)/python benchmarks/env_speed.py

clean:
	rm -rf build *.egg-info .pytest_cache .ruff_cache .mypy_cache

# The GPU check (docs/gpu.md) runs on a GPU machine that has torch but no network: gpu-wheels
# downloads, here, the wheels it lacks for its Python (GPU_PYTHON, CPython 3.12 by default)
# into .whl/; gpu-check runs the check with them (on the GPU machine, `python3
# benchmarks/gpu_check.py` from the checkout does the same without make or a venv).
GPU_PYTHON ?= 3.12
GPU_WHEELS ?= gymnasium==1.4.0 farama-notifications==0.0.6 ale-py==0.12.1 mujoco==4.0.0 \
	mujoco-core==4.0.0 mujoco-studio==4.0.0 websockets glfw pyopengl stable-baselines3==2.9.2
GPU_PLATFORMS := $(foreach n,manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux1,--platform $(n)_x86_64)

gpu-wheels: setup
	$(BIN)/python -m pip download --quiet --no-deps --only-binary=:all: --implementation cp \
		--python-version $(GPU_PYTHON) $(GPU_PLATFORMS) -d .whl $(GPU_WHEELS)

gpu-check:
	python3 benchmarks/gpu_check.py --wheels .whl
