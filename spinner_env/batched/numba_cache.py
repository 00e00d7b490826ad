"""Keep numba's on-disk cache of the batched engine in step with its sources.

numba keys a cached function by the source file that defines it, and nothing else. The
compiled modules of this subpackage (``core``, whose shared loops, like ``rollout``'s,
compile the functions each game's rollout module names; Spinner's ``spinner``,
``spinner_heuristic`` and ``spinner_opponents``; Mexican Train's ``mexican_train``,
``mexican_train_opponents``, ``mexican_train_plan`` and ``mexican_train_expert``) inline
each other's functions and freeze tables built in ``tiles``, the ``*_weights`` names, the
rules engines and the envs, so an edit to one of those files would leave the others
running stale compiled code from ``__pycache__``. Each compiled module therefore calls
:func:`drop_stale_cache` when it is imported, before anything is compiled or loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

COMPILED_FROM = (
    "core/tiles.py",
    "spinner.py",
    "spinner_v0.py",
    "mexican_train.py",
    "mexican_train_v0.py",
    "batched/core.py",
    "batched/spinner.py",
    "batched/spinner_heuristic.py",
    "batched/spinner_weights.py",
    "batched/spinner_opponents.py",
    "batched/mexican_train.py",
    "batched/mexican_train_opponents.py",
    "batched/mexican_train_weights.py",
    "batched/mexican_train_plan.py",
    "batched/mexican_train_expert.py",
    "batched/rollout.py",
    "batched/spinner_rollout.py",
    "batched/mexican_train_rollout.py",
)
"""The files (relative to ``spinner_env/``) whose code or tables end up compiled."""


def drop_stale_cache(dispatcher: Any) -> None:
    """Delete the cached compilations of ``dispatcher``'s module (numba keeps them all in
    one folder) if any of :data:`COMPILED_FROM` changed after they were written."""
    path = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if path is None or not Path(path).is_dir():  # not cached, or no JIT (NUMBA_DISABLE_JIT)
        return
    folder = Path(path)
    package = Path(__file__).parent.parent
    newest = max((package / name).stat().st_mtime for name in COMPILED_FROM)
    module = Path(dispatcher.py_func.__code__.co_filename).stem
    try:
        stale = any(
            index.stat().st_mtime < newest for index in folder.glob(f"{module}.*.nbi")
        )
    except FileNotFoundError:  # another process (a pytest-xdist worker) is dropping them
        stale = True
    if stale:
        for stale in folder.glob(f"{module}.*.nb[ic]"):
            stale.unlink(missing_ok=True)
