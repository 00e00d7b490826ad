"""The tournament evaluator: duplicate deals, statistics on cases with known answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from spinner_env.agents import GreedyAgent, HeuristicAgent, RandomAgent, make_agent
from spinner_env.train.evaluate import (
    Estimate,
    MatchRecord,
    bradley_terry,
    deal_pairwise,
    deal_summary,
    lineups_of,
    main,
    play_deal,
    table_order,
    tournament,
    wilson_interval,
)
from spinner_env.train.executor import Executor

from spinner_env.games import GAMES


def test_wilson_interval_is_honest_at_small_counts_and_at_the_edges():
    """Wilson's published values: 20 of 20 is [83.9%, 100%], 2 of 3 is [20.8%, 93.9%], 0 of
    10 is [0, 27.8%]; and it nears the normal interval on many trials."""
    assert wilson_interval(1.0, 20) == pytest.approx((0.8389, 1.0), abs=1e-4)
    assert wilson_interval(2 / 3, 3) == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert wilson_interval(0.0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    half = 1.96 * math.sqrt(0.25 / 100_000)
    assert wilson_interval(0.5, 100_000) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-6)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_a_rate_over_deals_that_all_agree_is_not_certain():
    """Every one of 10 deals (2 matches each) won: 100% over 20 matches, not [100, 100]."""
    e = Estimate.rate([1.0] * 10, 2)
    assert (e.mean, e.high) == (1.0, 1.0) and e.low == pytest.approx(0.8389, abs=1e-4)
    # Deals whose rates spread more than a binomial's count for fewer matches: wider.
    spread = Estimate.rate([0.0, 1.0] * 5, 2)
    assert spread.low < wilson_interval(0.5, 20)[0] and spread.high > wilson_interval(0.5, 20)[1]
    assert spread.low == pytest.approx(wilson_interval(0.5, 10 * 0.25 / (10 / 36))[0])


def test_every_rate_of_a_small_tournament_has_an_interval_of_some_width():
    report = tournament(["heuristic", "random"], 2, matches=6, seed=1, progress=False)
    rates = [s[key] for s in report.agents.values() for key in ("match_win", "hand_win")]
    for rate in [*rates, *report.pairwise.values()]:
        assert rate.low < rate.mean or rate.mean == 0.0
        assert rate.high > rate.mean or rate.mean == 1.0
        assert rate.low >= 0.0 and rate.high <= 1.0


def test_estimate_is_the_mean_with_a_normal_95_percent_interval():
    e = Estimate.of([0.0, 1.0, 1.0, 0.0])
    half = 1.96 * math.sqrt(1 / 3) / 2
    assert (e.mean, e.low, e.high) == pytest.approx((0.5, 0.5 - half, 0.5 + half))
    assert Estimate.of([0.25]) == Estimate(0.25, 0.25, 0.25)
    assert Estimate.of([1.0, 1.0, 0.0], bounds=(0.0, 1.0)).high == 1.0


def test_a_shared_match_win_counts_one_over_k_and_ties_count_half_pairwise():
    """S7.2: equal lowest totals share the win."""
    rec = MatchRecord(("a", "b", "c"), (10, 10, 30), (0, 1), ((4, 6, 10), (6, 4, 20)))
    s = deal_summary([rec])
    assert s["a"]["match_win"] == s["b"]["match_win"] == 0.5
    assert s["c"]["match_win"] == 0.0
    assert s["a"]["hand_win"] == 0.5 and s["c"]["hand_win"] == 0.0
    assert s["c"]["points"] == 15.0
    pw = deal_pairwise([rec])
    assert pw[("a", "b")] == 0.5 and pw[("a", "c")] == 1.0 and pw[("c", "b")] == 0.0


def test_duplicate_deals_cancel_luck_exactly_between_identical_players():
    """Two copies of a deterministic agent hold each seat's cards once per deal: every
    deal is a 1-1 split, so the win rate is exactly one half; deals that all agree claim no
    more certainty than the 8 matches played (Wilson's interval at 8)."""
    twin = GreedyAgent()
    twin.name = "greedy_twin"
    report = tournament([GreedyAgent(), twin], 2, matches=8, seed=3, progress=False)
    for name in ("greedy", "greedy_twin"):
        win = report.agents[name]["match_win"]
        assert (win.mean, win.low, win.high) == pytest.approx((0.5, *wilson_interval(0.5, 8)))
    pts = report.agents["greedy"]["points"]
    assert pts.mean == report.agents["greedy_twin"]["points"].mean
    assert report.matches == 8 and report.deals == 4


def test_three_or_more_seats_sit_in_both_orders_around_the_table_over_two_deals():
    """Rotations keep the order around the table; the odd deal reverses it, so over two
    deals every agent sits just before each other agent as often as just after it."""
    assert table_order(2, 1) == [0, 1]
    assert table_order(4, 0) == [0, 1, 2, 3] and table_order(4, 1) == [0, 3, 2, 1]
    lineup = [RandomAgent(), GreedyAgent(), HeuristicAgent(), RandomAgent()]
    lineup[3].name = "random_2"
    before: dict[tuple[str, str], int] = {}
    for deal in (0, 1):
        records = play_deal(GAMES["spinner"], lineup, 5, deal, {"num_hands": 1})
        assert len(records) == 4
        for record in records:
            names = record.seat_names
            for seat, name in enumerate(names):
                pair = (name, names[(seat + 1) % 4])
                before[pair] = before.get(pair, 0) + 1
    assert len(before) == 8  # the four neighbouring pairs, each in both orders
    assert all(count == before[(b, a)] for (a, b), count in before.items())


def test_pooled_seats_share_the_table_and_shares_sum_to_one():
    """Four seats, one agent seated three times: its rate is per seat; all shares sum to 1."""
    report = tournament(
        [RandomAgent(), HeuristicAgent(), HeuristicAgent(), HeuristicAgent()],
        4,
        matches=4,
        seed=1,
        rules={"num_hands": 1},
        progress=False,
    )
    r = report.agents["random"]["match_win"].mean
    h = report.agents["heuristic"]["match_win"].mean
    assert r + 3 * h == pytest.approx(1.0)
    assert set(report.pairwise) == {("random", "heuristic"), ("heuristic", "random")}


def test_seeds_reproduce_a_tournament():
    def run(seed):
        agents = [RandomAgent(), GreedyAgent()]
        return tournament(agents, 2, 6, seed, rules={"num_hands": 2}, progress=False).as_dict()

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_lineups_round_robin_when_more_agents_than_seats():
    assert lineups_of(2, 2) == [(0, 1)]
    assert lineups_of(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert lineups_of(3, 2, first_only=True) == [(0, 1), (0, 2)]
    with pytest.raises(ValueError, match="more than once"):
        lineups_of(2, 3)


def test_command_line_prints_a_table_and_writes_json_and_png(tmp_path, capsys):
    out = tmp_path / "eval"
    main(
        [
            "--agents",
            "random",
            "greedy",
            "--matches",
            "4",
            "--rule",
            "num_hands=1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    printed = capsys.readouterr().out
    assert "match win rate" in printed and "pairwise" in printed
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["matches"] == 4 and set(data["agents"]) == {"random", "greedy"}
    assert out.with_suffix(".png").stat().st_size > 0


def test_games_other_than_spinner_play_by_name():
    """Mexican Train through the same evaluator, with the game-agnostic baselines."""
    report = tournament(
        [RandomAgent(), GreedyAgent()],
        2,
        2,
        game="mexican_train",
        rules={"num_rounds": 1},
        progress=False,
    )
    assert report.game == "mexican_train" and report.matches == 2


def test_bradley_terry_recovers_known_ratings():
    """Two agents: the rating gap is 400 log10 of the odds (one virtual draw added);
    three agents whose results follow the model exactly: their ratings come back."""
    wins = np.array([[0.0, 75.0], [25.0, 0.0]])
    games = np.full((2, 2), 100.0) - np.diag([100.0, 100.0])
    r = bradley_terry(wins, games)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(75.5 / 25.5))
    assert r.sum() == pytest.approx(0.0)
    truth = np.array([-200.0, 0.0, 200.0])
    p = 1 / (1 + 10 ** ((truth[None, :] - truth[:, None]) / 400))
    games = np.full((3, 3), 1e7) * (1 - np.eye(3))
    np.testing.assert_allclose(bradley_terry(p * games, games), truth, atol=0.01)


def test_ratings_need_every_agent_linked_by_games():
    games = np.zeros((3, 3))
    games[0, 1] = games[1, 0] = 4
    with pytest.raises(ValueError, match="do not link every agent"):
        bradley_terry(games / 2, games)


def test_a_league_rates_the_agents_with_the_anchor_at_zero(tmp_path):
    report = main(
        [
            "--agents", "random", "greedy", "heuristic",
            "--matches", "6", "--rule", "num_hands=2", "--league",
            "--out", str(tmp_path / "league"), "--no-progress",
        ]
    )  # fmt: skip
    assert report.anchor == "random" and report.ratings["random"] == Estimate(0.0, 0.0, 0.0)
    assert report.ratings["heuristic"].mean > 0
    for e in report.ratings.values():
        assert e.low <= e.mean <= e.high
    data = json.loads((tmp_path / "league.json").read_text())
    board = data["ratings"]["leaderboard"]
    assert [row["agent"] for row in board] == [n for n, _ in report.leaderboard_order()]
    assert "leaderboard: Elo (Bradley-Terry), random = 0" in report.table()
    assert (tmp_path / "league.png").stat().st_size > 0


def test_workers_give_the_results_of_a_serial_run():
    """Deals spread over processes (each building its agents from the specs) reproduce
    the serial run exactly, ratings and their bootstrap included."""

    def run(workers: int) -> dict:
        return tournament(
            ["random", "greedy", "heuristic"],
            2,
            4,
            seed=5,
            rules={"num_hands": 2},
            progress=False,
            executor=Executor(workers),
            league=True,
        ).as_dict()

    assert run(2) == run(1)


def test_workers_need_specs_and_bad_arguments_raise():
    with pytest.raises(ValueError, match="give the agents as specs"):
        tournament([RandomAgent(), GreedyAgent()], 2, 2, executor=Executor(2), progress=False)
    with pytest.raises(ValueError, match="matches must be at least 1"):
        tournament(["random", "greedy"], 2, 0, progress=False)
    with pytest.raises(ValueError, match="anchor 'greedy2' is not one of the agents"):
        tournament(["random", "greedy"], 2, 2, league=True, anchor="greedy2", progress=False)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--matches", "0"], "matches must be at least 1 (per lineup), got 0"),
        (["--players", "9"], "num_players"),
        (["--agents", "random", "grandmaster"], "unknown agent 'grandmaster'"),
        (["--rule", "num_hands"], "--rule 'num_hands': expected KEY=VALUE"),
        (["--rule", "hands=3"], "unknown argument(s) hands"),
        (["--workers", "0"], "workers must be at least 1"),
        (["--matches", "many"], "argument --matches: invalid int value: 'many'"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(args, message, capsys):
    base = ["--agents", "random", "greedy", "--no-progress"]
    with pytest.raises(SystemExit) as exit_:
        main(base + args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-evaluate: error: ") and message in err
    assert err.count("\n") == 1


def test_out_is_checked_before_the_tournament(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")

    def no_tournament(*args, **kwargs):
        raise AssertionError("the tournament ran before --out was checked")

    monkeypatch.setattr("spinner_env.train.evaluate.tournament", no_tournament)
    with pytest.raises(SystemExit):
        main(["--agents", "random", "greedy", "--out", str(blocker / "eval")])
    assert "error:" in capsys.readouterr().err
    (tmp_path / "eval.json").mkdir()
    with pytest.raises(SystemExit):
        main(["--agents", "random", "greedy", "--out", str(tmp_path / "eval")])
    assert "is a directory" in capsys.readouterr().err


def test_out_is_a_file_prefix_and_records_dir_a_folder(tmp_path, capsys):
    """``--out PREFIX`` writes PREFIX.json and PREFIX.png; ``--records-dir DIR`` (formerly
    ``--record``, still taken) fills the folder DIR; ``--rule`` values are read as JSON."""
    base = ["--agents", "heuristic", "random", "--matches", "2", "--no-progress"]
    main([*base, "--out", str(tmp_path / "eval"), "--records-dir", str(tmp_path / "records"),
          "--rule", "num_hands=1", "--rule", "reward=match"])  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.json", "eval.png", "records"]
    assert len(list((tmp_path / "records").glob("*.json"))) == 2
    main([*base, "--record", str(tmp_path / "old"), "--rule", "num_hands=1"])
    assert len(list((tmp_path / "old").glob("*.json"))) == 2
    with pytest.raises(SystemExit):
        main([*base, "--rule", "num_hands=one"])
    assert "num_hands" in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec, hint",
    [
        ("heuristc", "heuristic"),
        ("heuristc:jitter=0.2", "heuristic"),
        ("spinner2p", "spinner_2p"),
        ("pimcc:determinizations=2", "pimc"),
    ],
)
def test_a_mistyped_agent_is_answered_with_the_closest(spec, hint, capsys):
    with pytest.raises(ValueError, match=rf"unknown agent '{spec}' \(did you mean '{hint}'\?\)"):
        make_agent(spec)
    with pytest.raises(SystemExit) as exit_:
        main(["--agents", spec, "random", "--no-progress"])
    (line,) = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and f"(did you mean '{hint}'?)" in line
