"""How a game's moves become action ids and its states become vectors, and how its
episodes pay: what the rules engines, the batched engines, the agents, the OpenSpiel bridge
and the PettingZoo adapter (:mod:`spinner_env.aec`) share, without importing PettingZoo.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from spinner_env.core.match import MatchState, match_winners

REWARD_SCHEMES = ("match", "hand_score")
EPISODES = ("match", "hand")
RENDER_MODES = ("ansi", "human", "rgb_array")


def layout_slices(layout: Sequence[tuple[str, int, str]]) -> tuple[dict[str, slice], int]:
    """The slice of each part of a vector laid out as (name, size, meaning) rows, and its size."""
    slices: dict[str, slice] = {}
    offset = 0
    for name, size, _ in layout:
        slices[name] = slice(offset, offset + size)
        offset += size
    return slices, offset


Bound = float | Sequence[float]
"""A slice's bound: one value for every entry, or one per entry."""


def layout_bounds(
    layout: Sequence[tuple[str, int, str]], bounds: Mapping[str, tuple[Bound, Bound]]
) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of every entry of a vector laid out as
    :func:`layout_slices` reads it, from each part's ``(low, high)`` in ``bounds``."""
    names = [name for name, _, _ in layout]
    if set(bounds) != set(names):
        raise ValueError(f"bounds name {sorted(bounds)}, the layout {sorted(names)}")
    low = np.concatenate([np.broadcast_to(np.float32(bounds[n][0]), s) for n, s, _ in layout])
    high = np.concatenate([np.broadcast_to(np.float32(bounds[n][1]), s) for n, s, _ in layout])
    return low, high


def blank_observations(size: int, seats: slice) -> tuple[array, ...]:
    """For each player count n, a zero observation but for the first n entries of the
    ``seats`` part: what every observation of an n-player game starts from, copied
    rather than built again at every decision.

    They are float32 ``array.array`` buffers, not numpy arrays: an encoding writes its few
    dozen entries one by one into a copy, which costs a Python store on an
    ``array.array`` and a numpy call on an ndarray, then hands the copy out as the float32
    ndarray it is, ``np.frombuffer(copy, np.float32)``, without copying it again (the
    copy is that observation's alone).
    """
    blanks = []
    for n in range(seats.stop - seats.start + 1):
        obs = array("f", bytes(4 * size))
        obs[seats.start : seats.start + n] = array("f", [1.0] * n)
        blanks.append(obs)
    return tuple(blanks)


SEAT_ORDERS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + rel) % n for rel in range(n)) for seat in range(n))
    for n in range(MatchState.MAX_PLAYERS + 1)
)
"""``SEAT_ORDERS[n][seat]``: the seats of an n-player game clockwise from ``seat``, so that
entry ``rel`` is the seat ``rel`` places after it (observations order seats this way)."""


