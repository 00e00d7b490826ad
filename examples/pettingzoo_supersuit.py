"""Which PettingZoo and SuperSuit wrappers fit a masked, turn-based game: each one tried.

    python examples/pettingzoo_supersuit.py                 # 20 matches per wrapper
    python examples/pettingzoo_supersuit.py --episodes 3    # a smoke run (what the tests run)

Every wrapper below wraps ``spinner_v0`` (2 players, one-hand matches) and plays masked
random matches; a wrapper *works* when the matches have no illegal move and every seat's
rewards add up to its match outcome (scaled, for a reward wrapper). The printed table
says which work, which cannot be built, and which run but break the game, and why:

* ``spinner_v0`` is turn-based (AEC): one seat acts at a time, so it has no parallel API.
  ``aec_to_parallel`` and SuperSuit's parallel-only wrappers (``black_death_v3``, the vector
  envs built from parallel envs) refuse it; ``turn_based_aec_to_parallel`` works (every
  seat submits an action each step, only the acting seat's is played; the others' masks
  are all zero).
* Its observation is a Dict ``{"observation", "action_mask"}``. SuperSuit's observation
  wrappers (``normalize_obs``, ``dtype``, ``flatten``, ``frame_stack``, ``agent_indicator``,
  ``pad_observations``) take Box or Discrete spaces only. ``observation_lambda_v0`` works
  when given both a function that changes ``obs["observation"]`` and keeps the mask, and
  a function for the space.
* Wrappers that replay or delay actions or observations (``sticky_actions``,
  ``delay_observations``, ``frame_skip``) run, but act on a stale mask: illegal moves,
  which the classic wrapper answers by ending the match (-1 to the mover), or, with
  ``frame_skip``, an empty mask for the seat to act.
* Reward wrappers (``clip_reward``, ``reward_lambda``) work, as do PettingZoo's own
  ``OrderEnforcingWrapper`` / ``AssertOutOfBoundsWrapper`` / ``TerminateIllegalWrapper``,
  already in ``spinner_v0.env()``; ``ClipOutOfBoundsWrapper`` is for Box actions only.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import supersuit as ss
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import conversions
from pettingzoo.utils import wrappers as pz_wrappers

from spinner_env import spinner_v0
from spinner_env.core.encoding import zero_sum_outcome


def spinner() -> AECEnv:
    return spinner_v0.env(num_players=2, num_hands=1)


def doubled_observation(obs: dict, space: object, agent: object = None) -> dict:
    """An observation function that leaves the mask alone."""
    return {**obs, "observation": obs["observation"] * 2}


@dataclass(frozen=True)
class Case:
    build: Callable[[], AECEnv | ParallelEnv]
    reward_scale: float = 1.0


CASES: dict[str, Case] = {
    "spinner_v0.env() (PettingZoo's classic stack)": Case(spinner),
    "pettingzoo ClipOutOfBoundsWrapper": Case(
        lambda: pz_wrappers.ClipOutOfBoundsWrapper(spinner())
    ),
    "pettingzoo aec_to_parallel": Case(lambda: conversions.aec_to_parallel(spinner())),
    "pettingzoo turn_based_aec_to_parallel": Case(
        lambda: conversions.turn_based_aec_to_parallel(spinner())
    ),
    "supersuit clip_reward_v0": Case(lambda: ss.clip_reward_v0(spinner(), -1, 1)),
    "supersuit reward_lambda_v0 (x10)": Case(
        lambda: ss.reward_lambda_v0(spinner(), lambda r: 10 * r), reward_scale=10.0
    ),
    "supersuit observation_lambda_v0 (with a space function)": Case(
        lambda: ss.observation_lambda_v0(spinner(), doubled_observation, lambda s, a=None: s)
    ),
    "supersuit observation_lambda_v0 (without)": Case(
        lambda: ss.observation_lambda_v0(spinner(), doubled_observation)
    ),
    "supersuit normalize_obs_v0": Case(lambda: ss.normalize_obs_v0(spinner())),
    "supersuit dtype_v0": Case(lambda: ss.dtype_v0(spinner(), np.float16)),
    "supersuit flatten_v0": Case(lambda: ss.flatten_v0(spinner())),
    "supersuit frame_stack_v1": Case(lambda: ss.frame_stack_v1(spinner(), 2)),
    "supersuit agent_indicator_v0": Case(lambda: ss.agent_indicator_v0(spinner())),
    "supersuit pad_observations_v0": Case(lambda: ss.pad_observations_v0(spinner())),
    "supersuit black_death_v3": Case(lambda: ss.black_death_v3(spinner())),
    "supersuit sticky_actions_v0": Case(lambda: ss.sticky_actions_v0(spinner(), 0.5)),
    "supersuit delay_observations_v0": Case(lambda: ss.delay_observations_v0(spinner(), 1)),
    "supersuit frame_skip_v0": Case(lambda: ss.frame_skip_v0(spinner(), 2)),
}


class EmptyMaskError(Exception):
    """The seat to act was shown no legal action."""


@dataclass
class Tally:
    episodes: int = 0
    illegal: int = 0
    mismatches: int = 0
    """seat-episodes whose rewards differ from the (scaled) outcome"""


def play_aec(env: AECEnv, episodes: int, scale: float, rng: np.random.Generator) -> Tally:
    """Masked random matches through the AEC loop."""
    tally = Tally()
    for _ in range(episodes):
        env.reset(seed=int(rng.integers(2**31)))
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            returns[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if legal.size == 0:
                raise EmptyMaskError(agent)
            env.step(int(rng.choice(legal)))
        tally.illegal += _illegal_ending(env)
        tally.mismatches += _mismatches(env, returns, scale)
        tally.episodes += 1
    return tally


def play_parallel(env: ParallelEnv, episodes: int, scale: float, rng: np.random.Generator) -> Tally:
    """Masked random matches through the parallel loop: every seat sends an action, only
    the acting seat's (the one with a non-empty mask) is played."""
    tally = Tally()
    for _ in range(episodes):
        observations, _ = env.reset(seed=int(rng.integers(2**31)))
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {}
            for agent in env.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                actions[agent] = int(rng.choice(legal)) if legal.size else 0
            observations, rewards, _, _, _ = env.step(actions)
            for agent, reward in rewards.items():
                returns[agent] += reward
        tally.illegal += _illegal_ending(env)
        tally.mismatches += _mismatches(env, returns, scale)
        tally.episodes += 1
    return tally


