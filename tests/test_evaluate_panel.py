"""The robustness panel (``spinner-evaluate --styles``): one agent against each style."""

from __future__ import annotations

import json

import pytest
from spinner_env.agents import GreedyAgent, make_agent
from spinner_env.train.evaluate import (
    STYLE_PANELS,
    main,
    robustness_panel,
    tournament,
    wilson_interval,
)
from spinner_env.train.executor import Executor

ONE_HAND = {"num_hands": 1}


def test_each_cell_is_the_agent_against_the_style_in_every_other_seat():
    """A cell is the tournament of the agent and N-1 seats of the style, on the same deals."""
    report = robustness_panel(
        "heuristic", ["greedy", "random"], 4, matches=8, seed=2, rules=ONE_HAND, progress=False
    )
    for style in ("greedy", "random"):
        alone = tournament(
            ["heuristic", style, style, style], 4, 8, 2, rules=ONE_HAND, progress=False
        )
        assert report.cells[style] == alone.agents["heuristic"]
    assert report.matches == 8 and report.deals == 2 and report.fair_share == 0.25


def test_the_worst_cell_skips_the_agent_itself_whose_cell_is_the_fair_share():
    """A deterministic agent against itself splits every deal evenly: exactly 1/N (with
    Wilson's interval at the matches played: agreeing deals claim no certainty)."""
    report = robustness_panel(
        "greedy",
        ["greedy", "heuristic"],
        2,
        matches=6,
        rules=ONE_HAND,
        progress=False,
    )
    itself = report.cells["greedy"]["match_win"]
    assert (itself.mean, itself.low, itself.high) == (0.5, *wilson_interval(0.5, 6))
    assert report.worst() == ("heuristic", report.cells["heuristic"]["match_win"])
    data = report.as_dict()
    assert data["worst"]["style"] == "heuristic"
    assert [c["itself"] for c in data["cells"]] == [True, False]
    assert "worst cell: heuristic" in report.table().splitlines()[1]


def test_styles_given_as_agents_are_copied_for_their_seats():
    twin = GreedyAgent()
    twin.name = "greedy_twin"
    report = robustness_panel("greedy", [twin], 3, matches=3, rules=ONE_HAND, progress=False)
    win = report.cells["greedy_twin"]["match_win"]
    assert (win.mean, win.low, win.high) == pytest.approx((1 / 3, *wilson_interval(1 / 3, 3)))


def test_workers_give_the_panel_of_a_serial_run():
    def run(workers: int) -> dict:
        return robustness_panel(
            "greedy",
            ["heuristic:jitter=0.5,seed=1", "pimc:determinizations=2"],
            2,
            matches=4,
            seed=3,
            rules=ONE_HAND,
            progress=False,
            executor=Executor(workers),
        ).as_dict()

    assert run(2) == run(1)


@pytest.mark.parametrize("game", sorted(STYLE_PANELS))
def test_every_game_has_a_default_panel_of_distinct_buildable_styles(game):
    panel = STYLE_PANELS[game]
    names = [make_agent(spec).name for spec in panel]
    assert len(set(names)) == len(names) == len(panel)
    assert {"random", "greedy", "heuristic", "expert"} <= set(names)
    assert any(":jitter=" in n for n in names) and any(n.startswith("ismcts:") for n in names)
    assert all("time=" not in spec for spec in panel)  # iteration budgets: reproducible


def test_command_line_prints_the_panel_and_writes_json_and_png(tmp_path, capsys):
    out = tmp_path / "panel"
    report = main(
        [
            *("--agents", "heuristic", "--styles", "greedy", "random", "--game", "mexican_train"),
            *("--players", "4", "--matches", "4", "--rule", "num_rounds=1", "--no-progress"),
            *("--out", str(out)),
        ]
    )
    printed = capsys.readouterr().out
    assert printed.startswith("robustness panel: heuristic against 2 styles, mexican_train")
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["kind"] == "robustness panel" and data["num_players"] == 4
    assert data["worst"]["style"] == report.worst()[0]
    assert data["command"].startswith("spinner-evaluate --agents heuristic --styles")
    assert out.with_suffix(".png").stat().st_size > 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agents", "heuristic", "greedy", "--styles"], "give --agents one, not 2"),
        (["--agents", "heuristic", "--styles", "--league"], "drop --league"),
        (["--agents", "heuristic", "--styles", "--record", "x"], "drop --record"),
        (
            ["--agents", "heuristic", "--styles", "greedy", "greedy"],
            "'greedy' is in the panel twice",
        ),
        (["--agents", "heuristic", "--styles", "heuristic"], "no style but 'heuristic' itself"),
        (["--agents", "heuristic", "--styles", "expert:jitter=-1"], "finite number >= 0"),
        (["--agents", "heuristic", "--styles", "--matches", "0"], "at least 1 (per cell)"),
    ],
)
def test_bad_panels_are_one_line_and_status_2(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--no-progress"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-evaluate: error: ") and message in err
    assert err.count("\n") == 1
