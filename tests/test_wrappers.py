"""The Gymnasium single-agent wrapper: check_env, masks, and every reward delivered."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from spinner_env.agents import GreedyAgent, HeuristicAgent, RandomAgent
from stable_baselines3.common.env_checker import check_env

from spinner_env import spinner_v0
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome
from spinner_env.wrappers import SingleAgentEnv


@pytest.mark.parametrize("make", [spinner_v0.raw_env, spinner_v0.env])
@pytest.mark.parametrize("num_players", [2, 4])
def test_wrapper_passes_sb3_check_env(make, num_players):
    env = SingleAgentEnv(make(num_players=num_players, num_hands=1), RandomAgent())
    check_env(env)


def play_episode(env: SingleAgentEnv, rng: np.random.Generator, seed: int | None = None):
    obs, info = env.reset(seed=seed)
    rewards, masks = [], []
    done = False
    while not done:
        mask = env.action_masks()
        masks.append(mask)
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        rewards.append(reward)
    return rewards, masks, info


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_match_reward_reaches_the_learner_even_when_another_seat_ends_it(num_players):
    """S6.4, S7.2: the zero-sum match outcome reaches the learner's seat in full, whether
    the learner won or lost, and whoever made the last move."""
    env = SingleAgentEnv(
        spinner_v0.raw_env(num_players=num_players, num_hands=2), GreedyAgent(), skip_forced=True
    )
    rng = np.random.default_rng(num_players)
    lost_without_last_move = 0
    for episode in range(12):
        rewards, _, info = play_episode(env, rng, seed=episode if episode == 0 else None)
        game = env.raw.game
        seat = info["learner_seat"]
        assert sum(rewards) == pytest.approx(zero_sum_outcome(game.totals)[seat])
        if sum(rewards) < 0 and game.results[-1].winner != seat:
            lost_without_last_move += 1
    assert lost_without_last_move > 0


@pytest.mark.parametrize("num_players", [2, 4])
def test_every_hand_score_reward_reaches_the_learner(num_players):
    """S7.1: with per-hand rewards, every hand's score difference arrives, each once."""
    env = SingleAgentEnv(
        spinner_v0.raw_env(num_players=num_players, num_hands=3, reward="hand_score"),
        [HeuristicAgent()] * (num_players - 1),
    )
    rng = np.random.default_rng(1)
    for _ in range(4):
        rewards, _, info = play_episode(env, rng)
        seat = info["learner_seat"]
        expected = sum(hand_score_difference(r.points)[seat] for r in env.raw.game.results)
        assert sum(rewards) == pytest.approx(expected)
        assert len(env.raw.game.results) == 3


def test_learner_seat_rotates_and_a_seeded_reset_replays():
    env = SingleAgentEnv(spinner_v0.raw_env(num_players=3, num_hands=1), RandomAgent())
    seats = []
    first = env.reset(seed=7)[0]
    seats.append(env.reset()[1]["learner_seat"])
    seats.append(env.reset()[1]["learner_seat"])
    assert seats == [1, 2]
    again, info = env.reset(seed=7)
    assert info["learner_seat"] == 0
    np.testing.assert_array_equal(first, again)


def test_skip_forced_returns_only_decisions_and_keeps_the_rewards():
    """S6.2, S6.3: forced draws and passes are played for the learner when asked."""
    env = SingleAgentEnv(
        spinner_v0.raw_env(num_players=2, num_hands=2), GreedyAgent(), skip_forced=True
    )
    rng = np.random.default_rng(3)
    for _ in range(3):
        rewards, masks, info = play_episode(env, rng)
        assert all(m.sum() >= 2 for m in masks)
        assert sum(rewards) == pytest.approx(
            zero_sum_outcome(env.raw.game.totals)[info["learner_seat"]]
        )
    plain = SingleAgentEnv(spinner_v0.raw_env(num_players=2, num_hands=2), GreedyAgent())
    _, masks, _ = play_episode(plain, rng)
    assert any(m.sum() == 1 for m in masks)


def test_an_illegal_action_ends_the_episode_with_a_penalty():
    env = SingleAgentEnv(spinner_v0.raw_env(num_players=2), RandomAgent(), illegal_reward=-1.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_opponent_lists_must_fill_the_other_seats():
    with pytest.raises(ValueError, match="3 seats"):
        SingleAgentEnv(spinner_v0.raw_env(num_players=4), [RandomAgent(), RandomAgent()])


def test_the_wrapper_serves_mexican_train_too():
    """Game-agnostic: Mexican Train (M-rules) through the same wrapper and baselines."""
    from spinner_env import mexican_train_v0

    env = SingleAgentEnv(
        mexican_train_v0.raw_env(num_players=3, num_rounds=1), GreedyAgent(), skip_forced=True
    )
    check_env(env)
    rewards, _, info = play_episode(env, np.random.default_rng(0), seed=1)
    assert sum(rewards) == pytest.approx(
        zero_sum_outcome(env.raw.game.totals)[info["learner_seat"]]
    )


@pytest.mark.parametrize("game", ["spinner_v0", "mexican_train_v0"])
@pytest.mark.parametrize("action", [9999, -1, np.int64(9999)])
def test_an_out_of_range_action_is_one_value_error_wrapped_or_raw(game, action):
    """PettingZoo's classic stack would fail a bare assertion: the wrapped env, as the raw
    one does, names the action and the range, and the game goes on."""
    module = importlib.import_module(f"spinner_env.{game}")
    for env in (module.env(num_players=2), module.raw_env(num_players=2)):
        env.reset(seed=0)
        last = env.encoding.num_actions - 1
        message = rf"^action {action} is out of range: ids run from 0 to {last}$"
        with pytest.raises(ValueError, match=message):
            env.step(action)
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(legal)  # refused, not played: the same seat may still move