def _illegal_ending(env: AECEnv | ParallelEnv) -> int:
    """1 if the match ended before its end: the classic wrapper stopped an illegal move."""
    return int(not env.unwrapped.game.match_over)


def _mismatches(env: AECEnv | ParallelEnv, returns: dict[str, float], scale: float) -> int:
    outcome = zero_sum_outcome(env.unwrapped.game.totals)
    seats = env.unwrapped.possible_agents
    return sum(
        abs(returns[agent] - scale * outcome[seat]) > 1e-6 for seat, agent in enumerate(seats)
    )


def verdict(case: Case, episodes: int, seed: int = 0) -> str:
    """``works``, ``breaks the game (...)`` or ``cannot be built: <the library's error>``."""
    try:
        env = case.build()
    except Exception as error:  # the wrapper's own refusal is the answer
        message = str(error).split(". ")[0][:100]
        return f"cannot be built: {type(error).__name__}: {message}"
    rng = np.random.default_rng(seed)
    play = play_parallel if isinstance(env, ParallelEnv) else play_aec
    try:
        tally = play(env, episodes, case.reward_scale, rng)
    except EmptyMaskError:
        return "breaks the game: the seat to act is shown no legal action"
    if tally.illegal or tally.mismatches:
        return (
            f"breaks the game: {tally.illegal} of {tally.episodes} matches end on an "
            f"illegal move, {tally.mismatches} seat-episodes off their outcome"
        )
    return "works"


def main(argv: Sequence[str] | None = None) -> dict[str, str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    verdicts = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the illegal-move warnings of the broken cases
        for name, case in CASES.items():
            verdicts[name] = verdict(case, args.episodes)
            print(f"{name:<56} {verdicts[name]}")
    return verdicts


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
