"""Decisions per second of masked random play through a PettingZoo AEC loop.

Every decision reads the observation and mask with ``env.last()`` and picks a uniformly
random legal action, over full matches, as a user's training or evaluation loop would.

    python bench/bench_aec.py                 # spinner_v0 and mexican_train_v0, 2, 4, 8 players
    python bench/bench_aec.py --games spinner_v0 --players 4 --seconds 10
    python bench/bench_aec.py --smoke         # every game, 2 players, 0.2 s: a check that it runs
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable, Sequence
from functools import partial

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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=GAMES)
    parser.add_argument("--smoke", action="store_true", help="2 players, 0.2 s per row")
    args = parser.parse_args(argv)
    if args.smoke:
        args.players, args.seconds = [2], 0.2
    print(f"{'env':<17} {'players':>7} {'decisions/s':>12} {'matches':>8}")
    for name in args.games:
        env_module = importlib.import_module(f"spinner_env.{name}")
        for n in args.players:
            stats = random_play_rate(partial(env_module.env, num_players=n), args.seconds)
            rate, matches = stats["decisions_per_s"], stats["episodes"]
            print(f"{name:<17} {n:>7} {rate:>12,.0f} {matches:>8}")


GAMES = ("spinner_v0", "mexican_train_v0")


if __name__ == "__main__":
    main()
