"""Every benchmark runs in its short smoke mode (numbers are printed, never asserted).

``bench/instructions.py`` is left out: valgrind makes even its smoke run take minutes.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
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
        ("belief_choices", "--smoke", "posterior less uniform"),
        ("points_to_wins", "--smoke", "points fewer a hand"),
    ],
)
def test_each_benchmark_runs_in_smoke_mode(script, smoke, printed, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import each other as run from bench/
    assert importlib.import_module(script).main([smoke]) in (None, 0)  # fuzz: 0, no failure
    assert printed in capsys.readouterr().out


@pytest.fixture
def search_gain(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("search_gain")


def test_search_gain_roots_survive_saving_field_for_field(search_gain, tmp_path):
    collector = search_gain.RootCollector("spinner", 2, "greedy", 4, 3, oracle=True)
    roots = collector.collect(5)
    saved = tmp_path / "roots.npz"
    search_gain.save(str(saved), roots, {"game": "spinner"})
    loaded, settings = search_gain.load(str(saved))
    assert settings == {"game": "spinner"} and len(loaded) == len(roots) == 3
    for root, back in zip(roots, loaded, strict=True):
        assert back.own == root.own and back.moves == root.moves
        assert back.position == root.position and "hands" in json.loads(back.position)
        for table in ("determinized", "true", "informed"):
            assert np.array_equal(getattr(back, table), getattr(root, table))
        assert root.informed.shape == root.determinized.shape == (4, len(root.moves))
    # A file saved before --oracle existed has no informed determinizations.
    with np.load(saved) as data:
        older = {name: data[name] for name in data.files if name != "informed"}
    np.savez(tmp_path / "older.npz", **older)
    for root in search_gain.load(str(tmp_path / "older.npz"))[0]:
        assert root.informed.shape == (0, len(root.moves))
    np.savez(tmp_path / "other.npz", own=np.zeros(3))
    with pytest.raises(ValueError, match="not a file of saved roots"):
        search_gain.load(str(tmp_path / "other.npz"))


def test_search_gain_oracle_adds_a_table_and_changes_no_other(search_gain, tmp_path, capsys):
    saved = tmp_path / "roots.npz"
    assert search_gain.main(["--smoke", "--workers", "1"]) is None
    plain = capsys.readouterr().out
    assert search_gain.main(["--smoke", "--oracle", "--workers", "1", "--save", str(saved)]) is None
    informed = capsys.readouterr().out
    first_table = plain.splitlines()[1:]
    assert informed.splitlines()[1 : 1 + len(first_table)] == first_table
    assert "know the hidden hands" in informed and "know the hidden hands" not in plain
    assert search_gain.main(["--load", str(saved)]) is None
    assert capsys.readouterr().out.splitlines()[1:] == informed.splitlines()[1:]


def test_search_gain_refuses_an_existing_file_before_playing(
    search_gain, tmp_path, monkeypatch, capsys
):
    saved = tmp_path / "roots.npz"
    saved.write_bytes(b"earlier roots")

    def never(self, seed):
        raise AssertionError("collected roots it could not save")

    monkeypatch.setattr(search_gain.RootCollector, "collect", never)
    assert search_gain.main(["--smoke", "--workers", "1", "--save", str(saved)]) == 2
    assert "exists" in capsys.readouterr().err and saved.read_bytes() == b"earlier roots"


def test_search_gain_picks_by_the_budgets_asked_and_refuses_others(search_gain, capsys):
    assert search_gain.main(["--smoke", "--workers", "1", "--budgets", "3", "5"]) is None
    rows = [line.split("|")[0].strip() for line in capsys.readouterr().out.splitlines()[3:]]
    assert rows[:8] == ["3"] * 4 + ["5"] * 4 and "bound below" in rows[8]
    for outside in ("0", "9"):
        assert search_gain.main(["--smoke", "--workers", "1", "--budgets", outside]) == 2
        assert "from 1 to the 8 determinizations" in capsys.readouterr().err


def test_search_gain_bounds_pick_and_score_by_the_held_out_rows(search_gain, capsys):
    # Six determinizations: rows 0-2 are the budgets', 3-5 held out; the bound below
    # picks by row 3 and scores by row 4, the bound above picks and scores by rows 3-5.
    rows = np.array([[0, -90], [0, -90], [0, -90], [0, 10], [0, -4], [0, 1]], dtype=float)
    root = search_gain.Root(0, rows, np.zeros(2), np.zeros((0, 2)), "{}", ("a", "b"))
    search_gain.report([root], [None])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].endswith("(a bound below): -4.000 ± 0.000")
    assert lines[-1].endswith("(a bound above): +2.333 ± 0.000")


def test_points_to_wins_moves_one_seat_by_delta_a_hand(monkeypatch):
    """S7.2 / M6.3: the lowest total wins and equal lowest totals share the win."""
    monkeypatch.syspath_prepend(str(BENCH))
    win_shares = importlib.import_module("points_to_wins").win_shares
    points = np.array([[[10, 12, 30], [10, 10, 0]]], dtype=float)  # totals 20, 22, 30
    assert win_shares(points, 0).tolist() == [[1, 0, 0]]
    assert win_shares(points, 1).tolist() == [[1, 0.5, 0]]  # seat 1 at 20 ties seat 0
    assert win_shares(points, 1.5).tolist() == [[1, 1, 0]]  # each seat alone moved, in turn
    assert win_shares(points, 5).tolist() == [[1, 1, 0.5]]  # seat 2 at 20 ties seat 0
