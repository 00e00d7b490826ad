"""Heuristic and expert decisions per second: compiled over batched games vs the agents.

Both choose on positions of random play (every decision with two or more legal actions,
the only ones where they score anything): the compiled
``spinner_heuristic.heuristic_actions`` over the records of B games at once (the expert
is the same code with ``SpinnerExpertWeights``), and ``SpinnerHeuristicAgent.act`` /
``SpinnerExpertAgent.act`` one decision at a time on ``spinner_v0.raw_env``, reading the
reference engine.

``--matches N`` also plays N batched matches of the compiled expert against compiled
heuristics at every other seat (``LearnerBatch``, the expert's seat drawn per match) and
prints its match win rate, to compare with the reference engine's duplicate-deal
evaluation (docs/results/experts.md).

    python bench/bench_heuristic.py                 # 4 players, B = 1024
    python bench/bench_heuristic.py --players 2 --seconds 5 --matches 4000
    python bench/bench_heuristic.py --smoke        # B = 64, 0.1 s per row, 16 matches: it runs
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from spinner_env import spinner_v0
from spinner_env.games.spinner.batched import BatchedSpinner, sample_legal
from spinner_env.games.spinner.batched_heuristic import heuristic_actions
from spinner_env.games.spinner.expert import SpinnerExpertAgent
from spinner_env.games.spinner.heuristic import SpinnerHeuristicAgent
from spinner_env.games.spinner.rules import SpinnerRules


def compiled_rate(
    agent: SpinnerHeuristicAgent, num_players: int, num_games: int, seconds: float
) -> float:
    weights = agent.compiled_weights()
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


def agent_rate(agent: SpinnerHeuristicAgent, num_players: int, seconds: float) -> float:
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


def expert_win_rate(num_players: int, matches: int, seed: int) -> tuple[float, tuple[float, float]]:
    """The compiled expert's match win rate against compiled heuristics at every other
    seat (``spinner_env.train.league.win_rate``: one match per game record, won when its
    match reward is positive, half when all tie), and its 95% Wilson interval."""
    # Imported here: the league module loads torch and SB3, which the speed rows do not need.
    from spinner_env.train.config import TrainConfig
    from spinner_env.train.evaluate import wilson_interval
    from spinner_env.train.league import win_rate

    config = TrainConfig(num_players=num_players, total_timesteps=1)
    rate = win_rate("expert", "heuristic", config, matches, seed)
    return rate, wilson_interval(rate, matches)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1024, help="B, the batch of game records")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed choosing per row")
    parser.add_argument("--matches", type=int, default=0, help="batched expert matches to play")
    parser.add_argument("--smoke", action="store_true", help="B = 64, 0.1 s per row, 16 matches")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.seconds, args.matches = 64, 0.1, 16
    print(f"{args.players} players, decisions with two or more legal actions:")
    for agent in (SpinnerHeuristicAgent(), SpinnerExpertAgent()):
        compiled = compiled_rate(agent, args.players, args.games, args.seconds)
        reference = agent_rate(agent, args.players, args.seconds)
        rows = {
            f"compiled {agent.name} (heuristic_actions), B={args.games}:": compiled,
            f"{type(agent).__name__}.act:": reference,
        }
        for label, rate in rows.items():
            print(f"{label:<45}{rate:>12,.0f} decisions/s")
        print(f"compiled / agent: {compiled / reference:.0f}x")
    if args.matches:
        rate, (low, high) = expert_win_rate(args.players, args.matches, seed=0)
        print(
            f"compiled expert against {args.players - 1} compiled heuristic(s), "
            f"{args.matches} batched matches: won {100 * rate:.1f}% "
            f"[{100 * low:.1f}, {100 * high:.1f}]"
        )


if __name__ == "__main__":
    main()