class Encoding(ABC):
    """How a game's moves become action ids and its states become vectors.

    ``actions`` lists every move that can ever be legal; a move's action id is its place
    in that list.
    """

    obs_size: int
    state_size: int
    """``obs_size + (MatchState.MAX_PLAYERS + 1) * num_tiles``: see :meth:`state`."""
    num_tiles: int
    obs_low: np.ndarray
    obs_high: np.ndarray
    """Every observation entry's bounds as the rules allow them (:func:`layout_bounds`)."""

    def __init__(self, actions: Sequence[Any], game_name: str) -> None:
        self.actions = tuple(actions)
        self.num_actions = len(self.actions)
        self.game_name = game_name
        self._action_ids = {move: action for action, move in enumerate(self.actions)}
        # The engines hand out these very move objects, which live as long as the table,
        # so their ids are theirs alone: looking up the id skips hashing a dataclass.
        self._action_ids_by_identity = {id(m): action for action, m in enumerate(self.actions)}

    def action_of(self, move: Any) -> int:
        """The action id of a move; ValueError if the game has no such move."""
        action = self._action_ids_by_identity.get(id(move))
        if action is not None:
            return action
        try:
            return self._action_ids[move]
        except (KeyError, TypeError):
            raise ValueError(f"{move!r} is not a {self.game_name} move") from None

    def action_ids(self, moves: Sequence[Any]) -> list[int]:
        """The action ids of an engine's legal moves: its own move objects (the ones in
        ``actions``), found by identity, or moves of their own looked up by value."""
        by_identity = self._action_ids_by_identity
        ids = [by_identity.get(id(move)) for move in moves]
        if None in ids:
            return [self.action_of(move) for move in moves]
        return ids  # type: ignore[return-value]

    def move_of(self, action: int) -> Any:
        """The move an action id stands for; ValueError if not an id or out of range."""
        action = action_id(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is out of range 0..{self.num_actions - 1}")
        return self.actions[action]

    def observation_space(self) -> spaces.Box:
        return spaces.Box(self.obs_low, self.obs_high, dtype=np.float32)

    def state_space(self) -> spaces.Box:
        """The bounds of :meth:`state`: the observation's, then 0/1 per hidden entry."""
        hidden = self.state_size - self.obs_size
        low = np.concatenate([self.obs_low, np.zeros(hidden, np.float32)])
        high = np.concatenate([self.obs_high, np.ones(hidden, np.float32)])
        return spaces.Box(low, high, dtype=np.float32)

    @abstractmethod
    def observation(self, game: Any, seat: int, memo: Any = None) -> np.ndarray:
        """The public information plus seat's own hand, from seat's point of view.

        ``memo``, from :meth:`new_memo`, is what an environment keeps from one observation
        of its game to the next so as to build the next faster; the observation is the
        same with it as without.
        """

    def new_memo(self) -> Any:
        """A fresh memo for :meth:`observation` (None where the encoding keeps none)."""
        return None

    def state(self, game: MatchState) -> np.ndarray:
        """Everything, hidden information included (for centralised critics).

        Seat 0's observation, then every seat's hand by absolute seat (padded to
        ``MatchState.MAX_PLAYERS``), then the boneyard, each as one 0/1 entry per tile.
        """
        hidden = np.zeros((MatchState.MAX_PLAYERS + 1, self.num_tiles), np.float32)
        for seat, hand in enumerate(game.hands):
            hidden[seat, [t.index for t in hand]] = 1.0
        hidden[-1, [t.index for t in game.boneyard]] = 1.0
        return np.concatenate([self.observation(game, 0), hidden.ravel()])


def zero_sum_outcome(totals: Sequence[int]) -> list[float]:
    """Match reward: the k lowest-total seats share the win; rewards sum to zero.

    A sole winner gets +1 and every other seat -1/(n-1); k tied winners get
    (n-k)/(k(n-1)) each; if all tie, everyone gets 0.
    """
    n = len(totals)
    winners = set(match_winners(totals))
    k = len(winners)
    return [(n - k) / (k * (n - 1)) if seat in winners else -1 / (n - 1) for seat in range(n)]


def hand_score_difference(points: Sequence[int]) -> list[float]:
    """Hand reward: (mean of the others' points left in hand - own points) / 100."""
    n = len(points)
    total = sum(points)
    return [((total - p) / (n - 1) - p) / 100 for p in points]


def as_action_id(action: Any) -> int | None:
    """An action as a plain int: ints, numpy integers and 0-d integer arrays (what
    Stable-Baselines3's ``predict`` returns) are ids; None for anything else (bools too)."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    return None


def action_id(action: Any) -> int:
    """An action as a plain int (see :func:`as_action_id`); ValueError if it is not one."""
    value = as_action_id(action)
    if value is None:
        raise ValueError(f"action must be an integer action id, got {action!r}")
    return value


def checked_seed(seed: Any) -> int | None:
    """A reset seed as a plain int (numpy integers included); ValueError if it is not one."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")


def check_choice(name: str, value: object, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
