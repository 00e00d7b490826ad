"""Fuzz the state readers and the environments: no exception but ValueError, ever.

For each base state (a random match of random rules, both games, 2 to 8 players in
turn, played by random legal moves for a random while) the script reads damaged copies
of its dict (``spinner_env.mutation.mutate``: odd values, nudged integers, entries
deleted, duplicated, swapped or moved between lists) through ``from_dict``, and plays
every one that is accepted to the end of the match (first through the raw env's
``reset(options={"game": ...})``, then the engine, with random legal moves). It also
steps a raw env with random actions: legal ids as numpy integers and 0-d arrays, illegal
and out-of-range ids, floats, bools, strings, lists. Any exception other than
ValueError is counted and its base index printed: ``--first INDEX --bases 1`` replays it.

    python bench/fuzz.py                  # the README's figure (18 minutes on 2 shared cores)
    python bench/fuzz.py --short          # a smoke run of a few seconds
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

from spinner_env.games import GAMES
from spinner_env.mutation import (
    PLAYER_COUNTS,
    check_mutant,
    mutate,
    odd_actions,
    random_state,
)


@dataclass
class Tally:
    mutants: int = 0
    refused: int = 0
    accepted: int = 0
    decisions: int = 0
    odd_actions: int = 0
    odd_refused: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def inputs(self) -> int:
        """Everything handed to the code under test: mutants, decisions, odd actions."""
        return self.mutants + self.decisions + self.odd_actions


def fuzz_base(index: int, seed: int, mutants: int, actions: int, tally: Tally) -> None:
    """One base state, its mutants and its odd actions; failures go to the tally."""
    rng = random.Random(f"{seed}-{index}")
    game = list(GAMES.values())[index % len(GAMES)]
    num_players = PLAYER_COUNTS[(index // len(GAMES)) % len(PLAYER_COUNTS)]

    def failed(err: Exception) -> None:  # the finding: anything but ValueError
        tally.failures[f"{type(err).__name__} ({game.name}, {num_players}p)"] += 1
        if sum(tally.failures.values()) <= 5:
            print(f"base {index}: {type(err).__name__}: {err}", file=sys.stderr)
            traceback.print_exc()

    base = random_state(game, num_players, rng).to_dict()
    for _ in range(mutants):
        tally.mutants += 1
        try:
            tally.decisions += check_mutant(game, mutate(base, rng), rng)
            tally.accepted += 1
        except ValueError:
            tally.refused += 1
        except Exception as err:
            failed(err)
    env = game.raw_env(num_players=num_players)
    env.reset(seed=rng.randrange(2**32))
    tally.odd_actions += actions
    try:
        tally.odd_refused += odd_actions(env, rng, actions)
    except Exception as err:
        failed(err)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--bases", type=int, default=2_800, help="base states (200 per game and player count)"
    )
    parser.add_argument("--mutants", type=int, default=40, help="damaged copies per base")
    parser.add_argument("--actions", type=int, default=40, help="random env actions per base")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first base")
    parser.add_argument("--short", action="store_true", help="28 bases: a smoke run")
    args = parser.parse_args(argv)
    bases = 28 if args.short else args.bases
    if min(bases, args.mutants, args.actions) < 0 or bases == 0:
        parser.error("--bases must be positive, --mutants and --actions not negative")
    tally = Tally()
    start = time.perf_counter()
    for index in range(args.first, args.first + bases):
        fuzz_base(index, args.seed, args.mutants, args.actions, tally)
    elapsed = time.perf_counter() - start
    failures = sum(tally.failures.values())
    print(
        f"{bases} base states (Spinner and Mexican Train, 2-8 players), {elapsed:.0f} s\n"
        f"  mutated states read:  {tally.mutants:>10,}  refused with ValueError "
        f"{tally.refused:,}, accepted and played to the end {tally.accepted:,}\n"
        f"  decisions played:     {tally.decisions:>10,}\n"
        f"  random env actions:   {tally.odd_actions:>10,}  refused with ValueError "
        f"{tally.odd_refused:,}\n"
        f"  inputs in all:        {tally.inputs:>10,}  ({tally.inputs / elapsed:,.0f} per s)\n"
        f"  other exceptions:     {failures:>10,}"
    )
    for name, count in tally.failures.most_common():
        print(f"    {count:,} x {name}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
