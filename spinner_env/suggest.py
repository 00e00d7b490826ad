""""Did you mean" for a name that is none of the choices: the one helper every message uses
(config keys and names, agent specs, games, command-line choices)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(given: str, choices: Iterable[str], prefix: str = "") -> str:
    """`` (did you mean 'X'?)`` for the choice closest to ``given`` (``prefix`` shown before
    it: ``ppo.``), or an empty string where no choice is close."""
    close = difflib.get_close_matches(given, list(choices), n=1)
    return f" (did you mean {prefix + close[0]!r}?)" if close else ""
