"""The names of the weights the compiled Spinner heuristic and expert read
(:mod:`~spinner_env.batched.spinner_heuristic`), in the order it reads them.

``HeuristicWeights.as_array()`` and ``ExpertWeights`` write their weights in this order.
The names sit apart from the compiled code, which imports numba, so that the agents read
them without the train extra.
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
"""The ``HeuristicWeights`` fields in the order the compiled code reads them."""
EXPERT_WEIGHT_NAMES: tuple[str, ...] = ("block_next", "keep_wild", "own_stuck")
"""The expert's own ``ExpertWeights`` fields, read after the heuristic's."""
WEIGHT_NAMES = HEURISTIC_WEIGHT_NAMES + EXPERT_WEIGHT_NAMES
"""Every weight the compiled code reads, in order: a weight array has one entry per name."""
NUM_WEIGHTS = len(WEIGHT_NAMES)

__all__ = ["EXPERT_WEIGHT_NAMES", "HEURISTIC_WEIGHT_NAMES", "NUM_WEIGHTS", "WEIGHT_NAMES"]
