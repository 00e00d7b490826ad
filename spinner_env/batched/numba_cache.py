"""Keep numba's on-disk cache of the batched engine in step with its sources.

numba keys a cached function by the source file that defines it, and nothing else. The
compiled modules (this subpackage's ``core`` and ``rollout``, whose shared loops compile
the functions each game names, and each game's ``batched*.py`` and ``rollout.py``) inline
each other's functions and freeze tables built in the core, the games' rules engines,
encodings and weights' names, so an edit to one of those files would leave the others
running stale compiled code from ``__pycache__``. Each compiled module therefore calls
:func:`drop_stale_cache` when it is imported, before anything is compiled or loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

COMPILED_FROM = ("core", "games", "batched")
"""The folders (of ``spinner_env/``) whose code or tables end up compiled: every Python
file below them counts, a game's drawing too, which costs a recompile and nothing else."""


def drop_stale_cache(dispatcher: Any) -> None:
    """Delete the cached compilations of ``dispatcher``'s module (numba keeps them all in
    one folder) if any of :data:`COMPILED_FROM` changed after they were written."""
    path = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if path is None or not Path(path).is_dir():  # not cached, or no JIT (NUMBA_DISABLE_JIT)
        return
    folder = Path(path)
    package = Path(__file__).parent.parent
    newest = max(
        source.stat().st_mtime
        for folder_name in COMPILED_FROM
        for source in (package / folder_name).rglob("*.py")
    )
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
