"""Behaviour cloning (``pretrain``, spinner_env.train.imitate): the cloned policy plays as
its teacher on decisions it never saw, and a config's ``pretrain`` section runs it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from spinner_env.agents.policy import PolicyAgent, load_policy
from spinner_env.train.config import TrainConfig
from spinner_env.train.imitate import agreement, collect, discounted_returns, fit
from spinner_env.train.ppo import limit_threads, make_model, make_pool, make_training_env, train
from test_train import tiny_config

from spinner_env.games import game_spec


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    limit_threads(1)  # as training runs: on a busy machine more threads run slower


def mexican_train_config(**overrides) -> TrainConfig:
    """Four seats of Mexican Train against the heuristic, on the batched engine."""
    config = tiny_config(
        game="mexican_train",
        num_players=4,
        backend="batched",
        n_envs=32,
        env={"reward": "hand_score", "episode": "hand"},
        ppo={"n_steps": 32, "batch_size": 256, "n_epochs": 1, "policy_kwargs": {"net_arch": [128]}},
        opponents={"baselines": {"heuristic": 1}},
        checkpoint_every=0,
        eval={},
    )
    config.update(overrides)
    return TrainConfig.from_dict(config)


def test_the_cloned_policy_makes_the_heuristics_moves_on_held_out_decisions(tmp_path):
    config = mexican_train_config()
    pool = make_pool(config, seed=0)
    demos = collect(config, pool, "heuristic", samples=8_000, seed=0)
    assert len(demos) >= 8_000
    # The heuristic's decisions, as recorded: legal, and its own (the compiled one).
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    model = make_model(config, make_training_env(config, pool), tmp_path, seed=0)
    fresh = np.arange(2000)
    before = agreement(model.policy, demos, fresh)
    report = fit(model.policy, demos, epochs=3, batch_size=256, seed=0)
    assert report.losses[-1] < report.losses[0]
    assert report.holdout_size == len(demos) // 10
    # Measured: 0.35 before, 0.80 after, 0.83 on other deals (an untrained net picks
    # among the few legal moves at random; the heuristic weighs points, doubles, trains).
    assert before < 0.5
    assert report.holdout_accuracy > 0.7
    # Decisions of deals never collected from: the same agreement.
    other = collect(config, pool, "heuristic", samples=2_000, seed=99)
    assert agreement(model.policy, other, np.arange(len(other))) > 0.7


def test_returns_are_discounted_within_each_episode():
    rewards = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]], np.float32)
    dones = np.array([[False, True], [False, False], [True, False]])
    returns = discounted_returns(rewards, dones, gamma=0.5)
    # Game 0: one episode ending at step 2; game 1: ends at step 0, then a new one.
    np.testing.assert_allclose(returns[:, 0], [0.5, 1.0, 2.0])
    np.testing.assert_allclose(returns[:, 1], [1.0, 0.0, 0.0])


def test_collect_keeps_only_decisions_of_finished_episodes():
    config = mexican_train_config(n_envs=4)
    demos = collect(config, "heuristic", "heuristic", samples=50, seed=3)
    # Every kept decision's return is its episode's: one round's reward is at most
    # a few tiles' points / 100 and never zero for every decision of a round.
    assert len(demos) >= 50 and np.abs(demos.returns).max() < 2
    assert np.count_nonzero(demos.returns) > 0


def test_a_config_with_pretrain_starts_ppo_from_the_clone(tmp_path, capsys):
    config = mexican_train_config(
        total_timesteps=64,
        pretrain={"imitate": "heuristic", "samples": 3000, "epochs": 2, "batch_size": 256},
    )
    policy_path = train(config, tmp_path, progress_bar=False)
    assert "pretrain: cloned 'heuristic'" in capsys.readouterr().out
    cloned = PolicyAgent.load(policy_path)
    demos = collect(config, "heuristic", "heuristic", samples=1000, seed=5)
    assert agreement(cloned.policy, demos, np.arange(len(demos))) > 0.5


def test_pretrain_after_init_from_fits_the_given_weights_to_the_teacher(tmp_path):
    # init_from loads the weights, then pretrain fits them: with a vanishing cloning (and
    # PPO) learning rate the run ends where init_from started it; with a real one it moves.
    committed = "agents/checkpoints/mexican_train_4p.safetensors"
    start, header = load_policy(committed, game_spec("mexican_train").encoding)

    def trained(rate: float) -> dict:
        config = mexican_train_config(
            init_from=committed,
            features=list(header.features),
            prior=None if header.prior is None else dataclasses.asdict(header.prior),
            total_timesteps=64,
            pretrain={"imitate": "heuristic", "samples": 500, "epochs": 1, "learning_rate": rate},
            ppo={
                "n_steps": 32,
                "batch_size": 256,
                "n_epochs": 1,
                "learning_rate": 1e-12,
                "policy_kwargs": {"net_arch": list(header.policy_layers)},
            },
        )
        path = train(config, tmp_path / str(rate), progress_bar=False)
        return load_policy(path, game_spec("mexican_train").encoding)[0].state_dict()

    def largest_change(weights: dict) -> float:
        return max((weights[k] - v).abs().max().item() for k, v in start.state_dict().items())

    assert largest_change(trained(1e-12)) < 1e-6
    assert largest_change(trained(1e-2)) > 1e-3


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"pretrain": {"samples": 0}}, "pretrain.samples must be at least 1, got 0"),
        ({"pretrain": {"learning_rate": 0}}, "pretrain.learning_rate must be positive"),
        ({"pretrain": {"imitate_": "heuristic"}}, "did you mean 'pretrain.imitate'"),
        ({"league": {}}, "pretrain: not used with a league section"),
    ],
)
def test_a_bad_pretrain_section_is_refused_naming_the_key(changes, message):
    with pytest.raises(ValueError, match=message):
        mexican_train_config(**{"pretrain": {}, **changes})


def test_a_search_teacher_plays_in_the_batched_games_and_replays_from_its_seed():
    # A search player reads the engine: it plays each batched game's reference state, read
    # back from the record (AgentPolicy), at an iteration budget reproducibly.
    config = mexican_train_config(n_envs=4)
    teacher = "pimc:iterations=2,rollout=random"
    demos = collect(config, "heuristic", teacher, samples=30, seed=3)
    assert len(demos) >= 30
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    assert np.abs(demos.returns).max() < 2 and np.count_nonzero(demos.returns) > 0
    again = collect(config, "heuristic", teacher, samples=30, seed=3)
    np.testing.assert_array_equal(again.actions, demos.actions)
    np.testing.assert_array_equal(again.obs, demos.obs)
    other = collect(config, "heuristic", teacher, samples=30, seed=4)
    assert not np.array_equal(other.obs[:10], demos.obs[:10])
