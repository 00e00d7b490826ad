"""Decisions per second of the batched engine on 1 core and on several: one engine per process.

Each process steps its own engine of B games with random legal actions (the loop of
``bench_speed.play_batched``), all processes starting together once every one has
compiled and made a first step; the row's rate is the sum over its processes. One engine
per process needs no shared state and no locks, so the speed-up is the machine's: on a
quiet machine with N free cores it approaches N. The rows run in rounds (every row once per
round) and the speed-up is the median of the same-round ratios to the one-process row.

    python bench/bench_cores.py             # Spinner, 2 players, B = 1024, 1 and 2 processes
    python bench/bench_cores.py --game mexican_train --players 4 --processes 1 2 4
    python bench/bench_cores.py --smoke     # 1 round of 0.2 s, B = 64
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
from collections.abc import Sequence
from typing import Any

from bench_speed import play_batched

from spinner_env.games import GAMES, game_spec


def _play(game: str, players: int, num_games: int, seconds: float, seed: int, ready: Any) -> dict:
    """One process's share: compile, wait for the others, play for ``seconds``."""
    spec = game_spec(game)
    engine = spec.engine()(num_games, spec.rules_class(num_players=players))
    play_batched(engine, at_least=num_games, seed=seed)  # compiled and loaded: off the clock
    ready.wait()
    return play_batched(engine, seconds=seconds, seed=seed)


def parallel_rate(
    game: str, players: int, num_games: int, processes: int, seconds: float, seed: int = 0
) -> float:
    """Decisions per second of ``processes`` engines stepped at once, one per process."""
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        ready = manager.Barrier(processes)
        with context.Pool(processes) as pool:
            jobs = [
                pool.apply_async(_play, (game, players, num_games, seconds, seed + k, ready))
                for k in range(processes)
            ]
            return sum(job.get()["decisions_per_s"] for job in jobs)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="spinner")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=1024, help="B, per process")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=5.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="1 round of 0.2 s, B = 64")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.seconds, args.rounds = 64, 0.2, 1
    if 1 not in args.processes:
        parser.error("--processes must include 1: the speed-ups are against it")
    rates: dict[int, list[float]] = {p: [] for p in args.processes}
    for _ in range(args.rounds):
        for processes in args.processes:
            rate = parallel_rate(args.game, args.players, args.games, processes, args.seconds)
            rates[processes].append(rate)
    print(
        f"{args.game}, {args.players} players, B = {args.games} per process, "
        f"{args.rounds} round(s) of {args.seconds:g} s; cpu: {os.cpu_count()} logical, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'processes':>9}  {'decisions/s':>12}  {'x 1 process':>11}")
    for processes, row in rates.items():
        ratios = [r / one for r, one in zip(row, rates[1], strict=True)]
        print(
            f"{processes:>9}  {statistics.median(row):>12,.0f}  {statistics.median(ratios):>11.2f}"
            f"   per round: {', '.join(f'{r:.2f}' for r in ratios)}"
        )


if __name__ == "__main__":
    main()
