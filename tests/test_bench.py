"""Every benchmark runs in its short smoke mode (numbers are printed, never asserted).

``bench/instructions.py`` is left out: valgrind makes even its smoke run take minutes.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize(
    "script, printed",
    [
        ("bench_aec", "mexican_train_v0"),
        ("bench_speed", "batched B=64 (2p)"),
        ("bench_heuristic", "compiled / agent"),
        ("bench_ppo", "batched, n_envs=16"),
        ("bench_web", "8p vs heuristic"),
    ],
)
def test_each_benchmark_runs_in_smoke_mode(script, printed, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import each other as run from bench/
    importlib.import_module(script).main(["--smoke"])
    assert printed in capsys.readouterr().out
