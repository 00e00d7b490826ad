"""The executor of match-shaped work (spinner_env.train.executor) on its local backends:
results in the order of the items whatever order the tasks finish in, the same evaluation
from a serial run and from processes, a failing task's error, and Ray never imported
unless asked for. Ray itself runs only in the sandbox: tests/test_ray_cluster.py."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from spinner_env.train.evaluate import DealPlayerStart, tournament
from spinner_env.train.evaluate import main as evaluate_main
from spinner_env.train.executor import RAY_MISSING, SERIAL, Executor


@dataclass(frozen=True)
class SquaresStart:
    """A start whose items square, the later ones sooner (so tasks finish in reverse
    order), failing at item ``bad``."""

    bad: int | None = None

    def __call__(self) -> Callable[[int], int]:
        return self.play

    def play(self, item: int) -> int:
        if item == self.bad:
            raise ValueError(f"item {item} is bad")
        time.sleep(0.02 * (10 - item))
        return item * item


def test_batches_cover_the_items_in_order():
    items = list(range(100))
    batches = Executor(2).batches(items, 2)
    assert [i for batch in batches for i in batch] == items
    assert len(batches[0]) == 7  # ceil(100 / (2 workers * 8 tasks each))
    assert [len(b) for b in Executor(2, items_per_task=30).batches(items, 2)] == [30, 30, 30, 10]


def test_processes_return_results_in_item_order():
    items = list(range(10))
    expected = [i * i for i in items]
    for per_task in (1, 3):
        executor = Executor(2, items_per_task=per_task)
        assert list(executor.map(SquaresStart(), items, progress=False)) == expected
    assert list(SERIAL.map(SquaresStart(), items, progress=False)) == expected


def test_a_failing_task_stops_the_run_with_its_error():
    started = time.monotonic()
    with pytest.raises(ValueError, match="item 3 is bad"):
        list(
            Executor(2, items_per_task=1).map(SquaresStart(bad=3), list(range(10)), progress=False)
        )
    assert time.monotonic() - started < 60


def test_the_bar_counts_finished_items(capsys):
    list(Executor(2, items_per_task=4).map(SquaresStart(), list(range(10)), unit="deal"))
    bar = capsys.readouterr().err
    assert "10/10" in bar and "deal" in bar


def test_processes_give_the_evaluation_json_of_a_serial_run(tmp_path):
    """Rotations, lineups (a round robin of three), ratings and their bootstrap: all equal."""
    base = [
        "--agents", "random", "greedy", "heuristic", "--matches", "6",
        "--rule", "num_hands=2", "--seed", "3", "--league", "--no-progress",
    ]  # fmt: skip
    outputs = {}
    for name, extra in (("serial", ["--workers", "1"]), ("processes", ["--workers", "2"])):
        evaluate_main([*base, *extra, "--out", str(tmp_path / name)])
        data = json.loads((tmp_path / f"{name}.json").read_text())
        assert data.pop("command").endswith(" ".join([*extra, "--out", str(tmp_path / name)]))
        outputs[name] = data
    assert outputs["processes"] == outputs["serial"]


def test_batch_sizes_do_not_change_a_tournament():
    start = DealPlayerStart(("heuristic", "greedy"), "spinner", 1, {"num_hands": 1})
    tasks = [((0, 1), deal) for deal in range(6)]
    serial = list(SERIAL.map(start, tasks, progress=False))
    assert list(Executor(2, items_per_task=4).map(start, tasks, progress=False)) == serial
    one = tournament(["heuristic", "greedy"], 2, 12, seed=1, progress=False).as_dict()
    two = tournament(
        ["heuristic", "greedy"],
        2,
        12,
        seed=1,
        progress=False,
        executor=Executor(2, items_per_task=1),
    ).as_dict()
    assert one == two


_NO_RAY = textwrap.dedent(
    """
    import sys
    import spinner_env
    import spinner_env.train.evaluate, spinner_env.train.exploit, spinner_env.train.league
    from spinner_env.train.evaluate import main
    main(["--agents", "random", "greedy", "--matches", "4", "--workers", "2", "--no-progress"])
    print(sorted(name for name in sys.modules if name == "ray" or name.startswith("ray.")))
    """
)


def test_nothing_imports_ray_without_ray():
    run = subprocess.run(
        [sys.executable, "-c", _NO_RAY], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("command", ["evaluate", "exploit"])
def test_ray_without_ray_installed_is_one_line_naming_the_extra(command, monkeypatch, capsys):
    # Imported here: spawned workers import this module, and exploit's imports are heavy.
    from spinner_env.train.exploit import main as exploit_main

    monkeypatch.setitem(sys.modules, "ray", None)  # importlib finds no Ray
    with pytest.raises(SystemExit) as exit_:
        if command == "evaluate":
            evaluate_main(["--ray", "--agents", "random"])
        else:
            exploit_main(["--ray", "--target", "random"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and RAY_MISSING in err and 'pip install -e ".[cluster]"' in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--workers", "0"], "workers must be at least 1, got 0"),
        (["--ray-address", "127.0.0.1:6379"], "a Ray address without --ray"),
        (["--workers", "2", "--agents", "random", "grandmaster"], "unknown agent 'grandmaster'"),
    ],
)
def test_bad_executor_arguments_are_one_line_and_status_2(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        evaluate_main(["--agents", "random", "greedy", "--no-progress", *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-evaluate: error: ") and message in err
