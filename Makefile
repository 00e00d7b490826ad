# The README's commands. `make test` is what CI runs (.ci/run).
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: install test lint demo bench bench-smoke fuzz train clean play web docs
.PHONY: rllib-venv

# torch's CPU build comes first: on a plain package index, `pip install torch` pulls the
# multi-GB CUDA build. PyTorch's own CPU wheel index serves the CPU build:
#     make install TORCH_INDEX=https://download.pytorch.org/whl/cpu
# Empty by default: the configured index is used (this machine's pip finds a local CPU
# wheel of torch==2.13.0 there). The package's own install then finds torch present.
TORCH_INDEX ?=
TORCH := torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))

# setuptools warns, on every editable install of a layout like this one (agents/ and
# train/ installed as spinner_env.agents and spinner_env.train), that a folder named like
# the package may be imported in its place: here ./spinner_env is that package itself.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:::setuptools.command.editable_wheel"

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(TORCH)
	$(QUIET_EDITABLE) $(PIP) install -q -e ".[train,dev,web,docs,examples,openspiel,cluster]"
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: lint
	$(PY) -m pytest -n 2 tests

# A random 4-player match: a legend of the terms, the first hand in full, then a line a
# hand (python -m spinner_env.games.spinner.demo --full shows every hand).
demo: $(STAMP)
	$(PY) -m spinner_env.games.spinner.demo --players 4

# The documentation site, built into site/ as CI builds it (tests/test_docs.py). While
# writing, `.venv/bin/mkdocs serve` serves it on http://127.0.0.1:8000 and rebuilds on save.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

# Play a 4-player Spinner match against the committed checkpoint and two baselines.
play: $(STAMP)
	$(PY) -m spinner_env.play --game spinner --players 4 --seat 0 \
		--opponents checkpoint heuristic random

# Serve the web game on http://127.0.0.1:8000. WEB_ARGS passes options through, e.g.
# make web WEB_ARGS="--records-dir runs/records --port 8080" (all: spinner-web --help).
WEB_ARGS ?=
web: $(STAMP)
	$(PY) -m spinner_env.web $(WEB_ARGS)

bench: $(STAMP)
	$(QUIET_EDITABLE) $(PIP) install -q -e ".[bench]"
	$(PY) bench/bench_aec.py
	$(PY) bench/bench_speed.py

# Each benchmark for a few seconds (tests/test_bench.py runs the same in CI);
# bench/instructions.py --smoke needs valgrind and minutes, so it is not among them.
bench-smoke: $(STAMP)
	$(PY) bench/bench_aec.py --smoke
	$(PY) bench/bench_speed.py --smoke
	$(PY) bench/bench_heuristic.py --smoke
	$(PY) bench/bench_ppo.py --smoke
	$(PY) bench/bench_web.py --smoke
	$(PY) bench/bench_batched_mexican_train.py --smoke
	$(PY) bench/fuzz.py --short
	$(PY) bench/bench_search.py --smoke
	$(PY) bench/bench_wrappers.py --smoke
	$(PY) bench/bench_agent_policy.py --smoke
	$(PY) bench/bench_openspiel.py --smoke
	$(PY) bench/bench_records.py --smoke
	$(PY) bench/bench_executor.py --smoke
	$(PY) bench/bench_cores.py --smoke
	$(PY) bench/checkpoint_curve.py --smoke

# The README's fuzz figure (over 3 million inputs, about 18 minutes here).
fuzz: $(STAMP)
	$(PY) bench/fuzz.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
	rm -rf $(RLLIB_VENV)
	rm -rf site build dist *.egg-info

# RLlib pins its own gymnasium, so examples/rllib_ppo.py runs in a virtualenv of its own
# (tests/test_examples.py runs it with this venv's python). The train extra lets it write
# policy files (spinner_env.agents.rllib), which the main venv's commands then play.
RLLIB_VENV ?= .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

$(RLLIB_STAMP): pyproject.toml
	python3 -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install -q $(TORCH)
	# pygame-ce: PettingZoo's connect_four_v3, bench/bench_wrappers.py's peer.
	$(QUIET_EDITABLE) $(RLLIB_VENV)/bin/python -m pip install -q "ray[rllib]==2.60.0" \
		"pygame-ce>=2.3.0" -e ".[train]"
	touch $(RLLIB_STAMP)

rllib-venv: $(RLLIB_STAMP)

# Train the quick 2-player agent (configs/quick.yaml), then rank it against the baselines.
train: $(STAMP)
	$(VENV)/bin/spinner-train --config configs/quick.yaml
	$(VENV)/bin/spinner-evaluate --agents runs/quick/quick.safetensors random greedy heuristic \
		--players 2 --matches 200 --out runs/quick/eval
