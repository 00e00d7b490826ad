"""Writing files so that an interrupted run never leaves a half-written one.

Every file the project writes (checkpoints, configs, reports, saved games, pictures)
goes through :func:`atomic_write`: the bytes go to a temporary file in the same folder,
are flushed to disk, and only then replace the target in one ``os.replace``. A reader
sees the old file or the new one, never a truncated mix. And a command's run never
silently replaces another: :func:`prepare_out_dir`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_read_umask()
"""What ``open()`` would give a new file: ``mkstemp`` makes its files private (0600)."""


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", **open_kwargs: Any) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``.

    ``mode`` is ``"w"`` (text, UTF-8 unless ``encoding`` is given) or ``"wb"``. If the
    body raises, the temporary file is removed and ``path`` is left as it was.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode 'w' or 'wb', got {mode!r}")
    target = Path(path)
    if mode == "w":
        open_kwargs.setdefault("encoding", "utf-8")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        # A replaced file keeps its permissions; a new one gets open()'s.
        os.chmod(fd, target.stat().st_mode & 0o7777 if target.exists() else _NEW_FILE_MODE)
        with os.fdopen(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step."""
    with atomic_write(path, "w") as f:
        f.write(text)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step."""
    with atomic_write(path, "wb") as f:
        f.write(data)


def prepare_out_dir(
    out: Path,
    overwrite: bool,
    marker: str,
    what: str,
    how: str = "pass --overwrite to replace its run",
) -> None:
    """Check a command's output directory before any work: one that exists and is not
    empty is refused (ValueError, saying ``how`` to go on) unless ``overwrite``, and then
    only if it holds an earlier ``what`` (its ``marker`` file), which is deleted; anything
    else is left alone."""
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not overwrite:
        raise ValueError(f"the run directory {str(out)!r} exists: {how}")
    if not (out / marker).is_file():
        raise ValueError(f"--overwrite: {str(out)!r} holds no {what} (no {marker})")
    shutil.rmtree(out)


__all__ = ["atomic_write", "prepare_out_dir", "write_bytes_atomic", "write_text_atomic"]
