"""research/: the studies that made no shipped agent stay runnable (they must not rot), and
the package never imports them.

Every script runs in its smoke mode as ``python research/<script>.py`` would run it
(tests/conftest.py puts research/ on the path, where its scripts import each other); the
numbers are printed, never asserted. DAgger, expert iteration and the posterior belief have
tests of their own (test_dagger.py, test_expert_iteration.py, test_posterior.py).
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "research"
PACKAGE_SOURCES = ("spinner_env", "agents", "train", "configs")


@pytest.mark.parametrize(
    "script, smoke, printed",
    [
        ("where_points_go", "--smoke", "spinner tile played when a plain one fit"),
        ("clone_capacity", "--smoke", "held-out agreement"),
        ("bench_expert_iteration", "--smoke", "per CPU s"),
        ("policy_iteration_check", "--smoke", "mexican_train_r.safetensors: its valuation"),
        ("search_gain", "--smoke", "plays another move"),
        ("belief_choices", "--smoke", "posterior less uniform"),
        ("points_to_wins", "--smoke", "points fewer a hand"),
    ],
)
def test_each_study_runs_in_smoke_mode(script, smoke, printed, capsys):
    assert importlib.import_module(script).main([smoke]) in (None, 0)
    assert printed in capsys.readouterr().out


def test_every_research_script_is_smoke_tested_here_or_has_its_tests():
    tested = {
        "where_points_go",
        "clone_capacity",
        "bench_expert_iteration",
        "search_gain",
        "policy_iteration_check",
        "belief_choices",
        "points_to_wins",
    }
    with_tests = {"dagger", "expert_iteration", "posterior"}
    assert {path.stem for path in RESEARCH.glob("*.py")} == tested | with_tests
    assert all((ROOT / "tests" / f"test_{name}.py").is_file() for name in with_tests)


def test_the_package_imports_nothing_from_research():
    research = {path.stem for path in RESEARCH.glob("*.py")}
    offenders = []
    for folder in PACKAGE_SOURCES:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top, last = name.split(".")[0], name.rsplit(".", 1)[-1]
                    if top in research | {"research"} or last in research:
                        offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


@pytest.fixture
def search_gain():
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
    win_shares = importlib.import_module("points_to_wins").win_shares
    points = np.array([[[10, 12, 30], [10, 10, 0]]], dtype=float)  # totals 20, 22, 30
    assert win_shares(points, 0).tolist() == [[1, 0, 0]]
    assert win_shares(points, 1).tolist() == [[1, 0.5, 0]]  # seat 1 at 20 ties seat 0
    assert win_shares(points, 1.5).tolist() == [[1, 1, 0]]  # each seat alone moved, in turn
    assert win_shares(points, 5).tolist() == [[1, 1, 0.5]]  # seat 2 at 20 ties seat 0
