"""League training's bookkeeping: PFSP weights, members joining and leaving, the opponent
sampler, exploiter resets, and a seed that replays a whole (tiny) league run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import yaml
from hypothesis import given
from hypothesis import strategies as st
from safetensors.torch import load_file
from spinner_env.agents import HeuristicAgent, RandomAgent, make_agent
from spinner_env.train.config import LeagueConfig, TrainConfig
from spinner_env.train.executor import Executor
from spinner_env.train.league import (
    League,
    LeagueRun,
    pfsp_weights,
    train_league,
    win_rate,
    win_rate_matrix,
)
from spinner_env.train.league import main as league_main
from spinner_env.train.ppo import train


def tiny_league(**league) -> dict:
    return {
        "name": "tiny",
        "num_players": 2,
        "env": {"num_hands": 1, "reward": "hand_score", "episode": "hand"},
        "skip_forced": True,
        "total_timesteps": 64,
        "n_envs": 4,
        "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}},
        "opponents": {"baselines": {"random": 1, "heuristic": 1}, "max_snapshots": 1},
        "league": {
            "generations": 2,
            "exploiter_steps": 64,
            "win_rate_episodes": 4,
            "heuristic_variants": 1,
            **league,
        },
    }


def named(name: str) -> RandomAgent:
    agent = RandomAgent()
    agent.name = name
    return agent


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.floats(0.5, 4))
def test_pfsp_weights_are_a_distribution_that_favours_the_members_the_learner_loses_to(
    rates, exponent
):
    weights = pfsp_weights(np.array(rates), exponent)
    assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()
    if not all(rate == 1.0 for rate in rates):
        order = np.argsort(rates)
        assert (np.diff(weights[order]) <= 1e-12).all()


def test_pfsp_is_one_minus_p_squared_and_uniform_when_the_learner_beats_everyone():
    np.testing.assert_allclose(pfsp_weights(np.array([0.0, 0.5, 1.0]), 2.0), [0.8, 0.2, 0.0])
    np.testing.assert_allclose(pfsp_weights(np.array([1.0, 1.0]), 2.0), [0.5, 0.5])


def test_members_join_the_oldest_snapshot_leaves_and_styles_stay():
    league = League({"random": 1.0, "greedy": 3.0}, LeagueConfig(heuristic_variants=1), 2)
    league.win_rates["s1"] = 0.9
    for name in ("s1", "s2", "s3"):
        league.add(name, named(name), "snapshot")
    league.add("e1", named("e1"), "exploiter")
    assert [m.name for m in league.members] == ["random", "greedy", "heuristic~1", "s2", "s3", "e1"]
    assert "s1" not in league.win_rates
    with pytest.raises(ValueError, match="already has a member named 's3'"):
        league.add("s3", named("s3"), "snapshot")


def test_the_sampler_draws_by_prior_times_pfsp_and_self_play_takes_the_latest_copy():
    league = League({"random": 1.0, "greedy": 3.0}, LeagueConfig(heuristic_variants=0), 2)
    league.win_rates.update(random=0.5, greedy=1.0)
    np.testing.assert_allclose(league.weights(), [1.0, 0.0])
    assert {a.name for a in league(np.random.default_rng(0), 50)} == {"random"}
    league.win_rates["greedy"] = 0.5
    np.testing.assert_allclose(league.weights(), [0.25, 0.75])
    latest = named("latest")
    league.latest = latest
    league.config = LeagueConfig(heuristic_variants=0, self_play=1.0)
    assert all(a is latest for a in league(np.random.default_rng(0), 20))


def test_a_seed_draws_the_same_heuristic_variants_and_opponents():
    def variants(seed: int) -> list:
        league = League({"random": 1.0}, LeagueConfig(heuristic_variants=3), seed=seed)
        drawn = [a.name for a in league(np.random.default_rng(seed), 30)]
        return [m.agent.weights for m in league.members[1:]] + drawn

    assert variants(5) == variants(5)
    assert variants(5) != variants(6)
    assert HeuristicAgent().weights not in variants(5)[:3]


def test_win_rate_counts_each_games_first_episode():
    config = TrainConfig.from_dict(tiny_league())
    strong = make_agent("heuristic")
    assert win_rate(strong, "random", config, 64, seed=1) > 0.6
    assert win_rate(strong, "random", config, 64, seed=1) == win_rate(
        strong, "random", config, 64, seed=1
    )


def test_a_search_player_plays_win_rates_from_either_side_and_replays_from_the_seed():
    """A search player reads the engine: in the batched games it plays through the
    reference state read back from each record (``AgentPolicy``), as player or opponent."""
    config = TrainConfig.from_dict(tiny_league())
    search = make_agent("pimc:determinizations=2", seed=0)
    assert win_rate(search, "random", config, 16, seed=1) > 0.6
    assert win_rate("random", search, config, 16, seed=1) < 0.4
    for player, opponent in ((search, "random"), ("random", search)):
        assert win_rate(player, opponent, config, 16, seed=1) == win_rate(
            player, opponent, config, 16, seed=1
        )


def test_the_win_rate_matrix_is_the_same_in_worker_processes():
    """The league's pairs on the executor: a sampling policy (as a snapshot), a jittered
    style and a search player give the same matrix in two worker processes as here."""
    config = TrainConfig.from_dict(tiny_league())
    snapshot = make_agent("spinner_2p_clone")
    snapshot.deterministic = False  # as the league's snapshots: it samples its moves
    agents = [
        snapshot,
        make_agent("heuristic:jitter=0.3,seed=2"),
        make_agent("ismcts:iterations=3,rollout=random", seed=1),
        "random",
    ]
    here = win_rate_matrix(agents, config, 6, seed=3)
    there = win_rate_matrix(agents, config, 6, seed=3, executor=Executor(2))
    np.testing.assert_array_equal(here, there)
    assert np.isnan(np.diag(here)).all() and not np.isnan(here[0, 1:]).any()


def test_spinner_league_refuses_a_bad_executor_in_one_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        league_main(
            ["--config", "configs/league_2p.yaml", "--out-dir", str(tmp_path), "--workers", "0"]
        )
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and error.count("\n") == 1
    assert "workers must be at least 1" in error


def test_a_search_player_is_a_league_style_and_the_seed_replays_the_league(tmp_path):
    config = tiny_league()
    style = "ismcts:iterations=4,rollout=random"
    config["opponents"]["baselines"] = {"heuristic": 1, style: 2}
    runs = [train_league(config, tmp_path / str(i), progress_bar=False) for i in range(2)]
    history = [json.loads((path.parent / "league.json").read_text()) for path in runs]
    assert history[0] == history[1]
    assert all(style in generation["win_rates"] for generation in history[0])
    a, b = (load_file(path) for path in runs)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_an_exploiter_that_beats_the_main_agent_is_reset(tmp_path):
    train_league(tiny_league(exploiter_reset=0.0), tmp_path, progress_bar=False)
    history = json.loads((tmp_path / "league.json").read_text())
    assert [g["exploiter_resets"] for g in history] == [[], [True], [True]]
    assert all(0 <= rate <= 1 for g in history for rate in g["exploiter_win_rates"])
    members = set(history[-1]["win_rates"])  # max_snapshots: 1 of each kind
    assert "exploiter1_2" in members and "exploiter1_1" not in members
    assert (tmp_path / "matrix.png").stat().st_size > 0


def test_the_same_seed_replays_the_league(tmp_path):
    runs = [
        train_league(tiny_league(exploiter_reset=1.0), tmp_path / str(i), progress_bar=False)
        for i in range(2)
    ]
    a, b = (load_file(path) for path in runs)
    assert all(torch.equal(a[k], b[k]) for k in a)
    history = [json.loads((path.parent / "league.json").read_text()) for path in runs]
    assert history[0] == history[1]


def test_league_configs_need_the_batched_backend_and_spinner_league():
    with pytest.raises(ValueError, match="backend: the AEC backend was removed"):
        TrainConfig.from_dict({**tiny_league(), "backend": "aec"})
    with pytest.raises(ValueError, match="checkpoint_every: not used with a league section"):
        TrainConfig.from_dict({**tiny_league(), "checkpoint_every": 100})
    with pytest.raises(ValueError, match="generations must be at least 1"):
        TrainConfig.from_dict(tiny_league(generations=0))
    with pytest.raises(ValueError, match="spinner-league"):
        train(tiny_league(), progress_bar=False)


def test_an_exploiter_starts_from_fresh_weights_or_the_main_agents(tmp_path):
    def first_exploiter_matches_main(start: str) -> bool:
        config = TrainConfig.from_dict(tiny_league(exploiter_start=start))
        run = LeagueRun(config, tmp_path / start, progress_bar=False)
        main, exploiter = run.main.policy.state_dict(), run.exploiters[0].model.policy.state_dict()
        return all(torch.equal(main[k], exploiter[k]) for k in main)

    assert first_exploiter_matches_main("main")
    assert not first_exploiter_matches_main("fresh")


def test_spinner_league_refuses_a_config_without_a_league_in_one_line(capsys, tmp_path):
    """A config that names no command (the shipped ones do, and are refused for that)."""
    path = tmp_path / "no_league.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in tiny_league().items() if k != "league"}))
    with pytest.raises(SystemExit) as exit_:
        league_main(["--config", str(path), "--out-dir", str(tmp_path / "run")])
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and error.count("\n") == 1
    assert "no league section: train it with spinner-train" in error
    assert not (tmp_path / "run").exists()
