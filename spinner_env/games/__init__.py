"""The suite's games, one record each: every layer reaches a game through :data:`GAMES`.

A game is a package of this folder (:mod:`spinner_env.games.spinner`,
:mod:`spinner_env.games.mexican_train`) holding everything about it: its rules engine
(``rules.py``), encoding (``encoding.py``), PettingZoo env (``env.py``), text picture
(``text.py``), batched engine (``batched.py``) with its compiled players and rollouts,
and its :class:`~spinner_env.core.game.GameSpec` record (the package's ``GAME``). The
layers above ask the record and name no game; a new game is its package plus one line
below.
"""

from __future__ import annotations

from typing import Any

from spinner_env.core.game import COMPILED_KINDS, CompiledPlayer, GameSpec
from spinner_env.games import mexican_train, spinner
from spinner_env.suggest import did_you_mean

GAMES: dict[str, GameSpec] = {
    game.name: game
    for game in (
        spinner.GAME,
        mexican_train.GAME,
    )
}
"""Every game of the suite by name: the one table of games."""


def default_game() -> GameSpec:
    """The game an API uses where it is given none (no rules, no ``game``): the first."""
    return next(iter(GAMES.values()))


def game_of_rules(rules: Any) -> GameSpec:
    """The game of ``rules`` (:func:`game_of`), or :func:`default_game` for None."""
    return default_game() if rules is None else game_of(rules)


def per_game_subclasses(base: type, suffix: str, module: str) -> dict[str, type]:
    """A subclass of ``base`` fixing each game (its ``rules_class``), named after the
    game's rules class (``SpinnerRules`` -> ``Spinner`` + ``suffix``), for the modules
    that offer one class per game under the names users import (``SpinnerVectorEnv``)."""
    classes = {}
    for game in GAMES.values():
        name = game.class_prefix + suffix
        doc = f":class:`{base.__name__}` of {game.name} (``{game.rules_class.__name__}``)."
        classes[name] = type(
            name,
            (base,),
            {"rules_class": game.rules_class, "__doc__": doc, "__module__": module},
        )
    return classes


def game_spec(name: str | None) -> GameSpec:
    """The game called ``name`` (None: :func:`default_game`); ValueError naming the games
    for any other."""
    if name is None:
        return default_game()
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(
            f"unknown game {name!r}{did_you_mean(name, GAMES)}: one of {', '.join(GAMES)}"
        ) from None


def game_of(rules_or_state: Any) -> GameSpec:
    """The game whose rules (or state) this is: a ``SpinnerRules`` or ``SpinnerState``
    is Spinner's; ValueError for anything that is no registered game's."""
    for game in GAMES.values():
        if isinstance(rules_or_state, (game.rules_class, game.state_class)):
            return game
    raise ValueError(f"{rules_or_state!r} is the rules or state of no game of the suite")


def game_named_in_files(game_name: str) -> GameSpec | None:
    """The game whose encoding calls itself ``game_name`` (``Spinner``, as policy files
    and observations name it), or None."""
    for game in GAMES.values():
        if game.encoding.game_name == game_name:
            return game
    return None


__all__ = [
    "COMPILED_KINDS",
    "GAMES",
    "CompiledPlayer",
    "GameSpec",
    "default_game",
    "game_named_in_files",
    "game_of",
    "game_of_rules",
    "game_spec",
    "per_game_subclasses",
]
