"""Decisions per second of masked random play through a PettingZoo AEC loop.

Every decision reads the observation and mask with ``env.last()`` and picks a uniformly
random legal action, over full matches, as a user's training or evaluation loop would.

    python bench/bench_aec.py                 # spinner_v0, 2, 4 and 8 players
    python bench/bench_aec.py --players 4 --seconds 10
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from pettingzoo import AECEnv


def play_episode(env: AECEnv, rng: np.random.Generator) -> int:
    """One whole episode of masked random play; returns the number of decisions."""
    env.reset(seed=int(rng.integers(2**31)))
    decisions = 0
    for _agent in env.agent_iter():
        obs, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
    return decisions


def play_decisions(make_env: Callable[[], AECEnv], at_least: int, seed: int = 0) -> int:
    """Whole episodes until at least ``at_least`` decisions; returns how many were made."""
    env = make_env()
    rng = np.random.default_rng(seed)
    decisions = 0
    while decisions < at_least:
        decisions += play_episode(env, rng)
    return decisions


def random_play_rate(make_env: Callable[[], AECEnv], seconds: float, seed: int = 0) -> dict:
    """Play whole episodes with masked random actions for about ``seconds``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        decisions += play_episode(env, rng)
        episodes += 1
    elapsed = time.perf_counter() - start
    env.close()
    return {
        "decisions_per_s": decisions / elapsed,
        "decisions": decisions,
        "episodes": episodes,
        "seconds": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    from spinner_env import spinner_v0

    print(f"{'env':<12} {'players':>7} {'decisions/s':>12} {'matches':>8}")
    for n in args.players:
        stats = random_play_rate(lambda n=n: spinner_v0.env(num_players=n), args.seconds)
        print(
            f"{'spinner_v0':<12} {n:>7} {stats['decisions_per_s']:>12,.0f} {stats['episodes']:>8}"
        )


if __name__ == "__main__":
    main()
