"""Steps per second of random play through OpenSpiel's API: ``python_spinner`` and
``python_mexican_train`` (our bridge, :mod:`spinner_env.openspiel`) next to OpenSpiel's own
``python_block_dominoes`` in the same run.

Every row plays random matches of 2 players with the OpenSpiel calls an algorithm makes:
at a chance node ``chance_outcomes()`` and a sampled outcome, at a decision
``legal_actions()`` and ``information_state_tensor()`` of the seat to act, then
``apply_action``; a step is one ``apply_action`` (chance or decision). Spinner plays
whole 10-hand matches, Mexican Train 13-round ones, block dominoes its one hand. The
rows run in rounds (each row once a round); a rate is the median over rounds and a ratio to
``python_block_dominoes`` the median of the same-round ratios.

    python bench/bench_openspiel.py            # 5 rounds of 2 s per row
    python bench/bench_openspiel.py --smoke    # 1 round of 0.1 s: does it run
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

import pyspiel
from open_spiel.python.games import block_dominoes  # noqa: F401  (registers it)

import spinner_env.openspiel  # noqa: F401  (registers ours)

GAMES = ("python_spinner", "python_mexican_train", "python_block_dominoes")
PEER = "python_block_dominoes"


def random_play_rate(game: pyspiel.Game, seconds: float, seed: int = 0) -> float:
    """OpenSpiel-API steps per second of random play, whole matches (module docstring)."""
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
            else:
                state.information_state_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="1 round of 0.1 s per row")
    args = parser.parse_args(argv)
    if args.smoke:
        args.seconds, args.rounds = 0.1, 1
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    games = {name: pyspiel.load_game(name) for name in GAMES}
    rates: dict[str, list[float]] = {name: [] for name in GAMES}
    for round_number in range(args.rounds):
        for name, game in games.items():
            rates[name].append(random_play_rate(game, args.seconds, seed=round_number))
    print(f"OpenSpiel-API random play, 2 players ({args.rounds} rounds of {args.seconds:g} s)")
    print(f"{'game':24} {'steps/s':>10} {'/ ' + PEER:>28}")
    for name in GAMES:
        ratio = statistics.median(r / p for r, p in zip(rates[name], rates[PEER], strict=True))
        print(f"{name:24} {statistics.median(rates[name]):10,.0f} {ratio:27.2f}x")


if __name__ == "__main__":
    main()
