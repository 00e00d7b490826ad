"""Decisions per second of masked random play: our AEC envs and the batched engine vs peers.

One run, one machine, one core: every row plays full matches (episodes) with uniformly
random legal actions and reads an observation and an action mask at every decision.

1. ``spinner_v0`` and ``mexican_train_v0`` through the PettingZoo AEC loop
   (``bench_aec.random_play_rate``);
2. the batched engine (``spinner_env.games.spinner.batched``) at B = 1, 64, 1024, 8192;
3. PettingZoo's ``connect_four_v3`` through the same AEC loop (it needs pygame);
4. OpenSpiel's ``python_block_dominoes``, with ``observation_tensor`` and
   ``legal_actions_mask`` at every decision.

The peers come with the ``bench`` extra (``pip install -e .[bench]``); a peer that is not
installed gives an empty row.

The rows run in rounds (every row once per round, so that a slow spell of a shared
machine falls on all rows alike). Each rate is the median over rounds, also given per
second of this process's CPU time; each ratio to rows 3 and 4 is the median of the
same-round ratios, and the key ratios are printed round by round. The peak memory per
game of the batched engine at B = 8192 closes the table.

    python bench/bench_speed.py                  # 2 players, 3 rounds of 3 s per row
    python bench/bench_speed.py --players 4 --seconds 10 --repeats 5
    python bench/bench_speed.py --smoke          # 1 round of 0.1 s, B up to 64: does it run
"""

from __future__ import annotations

import argparse
import math
import os
import time
import tracemalloc
from collections.abc import Callable, Sequence

import numpy as np
from bench_aec import random_play_rate

from spinner_env.batched.core import BatchedEngine
from spinner_env.games.spinner.batched import GAME, BatchedSpinner, sample_legal
from spinner_env.games.spinner.rules import SpinnerRules

BATCH_SIZES = (1, 64, 1024, 8192)


def play_batched(
    engine: BatchedEngine, at_least: float = math.inf, seconds: float = math.inf, seed: int = 0
) -> dict:
    """Step every game of a batched engine (either game's) with random legal actions until
    ``at_least`` decisions or ``seconds`` (whichever comes first; one step is compiled and
    made beforehand, off the count)."""
    num_games = engine.num_games
    rng = np.random.default_rng(seed)
    step = engine.reset(seed)
    step = engine.step(sample_legal(step.mask, rng.random(num_games)))
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while decisions < at_least and time.perf_counter() < deadline:
        step = engine.step(sample_legal(step.mask, rng.random(num_games)))
        decisions += num_games
        episodes += int(step.done.sum())
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "decisions": decisions, "episodes": episodes}


def connect_four_rate(seconds: float) -> dict | None:
    """PettingZoo's connect_four_v3 through the AEC loop; None without pygame."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    return random_play_rate(connect_four_v3.env, seconds)


def open_spiel_rate(seconds: float, seed: int = 0) -> dict | None:
    """OpenSpiel's python_block_dominoes: tensor and mask at every decision, chance sampled."""
    try:
        import pyspiel
        from open_spiel.python.games import block_dominoes  # noqa: F401  (registers the game)
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")
    rng = np.random.default_rng(seed)
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            np.asarray(state.observation_tensor(player), np.float32)
            legal = np.flatnonzero(state.legal_actions_mask(player))
            state.apply_action(int(legal[rng.integers(len(legal))]))
            decisions += 1
        episodes += 1
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "decisions": decisions, "episodes": episodes}


def peak_bytes_per_game(num_players: int, num_games: int, steps: int = 200) -> tuple[float, float]:
    """(peak traced bytes per game while stepping, bytes per game of state + outputs)."""
    tracemalloc.start()
    engine = BatchedSpinner(num_games, SpinnerRules(num_players=num_players))
    rng = np.random.default_rng(0)
    step = engine.reset(0)
    for _ in range(steps):
        step = engine.step(sample_legal(step.mask, rng.random(num_games)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    held = GAME.itemsize + sum(a.nbytes for a in step) / num_games
    return peak / num_games, held


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="per run")
    parser.add_argument(
        "--repeats", type=int, default=3, help="rounds (every row runs once per round)"
    )
    parser.add_argument("--smoke", action="store_true", help="1 round of 0.1 s, B = 1 and 64")
    args = parser.parse_args(argv)
    batch_sizes = BATCH_SIZES
    if args.smoke:
        args.seconds, args.repeats, batch_sizes = 0.1, 1, BATCH_SIZES[:2]
    from spinner_env import mexican_train_v0, spinner_v0

    n, seconds = args.players, args.seconds
    aec, mexican_train, c4, dominoes = (
        f"spinner_v0 AEC ({n}p)",
        f"mexican_train_v0 AEC ({n}p)",
        "connect_four_v3 AEC",
        "open_spiel python_block_dominoes",
    )
    runs: dict[str, Callable[[], dict | None]] = {
        aec: lambda: random_play_rate(lambda: spinner_v0.env(num_players=n), seconds),
        mexican_train: lambda: random_play_rate(
            lambda: mexican_train_v0.env(num_players=n), seconds
        ),
    }
    for b in batch_sizes:
        runs[f"batched B={b} ({n}p)"] = lambda b=b: play_batched(
            BatchedSpinner(b, SpinnerRules(num_players=n)), seconds=seconds
        )
    runs[c4] = lambda: connect_four_rate(seconds)
    runs[dominoes] = lambda: open_spiel_rate(seconds)

    # Rounds of every row in turn, so that a slow spell of the shared machine falls on
    # all rows alike; rates are medians over rounds, ratios medians of same-round ratios.
    walls: dict[str, list[float]] = {name: [] for name in runs}
    per_cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            cpu = time.process_time()
            stats = run()
            cpu = time.process_time() - cpu
            walls[name].append(math.nan if stats is None else stats["decisions_per_s"])
            per_cpu[name].append(math.nan if stats is None else stats["decisions"] / cpu)

    def median_ratio(name: str, base: str) -> float:
        return float(np.median(np.divide(walls[name], walls[base])))

    print(f"cpu: {os.cpu_count()} logical, load average {os.getloadavg()[0]:.1f}")
    print(
        f"{'env':<34} {'decisions/s':>13} {'x connect4':>11} {'x dominoes':>11} {'per CPU s':>13}"
    )
    for name in runs:
        print(
            f"{name:<34} {np.median(walls[name]):>13,.0f} {median_ratio(name, c4):>11.2f} "
            f"{median_ratio(name, dominoes):>11.2f} {np.median(per_cpu[name]):>13,.0f}"
        )
    for peer, package in ((c4, "pygame"), (dominoes, "open_spiel")):
        if math.isnan(walls[peer][0]):
            print(f"({peer}: {package} is not installed: pip install -e '.[bench]')")
    largest = f"batched B={batch_sizes[-1]} ({n}p)"
    for name, base in ((aec, c4), (mexican_train, c4), (aec, dominoes), (largest, aec)):
        ratios = np.divide(walls[name], walls[base])
        print(
            f"{name} / {base}, per round: "
            + ", ".join(f"{r:.2f}" for r in ratios)
            + f" (median {np.median(ratios):.2f})"
        )
    peak, held = peak_bytes_per_game(args.players, batch_sizes[-1])
    print(
        f"batched B={batch_sizes[-1]} memory per game: {held:,.0f} bytes held (state + outputs), "
        f"{peak:,.0f} bytes traced peak while stepping"
    )


if __name__ == "__main__":
    main()
