"""The Spinner heuristic of ``spinner_env.agents.heuristic`` compiled for the batched engine.

:func:`heuristic_action` makes, for the seat to act in one :data:`~spinner_env.batched.spinner.GAME`
record, the decision ``spinner_env.agents.HeuristicAgent`` makes on the same position: the same
scores in the same float64 operations, the highest over the legal ids in ascending order
with the first maximum winning (``np.argmax``), and a single legal action played as is
(``Agent.act``). ``tests/test_batched_heuristic.py`` requires it decision by decision.
What the considerations are and why is the agent's docstring.

The engine stays rules-only (no ``agents`` import): the weights come as a float64 array
in the order of :data:`WEIGHT_NAMES`, which ``HeuristicWeights.as_array()`` writes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spinner_env.batched.core import _kth_legal, _legal_count
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.batched.spinner import (
    ACTION_OPENS,
    ACTION_TILE,
    NUM_TILES,
    TILE_HIGH,
    TILE_LOW,
    TILE_POINTS,
)
from spinner_env.spinner import S
from spinner_env.spinner_v0 import MAX_PLAYERS, NUM_ACTIONS, OBSERVATION_SIZE, OBSERVATION_SLICES

WEIGHT_NAMES: tuple[str, ...] = (
    "points",
    "late_points",
    "late_hand_size",
    "double",
    "trap_next",
    "fill_own_double",
    "variety",
    "follow_open",
    "open_void_next",
    "open_wild",
)
"""The ``HeuristicWeights`` fields in the order the compiled code reads them."""
NUM_WEIGHTS = len(WEIGHT_NAMES)

_POINTS = WEIGHT_NAMES.index("points")
_LATE_POINTS = WEIGHT_NAMES.index("late_points")
_LATE_HAND_SIZE = WEIGHT_NAMES.index("late_hand_size")
_DOUBLE = WEIGHT_NAMES.index("double")
_TRAP_NEXT = WEIGHT_NAMES.index("trap_next")
_FILL_OWN_DOUBLE = WEIGHT_NAMES.index("fill_own_double")
_VARIETY = WEIGHT_NAMES.index("variety")
_FOLLOW_OPEN = WEIGHT_NAMES.index("follow_open")
_OPEN_VOID_NEXT = WEIGHT_NAMES.index("open_void_next")
_OPEN_WILD = WEIGHT_NAMES.index("open_wild")

_HAND = OBSERVATION_SLICES["hand"].start
_SIZES = OBSERVATION_SLICES["hand_sizes"].start
_SEATS = OBSERVATION_SLICES["seats"].start
_NEXT_VOIDS = OBSERVATION_SLICES["voids"].start + S + 1  # relative seat 1's row


@njit(cache=True)
def _has(tile: int, value: int) -> bool:
    return TILE_LOW[tile] == value or TILE_HIGH[tile] == value


@njit(cache=True)
def _choose(
    hand: np.ndarray,
    smallest_opposing: int,
    next_voids: np.ndarray,
    mask: np.ndarray,
    w: np.ndarray,
) -> int:
    """``HeuristicAgent.act`` from what it reads: the hand (tile ids, any order), the
    smallest opposing hand size, the next seat's voids by value (0/1) and the mask."""
    first = _kth_legal(mask, 0)
    # One legal action (a draw or pass is always alone, S6.1-S6.3), or going out: every
    # placement of the last tile scores inf and the first one wins (S6.4).
    if _legal_count(mask) == 1 or hand.shape[0] == 1:
        return first
    # HandCounts over the numbers 0..9; the count at S stays 0, never read as a score.
    holders = np.zeros(S + 1, np.int64)
    fits = np.zeros(S + 1, np.int64)
    for tile in hand:
        wild = TILE_HIGH[tile] == S
        for v in range(S):
            holders[v] += _has(tile, v)
            fits[v] += _has(tile, v) or wild
    late = w[_LATE_HAND_SIZE]
    lateness = max(0.0, late + 1 - smallest_opposing) / late
    per_point = w[_POINTS] + w[_LATE_POINTS] * lateness
    best = -1
    best_score = 0.0
    for a in range(first, NUM_ACTIONS):
        if not mask[a]:
            continue
        tile = ACTION_TILE[a]
        opens = ACTION_OPENS[a]
        variety = 0
        for v in range(S):
            if holders[v] - _has(tile, v) > 0:
                variety += 1
        score = TILE_POINTS[tile] * per_point
        score += w[_VARIETY] * variety
        fitting = fits[opens] - (_has(tile, opens) or TILE_HIGH[tile] == S)
        if TILE_LOW[tile] == TILE_HIGH[tile]:  # S4.4 doubles, S5.1 their arms
            score += w[_DOUBLE]
            if opens < S:  # not the double spinner
                if next_voids[opens]:
                    score += w[_TRAP_NEXT]
                score += w[_FILL_OWN_DOUBLE] * fitting
        elif opens == S:  # a wild end anyone can follow (S4.2)
            score -= w[_OPEN_WILD]
        else:
            score += w[_FOLLOW_OPEN] * min(3, fitting)
            if next_voids[opens]:
                score += w[_OPEN_VOID_NEXT]
        if best < 0 or score > best_score:
            best = a
            best_score = score
    return best


