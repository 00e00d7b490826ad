"""The suite's games by name: what training, evaluation and the play front ends look up.

Each is its PettingZoo env class (a ``DominoAECEnv``): it validates the rules arguments
and knows its engine (``state_class``) and encoding, so evaluation can play the engine
directly with the same rules. Adding a game is one entry in :data:`GAMES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.aec import DominoAECEnv, Encoding
from spinner_env.match import MatchState


@dataclass(frozen=True)
class GameSpec:
    """A game: its PettingZoo env (for training) and its engine (for fast evaluation).

    ``rules`` keyword arguments are the env's own (``num_hands``, variant flags).
    """

    name: str
    raw_env: Callable[..., DominoAECEnv]

    @property
    def encoding(self) -> Encoding:
        return self.raw_env.encoding

    def new_state(self, num_players: int, seed: int, **rules: Any) -> MatchState:
        """A fresh match dealt from ``seed``, under the env's rules for these arguments."""
        env = _env_for(self.raw_env, num_players, tuple(sorted(rules.items())))
        return env.state_class.new(env.rules, seed=seed)


@lru_cache(maxsize=64)
def _env_for(
    raw_env: Callable[..., DominoAECEnv], num_players: int, rules: tuple[tuple[str, Any], ...]
) -> DominoAECEnv:
    return raw_env(num_players=num_players, **dict(rules))


GAMES: dict[str, GameSpec] = {
    "spinner": GameSpec("spinner", spinner_v0.raw_env),
    "mexican_train": GameSpec("mexican_train", mexican_train_v0.raw_env),
}


def game_spec(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}: one of {', '.join(GAMES)}") from None
