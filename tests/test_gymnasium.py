"""What generic Gymnasium code looks for: registered ids, the mask in ``info``, a Dict
observation on request, finite observation bounds that every observation lies inside,
``check_env`` without warnings, and an environment import that loads no training
library."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spinner_env.agents import HeuristicAgent

import spinner_env  # noqa: F401  (registers the Gymnasium ids)
from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.batched.vector import MexicanTrainVectorEnv, SpinnerVectorEnv
from spinner_env.core.encoding import layout_bounds
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.rules import SpinnerRules
from spinner_env.wrappers import SingleAgentEnv

GYM_IDS = {"spinner": "spinner_env/Spinner-v0", "mexican_train": "spinner_env/MexicanTrain-v0"}
GAMES = {"spinner": spinner_v0, "mexican_train": mexican_train_v0}


@pytest.mark.parametrize("game", sorted(GYM_IDS))
@pytest.mark.parametrize("dict_observation", [False, True])
def test_registered_envs_pass_gymnasiums_check_env_without_warnings(game, dict_observation):
    env = gym.make(
        GYM_IDS[game], num_players=4, opponents="heuristic", dict_observation=dict_observation
    )
    assert env.metadata["render_fps"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize("game", sorted(GYM_IDS))
def test_gym_make_builds_the_games_single_agent_view(game):
    env = gym.make(GYM_IDS[game], num_players=3, opponents=["greedy", "heuristic"])
    raw = env.unwrapped
    assert isinstance(raw, SingleAgentEnv)
    assert raw.raw.metadata["name"] == GAMES[game].raw_env.metadata["name"]
    assert [o.name for o in raw._sampler(np.random.default_rng(), 2)] == ["greedy", "heuristic"]


def test_gym_make_rejects_an_unknown_opponent_by_name():
    with pytest.raises(ValueError, match="unknown agent 'champion'"):
        gym.make(GYM_IDS["spinner"], opponents="champion")


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("dict_observation", [False, True])
def test_the_mask_is_in_every_info_and_in_the_dict_observation(game, dict_observation):
    env = SingleAgentEnv(
        GAMES[game].raw_env(num_players=3), HeuristicAgent(), dict_observation=dict_observation
    )
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    for _ in range(300):
        mask = env.action_masks()
        assert np.array_equal(info["action_mask"], mask) and mask.any()
        assert env.observation_space.contains(obs)
        if dict_observation:
            assert np.array_equal(obs["action_mask"], mask)
        obs, _, terminated, _, info = env.step(rng.choice(np.flatnonzero(mask)))
        if terminated:
            obs, info = env.reset()
    obs, _, terminated, _, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert terminated and info["illegal_action"]
    assert np.array_equal(info["action_mask"], env.action_masks())


def test_bounds_must_name_every_part_of_the_layout():
    with pytest.raises(ValueError, match="bounds name"):
        layout_bounds(spinner_v0.OBSERVATION_LAYOUT, {"hand": (0, 1)})


@pytest.mark.parametrize("module", [spinner_v0, mexican_train_v0])
def test_the_bounds_are_finite_and_cover_the_whole_layout(module):
    space = module.raw_env().observation_space("player_0")["observation"]
    assert space.shape == (module.OBSERVATION_SIZE,)
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    assert (space.low < space.high).all()
    totals = module.OBSERVATION_SLICES["totals"]
    # A full match of the biggest hands the set allows, /100 as the observation shows it.
    assert space.high[totals.start] == np.float32(
        module.raw_env().rules.num_hands * module.MAX_HAND_POINTS / 100
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(GAMES)),
    num_players=st.integers(2, 8),
    seed=st.integers(0, 2**31),
)
def test_every_aec_observation_and_state_lies_inside_its_box(game, num_players, seed):
    env = GAMES[game].raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    space = env.observation_space("player_0")
    for _ in env.agent_iter(max_iter=400):
        assert env.state_space.contains(env.state())
        for other in env.agents:
            assert space.contains(env.observe(other))
        obs, _, termination, truncation, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if termination or truncation else int(rng.choice(legal)))


@pytest.mark.parametrize(
    ("vector_env", "rules"),
    [
        (SpinnerVectorEnv, SpinnerRules(num_players=4)),
        (MexicanTrainVectorEnv, MexicanTrainRules(num_players=3)),
    ],
)
def test_every_batched_observation_lies_inside_the_batched_box(vector_env, rules):
    env = vector_env(16, rules, opponents="random", episode="hand")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    assert np.isfinite(env.observation_space.high).all()
    for _ in range(60):
        assert env.observation_space.contains(obs)
        actions = [rng.choice(np.flatnonzero(mask)) for mask in env.action_masks()]
        obs, _, dones, _, infos = env.step(np.array(actions))
        for final in infos.get("final_obs", obs)[dones]:
            assert env.single_observation_space.contains(final)


ENVIRONMENT_ONLY = """
import sys
import spinner_env
from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.wrappers import SingleAgentEnv
for module in (spinner_v0, mexican_train_v0):
    env = module.env(num_players=3)
    env.reset(seed=0)
    env.step(int(env.last()[0]["action_mask"].argmax()))
print(" ".join(sorted(sys.modules)))
"""


VECTOR_ENV_ONLY = """
import sys
import numpy as np
from spinner_env.batched.vector import MexicanTrainVectorEnv, SpinnerVectorEnv
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.rules import SpinnerRules
for env in (
    SpinnerVectorEnv(2, SpinnerRules(num_players=3), opponents="heuristic"),
    MexicanTrainVectorEnv(2, MexicanTrainRules(num_players=3), opponents="greedy"),
):
    obs, info = env.reset(seed=0)
    env.step(np.argmax(info["action_mask"], axis=1))
print(" ".join(sorted(sys.modules)))
"""

TRAINING_LIBRARIES = ("torch", "stable_baselines3", "sb3_contrib", "spinner_env.train")


def modules_loaded_by(script: str) -> list[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()


def loads(loaded: list[str], package: str) -> bool:
    return any(module == package or module.startswith(package + ".") for module in loaded)


def test_using_the_environments_loads_no_training_library_nor_numba_nor_pillow():
    loaded = modules_loaded_by(ENVIRONMENT_ONLY)
    assert "gymnasium" in loaded and "pettingzoo" in loaded  # what the check sees is real
    for name in (*TRAINING_LIBRARIES, "numba", "PIL", "spinner_env.agents", "spinner_env.batched"):
        assert not loads(loaded, name), name


def test_the_batched_vector_envs_load_numba_but_no_training_library():
    loaded = modules_loaded_by(VECTOR_ENV_ONLY)
    assert "numba" in loaded and "spinner_env.batched.vector" in loaded
    assert "spinner_env.agents.heuristic" in loaded  # its weights, read for the opponents
    for name in (*TRAINING_LIBRARIES, "PIL", "spinner_env.agents.policy"):
        assert not loads(loaded, name), name
