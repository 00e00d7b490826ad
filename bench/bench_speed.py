"""Decisions per second of masked random play: spinner_v0 and the batched engine vs peers.

One run, one machine, one core: every row plays full matches (episodes) with uniformly
random legal actions and reads an observation and an action mask at every decision.

1. ``spinner_v0`` through the PettingZoo AEC loop (``bench_aec.random_play_rate``);
2. the batched engine (``spinner_env.batched``) at B = 1, 64, 1024, 8192;
3. PettingZoo's ``connect_four_v3`` through the same AEC loop;
4. OpenSpiel's ``python_block_dominoes`` (``pip install -e .[bench]``), with
   ``observation_tensor`` and ``legal_actions_mask`` at every decision.

Each row's rate is then given as a multiple of rows 3 and 4; the peak memory per game of
the batched engine at B = 8192 closes the table.

    python bench/bench_speed.py                  # 2 players, 5 s per row
    python bench/bench_speed.py --players 4 --seconds 10
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from bench_aec import random_play_rate

from spinner_env.batched import GAME, BatchedSpinner, sample_legal
from spinner_env.spinner import SpinnerRules

BATCH_SIZES = (1, 64, 1024, 8192)


def batched_rate(num_players: int, num_games: int, seconds: float, seed: int = 0) -> dict:
    """Step B games with random legal actions for about ``seconds`` (compiled beforehand)."""
    engine = BatchedSpinner(num_games, SpinnerRules(num_players=num_players))
    rng = np.random.default_rng(seed)
    step = engine.reset(seed)
    engine.step(sample_legal(step.mask, rng.random(num_games)))  # compile outside the clock
    decisions = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        step = engine.step(sample_legal(step.mask, rng.random(num_games)))
        decisions += num_games
        episodes += int(step.done.sum())
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "episodes": episodes}


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
    return {"decisions_per_s": decisions / elapsed, "episodes": episodes}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3

    from spinner_env import spinner_v0

    rows: list[tuple[str, float]] = []
    aec = random_play_rate(lambda: spinner_v0.env(num_players=args.players), args.seconds)
    rows.append((f"spinner_v0 AEC ({args.players}p)", aec["decisions_per_s"]))
    for b in BATCH_SIZES:
        stats = batched_rate(args.players, b, args.seconds)
        rows.append((f"batched B={b} ({args.players}p)", stats["decisions_per_s"]))
    c4 = random_play_rate(connect_four_v3.env, args.seconds)["decisions_per_s"]
    rows.append(("connect_four_v3 AEC", c4))
    os_stats = open_spiel_rate(args.seconds)
    dominoes = os_stats["decisions_per_s"] if os_stats else float("nan")
    rows.append(("open_spiel python_block_dominoes", dominoes))

    print(f"cpu: {os.cpu_count()} logical, load average {os.getloadavg()[0]:.1f}")
    print(f"{'env':<34} {'decisions/s':>13} {'x connect4':>11} {'x dominoes':>11}")
    for name, rate in rows:
        print(f"{name:<34} {rate:>13,.0f} {rate / c4:>11.2f} {rate / dominoes:>11.2f}")
    if os_stats is None:
        print("(open_spiel is not installed: pip install -e '.[bench]')")
    batched_8192 = rows[len(BATCH_SIZES)][1]
    print(f"batched B=8192 / spinner_v0 AEC: {batched_8192 / aec['decisions_per_s']:.0f}x")
    peak, held = peak_bytes_per_game(args.players, BATCH_SIZES[-1])
    print(
        f"batched B=8192 memory per game: {held:,.0f} bytes held (state + outputs), "
        f"{peak:,.0f} bytes traced peak while stepping"
    )


if __name__ == "__main__":
    main()
