"""What the examples share: their command line, and the check every one of them makes.

The check: what a library credited a seat equals the game's outcome. A ``spinner_v0``
match pays each seat its zero-sum outcome when the match ends
(``spinner_env.core.encoding.zero_sum_outcome`` of the match totals), to every seat at once,
whichever seat made the last move. The seat's final observation shows the totals (by
seat relative to the observer, / 100), so an example can check, episode by episode, that
the rewards a library credited to a seat add up to that seat's outcome.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from spinner_env.core.encoding import zero_sum_outcome
from spinner_env.games.spinner.encoding import OBSERVATION_SLICES
from spinner_env.games.spinner.rules import SpinnerRules

ArgsT = TypeVar("ArgsT")


def parse_args(args_class: type[ArgsT], argv: Sequence[str] | None, doc: str) -> ArgsT:
    """An example's ``Args`` dataclass from the command line (``--num-envs 8``): one flag
    per field, its default the field's. Counts must be positive and the game's arguments
    valid; else one line on stderr and exit status 2."""
    defaults = args_class()
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for field in dataclasses.fields(defaults):
        default = getattr(defaults, field.name)
        parser.add_argument(
            f"--{field.name.replace('_', '-')}", type=type(default), default=default
        )
    args = args_class(**vars(parser.parse_args(argv)))
    for name, value in vars(args).items():
        if isinstance(value, int) and name != "seed" and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    try:
        SpinnerRules(num_players=args.num_players, num_hands=args.num_hands)
    except ValueError as error:
        parser.error(str(error))
    return args


def report(stats: dict[str, Any]) -> int:
    """Print a run's check; the exit status: 0 if no illegal move and no mismatch."""
    print(
        f"{stats['decisions']} decisions, {stats['illegal']} illegal, "
        f"{len(stats['outcomes'])} seat-episodes, {stats['mismatches']} credited != outcome"
    )
    return int(stats["illegal"] > 0 or stats["mismatches"] > 0)


def match_outcomes(final_observation: np.ndarray) -> list[float]:
    """Every seat's match reward, by seat relative to the observer (the observer first),
    from a ``spinner_v0`` observation at the end of the match."""
    num_players = round(float(np.sum(final_observation[OBSERVATION_SLICES["seats"]])))
    totals = np.rint(final_observation[OBSERVATION_SLICES["totals"]][:num_players] * 100)
    return zero_sum_outcome([int(t) for t in totals])


def seat_outcome(final_observation: np.ndarray) -> float:
    """The observing seat's match reward, from its ``spinner_v0`` observation at the end."""
    return match_outcomes(final_observation)[0]


def count_mismatches(credited: list[float], outcomes: list[float]) -> int:
    """Seat-episodes whose credited rewards differ from the outcome (to 1e-6)."""
    if len(credited) != len(outcomes):
        raise ValueError(f"{len(credited)} credited returns for {len(outcomes)} outcomes")
    return sum(abs(c - o) > 1e-6 for c, o in zip(credited, outcomes, strict=True))
