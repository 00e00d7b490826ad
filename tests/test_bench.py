"""Every benchmark runs in its short smoke mode (numbers are printed, never asserted).

``bench/instructions.py`` is left out: valgrind makes even its smoke run take minutes.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize(
    "script, smoke, printed",
    [
        ("bench_aec", "--smoke", "mexican_train_v0"),
        ("bench_speed", "--smoke", "batched B=64 (2p)"),
        ("bench_heuristic", "--smoke", "compiled / agent"),
        ("bench_ppo", "--smoke", "batched, n_envs=16"),
        ("bench_web", "--smoke", "8p vs heuristic"),
        ("bench_batched_mexican_train", "--smoke", "batched B=1 (4p)"),
        ("fuzz", "--short", "other exceptions"),
        ("bench_search", "--smoke", "3. strength against heuristic"),
        ("bench_wrappers", "--smoke", "TorchRL PettingZooWrapper"),
        ("bench_expert", "--smoke", "expert / compiled expert"),
        ("bench_agent_policy", "--smoke", "every opponent seat expert"),
        ("bench_openspiel", "--smoke", "python_block_dominoes"),
        ("bench_records", "--smoke", "recorded / plain"),
        ("bench_executor", "--smoke", "ms per task"),
        ("bench_cores", "--smoke", "x 1 process"),
        ("checkpoint_curve", "--smoke", "model_128_steps.zip"),
    ],
)
def test_each_benchmark_runs_in_smoke_mode(script, smoke, printed, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import each other as run from bench/
    assert importlib.import_module(script).main([smoke]) in (None, 0)  # fuzz: 0, no failure
    assert printed in capsys.readouterr().out
