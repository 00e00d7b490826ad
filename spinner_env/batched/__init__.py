"""The compiled engine family: many games per call, numba-compiled loops over game records.

- :mod:`~spinner_env.batched.core`: what every game shares
  (:class:`~spinner_env.batched.core.BatchedEngine`, its seeds and episodes, ``sample_legal``,
  the random stream, and one compiled loop per job for every game).
- Each game's ``batched.py`` in its package (:mod:`spinner_env.games.spinner.batched`):
  its rules as compiled loops, with its env's observations, masks and rewards, next to the
  readable rules engine it is held to decision by decision; its ``batched_players.py``:
  the baselines compiled, each seat's move inside compiled code.
- :mod:`~spinner_env.batched.vector`: the Gymnasium vector envs over them, a learner seat in
  every game (Stable-Baselines3's ``VecEnv`` over the same batch is
  :mod:`spinner_env.train.vec_env`, kept with the training code that loads SB3).
- :mod:`~spinner_env.batched.rollout` (with each game's loader, its ``rollout.py``):
  reference positions played out in compiled code, the search players' rollouts;
  :mod:`~spinner_env.batched.policy_rollout`: the same positions played out by a policy
  network, one forward pass a step for all of them.
- :mod:`~spinner_env.batched.numba_cache`: keeps numba's on-disk cache in step with its sources.

Importing this package loads nothing; each module imports numba when it is imported, so
users of the environments alone never load it. The names below are exported lazily:
``from spinner_env.batched import SpinnerVectorEnv`` imports its module (and numba) then.
"""

from __future__ import annotations

import importlib
from typing import Any

from spinner_env.games import GAMES

_VECTOR = "spinner_env.batched.vector"
_EXPORTS = {
    "BatchedRollouts": "spinner_env.batched.rollout",
    "BatchedVectorEnv": _VECTOR,
    "LearnerBatch": _VECTOR,
    "as_batched": _VECTOR,
}
for _game in GAMES.values():  # each game's engine (BatchedSpinner) and vector env
    _module, _, _engine = _game.engine_path.partition(":")
    _EXPORTS[_engine] = _module
    _EXPORTS[_game.class_prefix + "VectorEnv"] = _VECTOR


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = sorted(_EXPORTS)
