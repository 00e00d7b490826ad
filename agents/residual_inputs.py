"""What a learned residual (:class:`~spinner_env.agents.features.Residual`) may read beside
a valuation's terms: named groups of numbers per legal move, each read from the seat's
observation and the move's action id, so that a policy reads them wherever it plays.

The terms say how a move scores on each of the hand-written player's considerations; a
group adds what those considerations summarise away. Spinner's (:data:`SPINNER_INPUTS`):

- ``position``: the seat's position, the same for each of its moves: every hand's size and
  the tiles in the boneyard, the points in its own hand, the hand's number, whether it has
  drawn, the unfilled doubles, the end values open to play, and how many values each other
  seat is known to lack (S8). Not the match totals: policy iteration values moves by the
  hand's score, and its roots are hands, whose totals it never sees.
- ``move``: the move itself: the end value it goes on and the one it opens (S4), its
  tile's points and whether it is a double, then what it leaves: the own hand's tiles of
  each value and the layout's open ends of each value, and the values each other seat is
  known to lack.

Mexican Train's (:data:`MEXICAN_TRAIN_INPUTS`):

- ``position``: every hand's size and the tiles in the boneyard, the points in its own
  hand, the round's number, whether it has drawn or takes a double's extra placement
  (M5.2), the unsatisfied doubles (M5.3), each seat's marker (M3.4), the trains open to it
  now, and how many values each other seat is known to lack (M7). Not the match totals,
  as in Spinner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spinner_env import mexican_train_v0 as mt
from spinner_env.games.mexican_train.batched import TILE_PIPS as MT_TILE_PIPS
from spinner_env.games.mexican_train.rules import NUM_VALUES as MT_NUM_VALUES
from spinner_env.games.spinner.batched import (
    ACTION_END,
    ACTION_OPENS,
    ACTION_TILE,
    TILE_HIGH,
    TILE_LOW,
    TILE_POINTS,
)
from spinner_env.games.spinner.encoding import (
    MAX_PLAYERS,
    MAX_UNFILLED,
    NUM_TILES,
    OBSERVATION_SLICES,
)
from spinner_env.games.spinner.rules import NUM_VALUES


@dataclass(frozen=True)
class InputGroup:
    """One named group: its size and the function from the observations (rows), the row of
    each move and its action id to one row of ``size`` numbers per move."""

    name: str
    size: int
    compute: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


_SL = OBSERVATION_SLICES
_OTHER_VOIDS = slice(_SL["voids"].start + NUM_VALUES, _SL["voids"].stop)
"""The voids of relative seats 1 and on (seat 0 is the observer)."""
_TILE_VALUES = np.zeros((NUM_TILES, NUM_VALUES))
"""``_TILE_VALUES[tile, v]``: 1 where the tile has an end of value v (2 on a double's)."""
np.add.at(_TILE_VALUES, (np.arange(NUM_TILES), TILE_LOW), 1.0)
np.add.at(_TILE_VALUES, (np.arange(NUM_TILES), TILE_HIGH), 1.0)
_TILE_VALUES = np.minimum(_TILE_VALUES, 1.0)  # a double counts once among a hand's tiles


def _position(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    hand = obs[:, _SL["hand"]].astype(np.float64)
    arms_left = obs[:, _SL["unfilled"]].reshape(len(obs), MAX_UNFILLED, NUM_VALUES + 1)[:, :, -1]
    voids = obs[:, _OTHER_VOIDS].reshape(len(obs), MAX_PLAYERS - 1, NUM_VALUES)
    per_root = np.concatenate(
        [
            obs[:, _SL["hand_sizes"]],
            obs[:, _SL["boneyard"]],
            hand @ TILE_POINTS[:, None].astype(np.float64),
            np.argmax(obs[:, _SL["hand_number"]], axis=1)[:, None],
            obs[:, _SL["drew"]],
            (arms_left > 0).sum(axis=1, keepdims=True),
            obs[:, _SL["playable_ends"]].sum(axis=1, keepdims=True),
            voids.sum(axis=2),
        ],
        axis=1,
    )
    return per_root[rows]


def _move(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    moves = np.arange(len(rows))
    end = np.zeros((len(rows), NUM_VALUES))
    end[moves, ACTION_END[actions]] = 1.0
    opens = np.zeros((len(rows), NUM_VALUES))
    opened = ACTION_OPENS[actions]
    some = opened >= 0
    opens[moves[some], opened[some]] = 1.0
    tile = ACTION_TILE[actions]
    seat = obs[rows]
    return np.concatenate(
        [
            end,
            opens,
            TILE_POINTS[tile][:, None],
            (TILE_LOW[tile] == TILE_HIGH[tile])[:, None],
            seat[:, _SL["hand"]] @ _TILE_VALUES - _TILE_VALUES[tile],
            seat[:, _SL["free_ends"]] - end + opens,
            seat[:, _OTHER_VOIDS],
        ],
        axis=1,
    )


SPINNER_INPUTS = (
    InputGroup("position", MAX_PLAYERS + 6 + MAX_PLAYERS - 1, _position),
    InputGroup("move", 4 * NUM_VALUES + 2 + (MAX_PLAYERS - 1) * NUM_VALUES, _move),
)
"""Spinner's groups (module docstring)."""


_MT = mt.OBSERVATION_SLICES
_MT_OTHER_VOIDS = slice(_MT["voids"].start + MT_NUM_VALUES, _MT["voids"].stop)


def _mexican_train_position(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    voids = obs[:, _MT_OTHER_VOIDS].reshape(len(obs), mt.MAX_PLAYERS - 1, MT_NUM_VALUES)
    per_root = np.concatenate(
        [
            obs[:, _MT["hand_sizes"]],
            obs[:, _MT["boneyard"]],
            obs[:, _MT["hand"]] @ MT_TILE_PIPS[:, None].astype(np.float64),
            np.argmax(obs[:, _MT["round"]], axis=1)[:, None],
            obs[:, _MT["drew"]],
            obs[:, _MT["extra_placement"]],
            obs[:, _MT["unsatisfied"]].sum(axis=1, keepdims=True),
            obs[:, _MT["markers"]],
            obs[:, _MT["playable"]].sum(axis=1, keepdims=True),
            voids.sum(axis=2),
        ],
        axis=1,
    )
    return per_root[rows]


MEXICAN_TRAIN_INPUTS = (
    InputGroup("position", 2 * mt.MAX_PLAYERS + 7 + mt.MAX_PLAYERS - 1, _mexican_train_position),
)
"""Mexican Train's groups (module docstring)."""
