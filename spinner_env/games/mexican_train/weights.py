"""The names of the weights the compiled Mexican Train heuristic
(:mod:`~spinner_env.games.mexican_train.batched_players`) and expert
(:mod:`~spinner_env.games.mexican_train.batched_expert`) read, in the order they read them,
and the plan search's budget, which the expert and its compiled twin share.

``MexicanTrainWeights.as_array()`` and ``MexicanTrainExpertWeights.as_array()`` write their
weights in these orders. The names sit apart
from the compiled code, which imports numba, so that the agents read them without the
train extra.
"""

from __future__ import annotations

CHAIN_SEARCH_NODES = 3000
"""How many partial chains the plan search visits at most (a hand of 15 rarely needs 200),
in :mod:`~spinner_env.games.mexican_train.expert` and its compiled twin alike."""

WEIGHT_NAMES: tuple[str, ...] = (
    "points",
    "late_points",
    "late_hand_size",
    "own_train",
    "lift_marker",
    "double_followed",
    "double_trap",
    "own_end_fits",
    "end_void_next",
)
"""The ``MexicanTrainWeights`` fields in the order the compiled code reads them."""
NUM_WEIGHTS = len(WEIGHT_NAMES)
EXPERT_WEIGHT_NAMES: tuple[str, ...] = (
    "orphan",
    "stranded",
    "points",
    "late_points",
    "late_hand_size",
    "exposed",
    "marked_train",
    "block_next",
)
"""The ``MexicanTrainExpertWeights`` fields in the order the compiled expert reads them."""
NUM_EXPERT_WEIGHTS = len(EXPERT_WEIGHT_NAMES)

__all__ = ["EXPERT_WEIGHT_NAMES", "NUM_EXPERT_WEIGHTS", "NUM_WEIGHTS", "WEIGHT_NAMES"]
