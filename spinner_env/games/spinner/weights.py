"""The names of the weights the compiled Spinner heuristic and expert read
(:mod:`~spinner_env.games.spinner.batched_heuristic`), in the order it reads them.

``SpinnerWeights.as_array()`` and ``SpinnerExpertWeights`` write their weights in this order.
The names sit apart from the compiled code, which imports numba, so that the agents read
them without the train extra.

After the players' own weights come the *phase* weights, which no hand-written player
has (``as_array()`` writes them as 0) and policy iteration learns
(``spinner_env.train.policy_iteration``): how much each consideration's weight changes as
the hand nears its end. ``late_<name>`` adds to weight ``<name>`` its value times the
*lateness*, the share by which the smallest opposing hand is under ``late_hand_size``
(0 at that size, 1 at one tile: where ``late_points`` already adds to ``points``);
``own_late_<name>`` adds its value times the same share of the player's own hand.
A player's score of a move stays linear in every weight but ``late_hand_size``.
"""

from __future__ import annotations

HEURISTIC_WEIGHT_NAMES: tuple[str, ...] = (
    "points",
    "late_points",
    "late_hand_size",
    "double",
    "trap_next",
    "fill_own_double",
    "variety",
    "follow_open",
    "open_void_next",
    "open_wild",
)
"""The ``SpinnerWeights`` fields in the order the compiled code reads them."""
EXPERT_WEIGHT_NAMES: tuple[str, ...] = ("block_next", "keep_wild", "own_stuck")
"""The expert's own ``SpinnerExpertWeights`` fields, read after the heuristic's."""
WEIGHT_NAMES = HEURISTIC_WEIGHT_NAMES + EXPERT_WEIGHT_NAMES
"""Every weight of the hand-written players (``SpinnerExpertWeights``' fields), in order."""
_NOT_PHASED = ("late_points", "late_hand_size")
"""``late_points`` is ``points``' phase weight already; ``late_hand_size`` sets the phase."""
LATE_WEIGHT_NAMES: tuple[str, ...] = tuple(
    f"late_{name}" for name in WEIGHT_NAMES if name not in ("points", *_NOT_PHASED)
)
"""Each weight's change per unit of lateness (the opponents' hands)."""
OWN_LATE_WEIGHT_NAMES: tuple[str, ...] = tuple(
    f"own_late_{name}" for name in WEIGHT_NAMES if name not in _NOT_PHASED
)
"""Each weight's change per unit of the player's own hand's lateness."""
PHASE_WEIGHT_NAMES = LATE_WEIGHT_NAMES + OWN_LATE_WEIGHT_NAMES
COMPILED_WEIGHT_NAMES = WEIGHT_NAMES + PHASE_WEIGHT_NAMES
"""Every weight the compiled code reads, in order: a weight array has one entry per name."""
NUM_WEIGHTS = len(COMPILED_WEIGHT_NAMES)

__all__ = [
    "COMPILED_WEIGHT_NAMES",
    "EXPERT_WEIGHT_NAMES",
    "HEURISTIC_WEIGHT_NAMES",
    "LATE_WEIGHT_NAMES",
    "NUM_WEIGHTS",
    "OWN_LATE_WEIGHT_NAMES",
    "PHASE_WEIGHT_NAMES",
    "WEIGHT_NAMES",
]
