"""The names of the weights the compiled Mexican Train heuristic reads
(:mod:`~spinner_env.batched.mexican_train_opponents`), in the order it reads them.

``MexicanTrainWeights.as_array()`` writes its weights in this order. The names sit apart
from the compiled code, which imports numba, so that the agents read them without the
train extra.
"""

from __future__ import annotations

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

__all__ = ["NUM_WEIGHTS", "WEIGHT_NAMES"]
