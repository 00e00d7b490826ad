"""Exact copies: ``copy.deepcopy``, ``pickle`` and ``cloudpickle`` of every environment at
any point of an episode give an independent environment that plays on exactly as the
original does (observations, masks, rewards, infos, and the next episodes of the same
generators), and unpickled tiles are the canonical ones the engines compare by identity."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spinner_env.agents import HeuristicAgent, RandomAgent
from spinner_env.train.vec_env import BatchedVecEnv, MexicanTrainVecEnv

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.batched.vector import SpinnerVectorEnv
from spinner_env.games.mexican_train.rules import ALL_TILES as MEXICAN_TRAIN_TILES
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.rules import ALL_TILES as SPINNER_TILES
from spinner_env.games.spinner.rules import SpinnerRules
from spinner_env.wrappers import SingleAgentEnv

COPIERS: dict[str, Callable[[Any], Any]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
}
GAMES = {"spinner": spinner_v0, "mexican_train": mexican_train_v0}
# Two hands, so that copies are also taken, and played on, across a hand's end.
SHORT_MATCH = {"spinner": {"num_hands": 2}, "mexican_train": {"num_rounds": 2}}


def play_aec(env: Any, rng: np.random.Generator, max_steps: int) -> list[tuple]:
    """What every step shows, playing random legal actions for up to max_steps steps."""
    record = []
    for _ in range(max_steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, termination, truncation, info = env.last()
        record.append((agent, obs, reward, termination, truncation, info, dict(env.rewards)))
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return record


def the_rest_of_two_episodes(env: Any, seed: int) -> list[tuple]:
    """This episode played to its end, then the next one from the env's own generator."""
    rng = np.random.default_rng(seed)
    record = play_aec(env, rng, 10_000)
    env.reset()  # no seed: the next episode comes from the env's np_random
    return record + play_aec(env, rng, 60)


def env_tiles(game: Any) -> list[Any]:
    tiles = [t for hand in game.hands for t in hand] + list(game.boneyard)
    if hasattr(game, "layout"):
        tiles += [placed.tile for placed in game.layout]
    else:
        tiles += [t for train in game.trains for t in train.tiles]
    return tiles


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(GAMES)),
    wrapped=st.booleans(),
    num_players=st.integers(2, 5),
    seed=st.integers(0, 2**31),
    stop=st.integers(0, 300),
    copier=st.sampled_from(sorted(COPIERS)),
)
def test_an_aec_copy_plays_on_exactly_as_the_original(
    game, wrapped, num_players, seed, stop, copier
):
    module = GAMES[game]
    make = module.env if wrapped else module.raw_env
    env = make(num_players=num_players, **SHORT_MATCH[game])
    env.reset(seed=seed)
    play_aec(env, np.random.default_rng(seed + 1), stop)
    twin = COPIERS[copier](env)
    assert type(twin) is type(env)
    assert all(
        a is b
        for a, b in zip(env_tiles(twin.unwrapped.game), env_tiles(env.unwrapped.game), strict=True)
    )
    # The original plays first, to the end and beyond: the copy must not see any of it.
    original = the_rest_of_two_episodes(env, seed)
    assert data_equivalence(the_rest_of_two_episodes(twin, seed), original)


@pytest.mark.parametrize("copier", sorted(COPIERS))
def test_a_copy_taken_before_reset_works_once_reset(copier):
    env = spinner_v0.env(num_players=3)
    twin = COPIERS[copier](env)
    env.reset(seed=4)
    twin.reset(seed=4)
    assert data_equivalence(
        play_aec(twin, np.random.default_rng(0), 40), play_aec(env, np.random.default_rng(0), 40)
    )


@pytest.mark.parametrize("copier", sorted(COPIERS))
@pytest.mark.parametrize("tiles", [SPINNER_TILES, MEXICAN_TRAIN_TILES])
def test_copied_tiles_are_the_canonical_instances(copier, tiles):
    assert all(COPIERS[copier](tile) is tile for tile in tiles)
    assert all(copy.copy(tile) is tile for tile in tiles)


def play_single(env: SingleAgentEnv, rng: np.random.Generator, max_steps: int) -> list[tuple]:
    record = []
    for _ in range(max_steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        step = env.step(action)
        record.append(step)
        if step[2] or step[3]:
            record.append(env.reset())
    return record


def random_or_heuristic(rng: np.random.Generator, count: int) -> list[Any]:
    """An opponent sampler: a fresh agent each episode, drawn by the env's generator."""
    return [RandomAgent() if rng.random() < 0.5 else HeuristicAgent()] * count


OPPONENTS: dict[str, Callable[[], Any]] = {
    "one random agent": RandomAgent,
    "sampled": lambda: random_or_heuristic,
}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(GAMES)),
    num_players=st.integers(2, 4),
    seed=st.integers(0, 2**31),
    stop=st.integers(0, 40),
    copier=st.sampled_from(sorted(COPIERS)),
    opponents=st.sampled_from(sorted(OPPONENTS)),
    dict_observation=st.booleans(),
)
def test_a_single_agent_copy_plays_on_exactly_as_the_original(
    game, num_players, seed, stop, copier, opponents, dict_observation
):
    env = SingleAgentEnv(
        GAMES[game].raw_env(num_players=num_players, **SHORT_MATCH[game]),
        OPPONENTS[opponents](),
        dict_observation=dict_observation,
    )
    env.reset(seed=seed)
    play_single(env, np.random.default_rng(seed), stop)
    twin = COPIERS[copier](env)
    original = play_single(env, np.random.default_rng(seed + 1), 60)
    assert data_equivalence(play_single(twin, np.random.default_rng(seed + 1), 60), original)


def step_vector(env: Any, rng: np.random.Generator, steps: int) -> list[Any]:
    """Steps of a batched env (Gymnasium vector env or SB3 VecEnv) with random legal actions;
    SB3's episode records lose their wall-clock time ``t``, which no copy can repeat."""
    record = []
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        if isinstance(env, BatchedVecEnv):
            obs, rewards, dones, infos = env.step(actions)
            for info in infos:
                info.get("episode", {}).pop("t", None)
            record.append((obs, rewards, dones, infos, masks))
        else:
            record.append((*env.step(actions), masks))
    return record


@pytest.mark.parametrize(
    ("vector_env", "rules"),
    [
        (SpinnerVectorEnv, SpinnerRules(num_players=3, num_hands=2)),
        (MexicanTrainVecEnv, MexicanTrainRules(num_players=4, num_rounds=2)),
    ],
)
@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_a_batched_copy_plays_on_exactly_as_the_original(vector_env, rules, opponents):
    env = vector_env(4, rules, opponents=opponents)
    if isinstance(env, BatchedVecEnv):
        env.seed(7)
        env.reset()
    else:
        env.reset(seed=7)
    step_vector(env, np.random.default_rng(0), 15)
    twins = {name: copier(env) for name, copier in COPIERS.items()}
    original = step_vector(env, np.random.default_rng(1), 40)
    for twin in twins.values():
        assert data_equivalence(step_vector(twin, np.random.default_rng(1), 40), original)
