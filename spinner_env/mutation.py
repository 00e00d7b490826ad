"""Random states and random damage to them: what the validators are tested against.

The contract every state reader keeps (``from_dict``, ``from_position``, an env's
``reset(options={"game": ...})``): outside data either raises ``ValueError`` or gives a
state that passes ``validate()`` and plays on, by any legal moves, to the end of the
match. :func:`check_mutant` plays one damaged state through that contract;
``tests/test_validation.py`` drives it with hypothesis, ``bench/fuzz.py`` a million times.
Everything draws from a ``random.Random``, so a failure replays from its seed. The games
are ``spinner_env.games.GAMES``: each record's ``random_rules`` draws the variants.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np

from spinner_env.aec import DominoAECEnv
from spinner_env.core.encoding import Encoding
from spinner_env.core.match import MatchState
from spinner_env.games import GameSpec

PLAYER_COUNTS = range(2, 9)

ODD_VALUES: tuple[Any, ...] = (
    -1, 0, 1, 2, 3, 7, 9, 10, 11, 12, 13, 99, 2**70, -(2**70), 2.5, 1.0, float("nan"),
    True, False, None, "0", "x", "", "S", "3-4", "S-S", "12-12", "0-0", [], {}, [0], [[]],
)  # fmt: skip
"""Replacement values: edges of every range, wrong types, tiles of either game."""


def random_state(game: GameSpec, num_players: int, rng: random.Random) -> MatchState:
    """A match of random rules, played by random legal moves for a random while."""
    rules = game.random_rules(rng, num_players)
    state = game.state_class.new(rules, seed=rng.randrange(2**63))  # type: ignore[attr-defined]
    for _ in range(rng.randrange(400)):
        if state.hand_over:
            if state.match_over or rng.random() < 0.3:
                break
            state.start_next_hand()
        else:
            state.play_legal(rng.choice(state.legal_moves()))
    return state


def _slots(data: Any, slots: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of a JSON tree, depth first."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        slots.append((data, key))
        if isinstance(value, (dict, list)):
            _slots(value, slots)
    return slots


def _lists(data: Any) -> list[list[Any]]:
    return [c[k] for c, k in _slots(data, []) if isinstance(c[k], list)]


def mutate(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of a state's dict with one to three random changes.

    Changes: a value replaced by an odd one or by another value of the tree, an integer
    nudged by one, an entry deleted or duplicated, two entries swapped, an item moved
    from one list to another (tiles between hands and boneyard: conserved, but dealt
    differently).
    """
    data = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        slots = _slots(data, [])
        container, key = rng.choice(slots)
        kind = rng.randrange(7)
        if kind == 0:
            container[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif kind == 1:
            other, other_key = rng.choice(slots)
            container[key] = copy.deepcopy(other[other_key])
        elif kind == 2 and isinstance(container[key], int):
            container[key] += rng.choice((-1, 1))
        elif kind == 3:
            del container[key]
        elif kind == 4 and isinstance(container, list):
            container.insert(rng.randrange(len(container) + 1), copy.deepcopy(container[key]))
        elif kind == 5 and isinstance(container, list):
            j = rng.randrange(len(container))
            container[key], container[j] = container[j], container[key]
        else:
            lists = _lists(data)
            sources = [lst for lst in lists if any(not isinstance(v, (dict, list)) for v in lst)]
            if sources:
                source, target = rng.choice(sources), rng.choice(lists)
                scalars = [i for i, v in enumerate(source) if not isinstance(v, (dict, list))]
                item = source.pop(rng.choice(scalars))
                target.insert(rng.randrange(len(target) + 1), item)
    return data


def play_out(state: MatchState, encoding: Encoding, rng: random.Random) -> int:
    """Random legal moves to the end of the match, every decision observed by the player
    to act; the number of decisions. Each hand is validated as it starts and as it ends
    (the end's layout holds every placement of the hand, each checked as it was made)."""
    decisions = 0
    state.validate()
    while True:
        if state.hand_over:
            state.validate()
            if state.match_over:
                return decisions
            state.start_next_hand()
            state.validate()
            continue
        encoding.observation(state, state.current)
        state.apply(rng.choice(state.legal_moves()))
        decisions += 1


def check_mutant(game: GameSpec, data: dict[str, Any], rng: random.Random) -> int:
    """Read a (damaged) state's dict, as ``from_dict`` and an env's reset do: ValueError,
    or a state that plays to the end. The number of decisions played."""
    state = game.state_class.from_dict(data)  # type: ignore[attr-defined]
    decisions = 0
    if not state.hand_over:
        env = game.raw_env(**_env_arguments(state.rules))
        env.reset(seed=rng.randrange(2**32), options={"game": state})
        while not all(env.terminations.values()) and decisions < 50:
            env.step(rng.choice(env.legal_actions()))
            decisions += 1
    return decisions + play_out(state, game.encoding, rng)


def odd_actions(env: DominoAECEnv, rng: random.Random, count: int) -> int:
    """Step ``env`` with ``count`` random actions, odd values and illegal ids among them:
    each must play (a legal id) or raise ValueError; the number that raised."""
    refused = 0
    for _ in range(count):
        if all(env.terminations.values()):
            env.reset(seed=rng.randrange(2**32))
        action = rng.choice(
            (
                rng.choice(ODD_VALUES),
                rng.randrange(-2, env.encoding.num_actions + 2),
                np.int64(rng.choice(env.legal_actions())),
                np.array(rng.choice(env.legal_actions())),
                np.array([rng.choice(env.legal_actions())]),
            )
        )
        try:
            env.step(action)
        except ValueError:
            refused += 1
    return refused


def _env_arguments(rules: Any) -> dict[str, Any]:
    return {name: getattr(rules, name) for name in rules.__dataclass_fields__}


__all__ = [
    "ODD_VALUES",
    "PLAYER_COUNTS",
    "check_mutant",
    "mutate",
    "odd_actions",
    "play_out",
    "random_state",
]
