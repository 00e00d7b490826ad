"""Decisions per second of masked random play: the batched Mexican Train engine against
the ``mexican_train_v0`` AEC loop, same run, one core.

Every row plays full matches (episodes) with uniformly random legal actions and reads an
observation and an action mask at every decision:

1. ``mexican_train_v0`` through the PettingZoo AEC loop (``bench_aec.random_play_rate``);
2. the batched engine (``spinner_env.games.mexican_train.batched``) at B = 1, 64, 1024, 4096;

and, what a training run steps, learner decisions against the Mexican Train heuristic
at every other seat (random learner moves, round episodes, ``hand_score`` reward):

3. ``SingleAgentEnv`` over ``mexican_train_v0.raw_env`` with ``HeuristicAgent`` opponents
   (the ``backend: aec`` path of ``spinner_env.train.ppo``);
4. ``MexicanTrainVecEnv`` at B = 64 and 1024, the heuristic compiled (``backend: batched``).

The rows run in rounds (every row once per round, so that a slow spell of a shared
machine falls on all rows alike); each rate is the median over rounds, each ratio to the
AEC loop the median of the same-round ratios, and the largest batch's ratios are printed
round by round.

    python bench/bench_batched_mexican_train.py                 # 4 players, 3 rounds of 3 s
    python bench/bench_batched_mexican_train.py --players 2 --seconds 10 --repeats 5
    python bench/bench_batched_mexican_train.py --smoke    # 1 round of 0.1 s, small B: does it run
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence

import numpy as np
from bench_aec import random_play_rate
from bench_speed import play_batched
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.train.vec_env import MexicanTrainVecEnv

from spinner_env import mexican_train_v0
from spinner_env.batched.core import sample_legal
from spinner_env.games.mexican_train.batched import BatchedMexicanTrain
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.wrappers import SingleAgentEnv

BATCH_SIZES = (1, 64, 1024, 4096)
LEARNER_BATCH_SIZES = (64, 1024)
EPISODE = {"reward": "hand_score", "episode": "hand"}


def single_agent_rate(num_players: int, seconds: float, seed: int = 0) -> dict:
    """Learner decisions per second of ``SingleAgentEnv`` against Python heuristics."""
    env = SingleAgentEnv(
        mexican_train_v0.raw_env(num_players=num_players, **EPISODE), HeuristicAgent(seed=seed)
    )
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, _, _ = env.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
        if terminated:
            episodes += 1
            env.reset()
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "decisions": decisions, "episodes": episodes}


def vec_env_rate(rules: MexicanTrainRules, num_envs: int, seconds: float, seed: int = 0) -> dict:
    """Learner decisions per second of ``MexicanTrainVecEnv`` against compiled heuristics
    (one step made beforehand, off the count, so that compiling is not timed)."""
    venv = MexicanTrainVecEnv(num_envs, rules, opponents="heuristic", **EPISODE)
    venv.seed(seed)
    venv.reset()
    rng = np.random.default_rng(seed)
    venv.step(sample_legal(venv.batch.mask, rng.random(num_envs)))
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        _, _, dones, _ = venv.step(sample_legal(venv.batch.mask, rng.random(num_envs)))
        decisions += num_envs
        episodes += int(dones.sum())
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "decisions": decisions, "episodes": episodes}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="per run")
    parser.add_argument(
        "--repeats", type=int, default=3, help="rounds (every row runs once per round)"
    )
    parser.add_argument("--smoke", action="store_true", help="1 round of 0.1 s, the smallest B")
    args = parser.parse_args(argv)
    batch_sizes, learner_batch_sizes = BATCH_SIZES, LEARNER_BATCH_SIZES
    if args.smoke:
        args.seconds, args.repeats = 0.1, 1
        batch_sizes, learner_batch_sizes = BATCH_SIZES[:1], LEARNER_BATCH_SIZES[:1]
    n, seconds = args.players, args.seconds
    rules = MexicanTrainRules(num_players=n)
    aec = f"mexican_train_v0 AEC ({n}p)"
    runs: dict[str, Callable[[], dict]] = {
        aec: lambda: random_play_rate(lambda: mexican_train_v0.env(num_players=n), seconds)
    }
    for b in batch_sizes:
        runs[f"batched B={b} ({n}p)"] = lambda b=b: play_batched(
            BatchedMexicanTrain(b, rules), seconds=seconds
        )
    single = f"learner vs heuristics, SingleAgentEnv ({n}p)"
    runs[single] = lambda: single_agent_rate(n, seconds)
    for b in learner_batch_sizes:
        runs[f"learner vs heuristics, VecEnv B={b} ({n}p)"] = lambda b=b: vec_env_rate(
            rules, b, seconds
        )

    walls: dict[str, list[float]] = {name: [] for name in runs}
    per_cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            cpu = time.process_time()
            stats = run()
            cpu = time.process_time() - cpu
            walls[name].append(stats["decisions_per_s"])
            per_cpu[name].append(stats["decisions"] / cpu)

    print(f"cpu: {os.cpu_count()} logical, load average {os.getloadavg()[0]:.1f}")
    print(f"{'env':<46} {'decisions/s':>13} {'x base':>9} {'per CPU s':>13}")
    for name in runs:
        base = single if name.startswith("learner") else aec
        ratio = float(np.median(np.divide(walls[name], walls[base])))
        print(
            f"{name:<46} {np.median(walls[name]):>13,.0f} {ratio:>9.1f} "
            f"{np.median(per_cpu[name]):>13,.0f}"
        )
    print(f"(x base: the same-round ratio to {aec}, for learner rows to {single})")
    largest = f"batched B={batch_sizes[-1]} ({n}p)"
    largest_vec = f"learner vs heuristics, VecEnv B={learner_batch_sizes[-1]} ({n}p)"
    for name, base in ((largest, aec), (largest_vec, single)):
        ratios = np.divide(walls[name], walls[base])
        print(
            f"{name} / {base}, per round: "
            + ", ".join(f"{r:.1f}" for r in ratios)
            + f" (median {np.median(ratios):.1f})"
        )


if __name__ == "__main__":
    main()
