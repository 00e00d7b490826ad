"""The games training and evaluation know, by name: how to build each one's pieces.

Adding a game (Mexican Train, say) is one entry in :data:`GAMES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spinner_env import spinner_v0
from spinner_env.aec import DominoAECEnv, Encoding
from spinner_env.match import MatchState
from spinner_env.spinner import SpinnerRules, SpinnerState


@dataclass(frozen=True)
class GameSpec:
    """A game: its engine (for fast evaluation) and its PettingZoo env (for training).

    ``rules`` keyword arguments are the env's own (``num_hands``, variant flags).
    """

    name: str
    new_state: Callable[..., MatchState]
    """``new_state(num_players, seed, **rules)``: a fresh match."""
    encoding: Encoding
    raw_env: Callable[..., DominoAECEnv]


def _new_spinner(num_players: int, seed: int, **rules: Any) -> SpinnerState:
    return SpinnerState.new(SpinnerRules(num_players=num_players, **rules), seed=seed)


GAMES: dict[str, GameSpec] = {
    "spinner": GameSpec("spinner", _new_spinner, spinner_v0.raw_env.encoding, spinner_v0.raw_env),
}


def game_spec(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}: one of {', '.join(GAMES)}") from None
