"""Every benchmark runs in its short smoke mode (numbers are printed, never asserted).

``bench/instructions.py`` is left out: valgrind makes even its smoke run take minutes.
"""

from __future__ import annotations

import importlib
import json
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
        ("where_points_go", "--smoke", "spinner tile played when a plain one fit"),
        ("bench_expert", "--smoke", "expert / compiled expert"),
        ("clone_capacity", "--smoke", "held-out agreement"),
        ("bench_agent_policy", "--smoke", "every opponent seat expert"),
        ("bench_openspiel", "--smoke", "python_block_dominoes"),
        ("bench_records", "--smoke", "recorded / plain"),
        ("bench_executor", "--smoke", "ms per task"),
        ("bench_cores", "--smoke", "x 1 process"),
        ("bench_expert_iteration", "--smoke", "per CPU s"),
        ("checkpoint_curve", "--smoke", "model_128_steps.zip"),
        ("policy_iteration_check", "--smoke", "mexican_train_r.safetensors: its valuation"),
        ("search_gain", "--smoke", "plays another move"),
    ],
)
def test_each_benchmark_runs_in_smoke_mode(script, smoke, printed, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import each other as run from bench/
    assert importlib.import_module(script).main([smoke]) in (None, 0)  # fuzz: 0, no failure
    assert printed in capsys.readouterr().out


def test_search_gain_saves_roots_that_report_the_same_and_are_never_overwritten(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.syspath_prepend(str(BENCH))
    search_gain = importlib.import_module("search_gain")
    saved = tmp_path / "roots.npz"
    assert search_gain.main(["--smoke", "--oracle", "--workers", "1", "--save", str(saved)]) is None
    played = capsys.readouterr().out
    assert "know the hidden hands" in played
    assert search_gain.main(["--load", str(saved)]) is None
    assert capsys.readouterr().out == played
    roots, settings = search_gain.load(str(saved))
    assert settings["game"] == "spinner" and len(roots) == 6
    for root in roots:
        assert root.determinized.shape == root.informed.shape == (8, len(root.moves))
        assert 0 <= root.own < len(root.moves)
        assert "hands" in json.loads(root.position)
    before = saved.read_bytes()
    assert search_gain.main(["--smoke", "--workers", "1", "--save", str(saved)]) == 2
    assert "exists" in capsys.readouterr().err and saved.read_bytes() == before
