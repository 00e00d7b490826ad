"""The compiled engine family: many games per call, numba-compiled loops over game records.

- :mod:`~spinner_env.batched.core`: what both games share
  (:class:`~spinner_env.batched.core.BatchedEngine`, its seeds and episodes, ``sample_legal``,
  the random stream, and one compiled loop per job for every game).
- :mod:`~spinner_env.batched.spinner` and :mod:`~spinner_env.batched.mexican_train`: the rules
  of each game as compiled loops, with ``spinner_v0`` / ``mexican_train_v0`` observations,
  masks and rewards (the readable rules stay :mod:`spinner_env.spinner` and
  :mod:`spinner_env.mexican_train`; the tests require both to agree decision by decision).
- ``*_heuristic`` / ``*_opponents``: the baselines compiled, each seat's move inside
  compiled code; ``*_weights``: the names of their weights, without numba (the agents read
  them).
- :mod:`~spinner_env.batched.vector`: the Gymnasium vector envs over them, a learner seat in
  every game (Stable-Baselines3's ``VecEnv`` over the same batch is
  :mod:`spinner_env.train.vec_env`, kept with the training code that loads SB3).
- :mod:`~spinner_env.batched.rollout` (with ``spinner_rollout`` / ``mexican_train_rollout``,
  each game's loader): reference positions played out in compiled code, the search
  players' rollouts; :mod:`~spinner_env.batched.policy_rollout`: the same positions
  played out by a policy network, one forward pass a step for all of them.
- :mod:`~spinner_env.batched.numba_cache`: keeps numba's on-disk cache in step with its sources.

Importing this package loads nothing; each module imports numba when it is imported, so
users of the environments alone never load it. The names below are exported lazily:
``from spinner_env.batched import SpinnerVectorEnv`` imports its module (and numba) then.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BatchedMexicanTrain": "spinner_env.batched.mexican_train",
    "BatchedRollouts": "spinner_env.batched.rollout",
    "BatchedSpinner": "spinner_env.batched.spinner",
    "BatchedVectorEnv": "spinner_env.batched.vector",
    "LearnerBatch": "spinner_env.batched.vector",
    "MexicanTrainVectorEnv": "spinner_env.batched.vector",
    "SpinnerVectorEnv": "spinner_env.batched.vector",
    "as_batched": "spinner_env.batched.vector",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = sorted(_EXPORTS)
