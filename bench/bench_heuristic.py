"""Heuristic decisions per second: compiled over batched games vs ``HeuristicAgent.act``.

Both choose on positions of random play (every decision with two or more legal actions,
the only ones where the heuristic scores anything): the compiled
``batched_heuristic.heuristic_actions`` over the records of B games at once, and the agent
one decision at a time on ``spinner_v0.raw_env``, reading the reference engine.

    python bench/bench_heuristic.py                 # 4 players, B = 1024
    python bench/bench_heuristic.py --players 2 --seconds 5
    python bench/bench_heuristic.py --smoke        # B = 64, 0.1 s per row: a check that it runs
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
from spinner_env.agents.heuristic import HeuristicAgent

from spinner_env import spinner_v0
from spinner_env.batched.spinner import BatchedSpinner, sample_legal
from spinner_env.batched.spinner_heuristic import heuristic_actions
from spinner_env.spinner import SpinnerRules


def compiled_rate(num_players: int, num_games: int, seconds: float) -> float:
    weights = HeuristicAgent().weights.as_array()
    engine = BatchedSpinner(num_games, SpinnerRules(num_players=num_players))
    rng = np.random.default_rng(0)
    step = engine.reset(0)
    heuristic_actions(engine.games, num_players, step.mask, weights)  # compiled off the clock
    decisions, clock = 0, 0.0
    while clock < seconds:
        choice = np.flatnonzero((step.mask != 0).sum(axis=1) > 1)
        games, masks = engine.games[choice], step.mask[choice]
        start = time.perf_counter()
        heuristic_actions(games, num_players, masks, weights)
        clock += time.perf_counter() - start
        decisions += len(choice)
        step = engine.step(sample_legal(step.mask, rng.random(num_games)))
    return decisions / clock


def agent_rate(num_players: int, seconds: float) -> float:
    agent = HeuristicAgent()
    env = spinner_v0.raw_env(num_players=num_players)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    decisions, clock = 0, 0.0
    while clock < seconds:
        if all(env.terminations.values()):
            env.reset(seed=decisions)
        view = env.observe(env.agent_selection)
        legal = np.flatnonzero(view["action_mask"])
        if len(legal) > 1:
            start = time.perf_counter()
            agent.act(view["observation"], view["action_mask"], env)
            clock += time.perf_counter() - start
            decisions += 1
        env.step(int(rng.choice(legal)))
    return decisions / clock


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1024, help="B, the batch of game records")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed choosing per row")
    parser.add_argument("--smoke", action="store_true", help="B = 64, 0.1 s per row")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.seconds = 64, 0.1
    compiled = compiled_rate(args.players, args.games, args.seconds)
    agent = agent_rate(args.players, args.seconds)
    print(f"{args.players} players, decisions with two or more legal actions:")
    print(f"compiled heuristic_actions, B={args.games}: {compiled:>12,.0f} decisions/s")
    print(f"HeuristicAgent.act:                  {agent:>12,.0f} decisions/s")
    print(f"compiled / agent: {compiled / agent:.0f}x")


if __name__ == "__main__":
    main()