@njit(cache=True)
def heuristic_action(game: np.record, num_players: int, mask: np.ndarray, w: np.ndarray) -> int:
    """The heuristic's action for the seat to act in ``game``, legal by ``mask``."""
    me = game.current
    smallest_opposing = NUM_TILES
    for seat in range(num_players):
        if seat != me:
            smallest_opposing = min(smallest_opposing, game.hand_sizes[seat])
    hand = game.hands[me, : game.hand_sizes[me]]
    return _choose(hand, smallest_opposing, game.voids[(me + 1) % num_players], mask, w)


@njit(cache=True)
def _check_batch(rows: int, mask: np.ndarray, w: np.ndarray) -> None:
    # The compiled loops do not check bounds: a wrong shape would read past an array.
    if mask.shape[0] != rows or mask.shape[1] != NUM_ACTIONS:
        raise ValueError("mask must have one row of NUM_ACTIONS per game")
    if w.shape[0] != NUM_WEIGHTS:
        raise ValueError("weights must have NUM_WEIGHTS entries (HeuristicWeights.as_array())")


@njit(cache=True)
def heuristic_actions(
    games: np.ndarray, num_players: int, mask: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """:func:`heuristic_action` in every game (``mask[b]`` the legal actions of game b)."""
    _check_batch(games.shape[0], mask, w)
    if not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError("num_players must be the games' player count, 2 to 8")
    actions = np.empty(games.shape[0], np.int64)
    for b in range(games.shape[0]):
        actions[b] = heuristic_action(games[b], num_players, mask[b], w)
    return actions


@njit(cache=True)
def heuristic_actions_from_obs(obs: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The same decisions read from ``spinner_v0`` observations of the seat to act, which
    show all the heuristic looks at (own hand, hand sizes, the next seat's voids)."""
    _check_batch(obs.shape[0], mask, w)
    if obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError("obs must have rows of spinner_v0.OBSERVATION_SIZE")
    actions = np.empty(obs.shape[0], np.int64)
    for b in range(obs.shape[0]):
        row = obs[b]
        hand = np.flatnonzero(row[_HAND : _HAND + NUM_TILES])
        smallest_opposing = NUM_TILES
        for rel in range(1, MAX_PLAYERS):
            if row[_SEATS + rel]:
                smallest_opposing = min(smallest_opposing, int(row[_SIZES + rel]))
        next_voids = row[_NEXT_VOIDS : _NEXT_VOIDS + S + 1]
        actions[b] = _choose(hand, smallest_opposing, next_voids, mask[b], w)
    return actions


drop_stale_cache(heuristic_actions)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "NUM_WEIGHTS",
    "WEIGHT_NAMES",
    "heuristic_action",
    "heuristic_actions",
    "heuristic_actions_from_obs",
]
