"""The check every example makes: what a seat was credited equals the game's outcome.

A ``spinner_v0`` match pays each seat its zero-sum outcome when the match ends
(``spinner_env.aec.zero_sum_outcome`` of the match totals), to every seat at once,
whichever seat made the last move. The seat's final observation shows the totals (by
seat relative to the observer, / 100), so an example can check, episode by episode, that
the rewards a library credited to a seat add up to that seat's outcome.
"""

from __future__ import annotations

import numpy as np

from spinner_env.aec import zero_sum_outcome
from spinner_env.spinner_v0 import OBSERVATION_SLICES


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
