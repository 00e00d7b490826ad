"""The optional extras, and one clear error for a feature whose extra is not installed.

``pip install spinner-env`` alone installs the environments, the hand-written players and
``spinner-evaluate`` for them; trained agents and training need the ``train`` extra, the web
game ``web``, OpenSpiel's bots ``openspiel`` and Ray ``cluster``. A module of an extra that
is missing, imported inside :func:`needs_extras`, raises :class:`MissingExtraError` naming the
extra to install instead of a bare ``No module named ...``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

EXTRA_OF_MODULE: dict[str, str] = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "yaml": "train",
    "tensorboard": "train",
    "matplotlib": "train",
    "rich": "train",
    "numba": "train",
    "safetensors": "train",
    "fastapi": "web",
    "uvicorn": "web",
    "httpx": "web",
    "pyspiel": "openspiel",
    "ray": "cluster",
}
"""The top-level module each runtime package of pyproject's extras installs, and its extra."""


class MissingExtraError(ImportError, ValueError):
    """A feature needs an extra that is not installed. An ImportError, and a ValueError too,
    so that a command's handling of bad input prints it as its one-line error."""


def missing_extra(what: str, module: str) -> MissingExtraError:
    """The error for ``what``, which needs ``module`` (of an extra) that is not installed."""
    extra = EXTRA_OF_MODULE[module]
    return MissingExtraError(
        f"{what} needs the {extra} extra (no module named {module!r}): "
        f"pip install 'spinner-env[{extra}]'"
    )


@contextmanager
def needs_extras(what: str) -> Iterator[None]:
    """Turn a missing module of an extra, imported inside, into :class:`MissingExtraError`
    naming ``what`` (``the trained agent 'spinner_2p'``) and the extra; any other missing
    module stays a ``ModuleNotFoundError``."""
    try:
        yield
    except ModuleNotFoundError as error:
        module = (error.name or "").partition(".")[0]
        if module not in EXTRA_OF_MODULE:
            raise
        raise missing_extra(what, module) from error


def require(what: str, module: str) -> None:
    """Fail now, with :class:`MissingExtraError`, if ``module`` (of an extra) is not installed:
    for work whose import comes late (a chart drawn after the matches)."""
    if importlib.util.find_spec(module) is None:
        raise missing_extra(what, module)
