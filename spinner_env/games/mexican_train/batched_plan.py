"""Mexican Train's ``plan`` observation feature (:mod:`spinner_env.agents.features`),
compiled: many observations per call.

:data:`PLAN_LAYOUT` says what it holds. Its chain is the expert's plan,
:func:`spinner_env.games.mexican_train.expert.longest_chain` of the hand in tile order
from the own train's open end: the same search (depth first, the hand's tiles in index
order at each end, the first longest and heaviest chain kept, at most
``CHAIN_SEARCH_NODES`` partial chains), so the same chain to the tile, as
tests/test_features.py checks. A policy that reads the feature needs it at every decision
of training, where the Python search, once per observation, would cost more than the
batched engine's whole step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.core.encoding import layout_slices
from spinner_env.games.mexican_train.batched import TILE_HIGH, TILE_LOW, TILE_PIPS
from spinner_env.games.mexican_train.encoding import NUM_SLOTS, NUM_TILES, OBSERVATION_SLICES
from spinner_env.games.mexican_train.rules import NUM_VALUES
from spinner_env.games.mexican_train.weights import CHAIN_SEARCH_NODES

CHAIN_SCALE = 16
"""Longer than any chain a hand holds in practice (15 tiles are dealt to 4 players, M2.4)."""
PLAN_LAYOUT: tuple[tuple[str, int, str], ...] = (
    (
        "planned",
        NUM_TILES,
        "1 for each tile of the hand on the longest chain from the own train's open end"
        " (M3.2; of equal length, the heaviest by pips)",
    ),
    (
        "plan_order",
        NUM_TILES,
        f"per planned tile, 1 - k/{CHAIN_SCALE} for the chain's k-th tile (k from 0): the"
        " first to lay scores 1",
    ),
    ("plan_length", 1, f"tiles on the chain / {CHAIN_SCALE}"),
    (
        "fits_elsewhere",
        NUM_TILES,
        "1 for each tile of the hand that fits the open end of a train, other than the"
        " own, that the player to act may place on now (the observation's playable slots)",
    ),
)
PLAN_SLICES, PLAN_SIZE = layout_slices(PLAN_LAYOUT)
_HAND = OBSERVATION_SLICES["hand"].start
_OPEN_ENDS = OBSERVATION_SLICES["open_ends"].start
_PLAYABLE = OBSERVATION_SLICES["playable"].start
_PLANNED = PLAN_SLICES["planned"].start
_ORDER = PLAN_SLICES["plan_order"].start
_LENGTH = PLAN_SLICES["plan_length"].start
_FITS = PLAN_SLICES["fits_elsewhere"].start


@njit(cache=True)
def _longest_chain(
    hand: np.ndarray, end: int, chain: np.ndarray, max_nodes: int, points: np.ndarray
) -> int:
    """``longest_chain``'s search over ``hand`` (bools by tile index) from ``end``,
    visiting at most ``max_nodes`` partial chains, a chain's weight the sum of its tiles'
    ``points``; the chain's tiles go to ``chain``, their number is returned."""
    by_value = np.empty((NUM_VALUES, NUM_TILES), np.int64)
    count = np.zeros(NUM_VALUES, np.int64)
    for tile in range(NUM_TILES):
        if hand[tile]:
            low, high = TILE_LOW[tile], TILE_HIGH[tile]
            by_value[low, count[low]] = tile
            count[low] += 1
            if high != low:
                by_value[high, count[high]] = tile
                count[high] += 1
    # The recursion of longest_chain, unrolled: per depth, the open end, the weight so
    # far and the next candidate's position in by_value; path[d] is the tile laid at d.
    ends = np.empty(NUM_TILES + 1, np.int64)
    weights = np.empty(NUM_TILES + 1, np.int64)
    next_candidate = np.empty(NUM_TILES + 1, np.int64)
    path = np.empty(NUM_TILES, np.int64)
    used = np.zeros(NUM_TILES, np.bool_)
    ends[0], weights[0], next_candidate[0] = end, 0, 0
    visited = 1
    best_length = best_weight = 0
    depth = 0
    while depth >= 0:
        value = ends[depth]
        i = next_candidate[depth]
        if i >= count[value]:
            depth -= 1
            if depth >= 0:
                used[path[depth]] = False
            continue
        next_candidate[depth] = i + 1
        tile = by_value[value, i]
        if used[tile] or visited >= max_nodes:
            continue
        path[depth] = tile
        used[tile] = True
        depth += 1
        ends[depth] = TILE_PIPS[tile] - value
        weights[depth] = weights[depth - 1] + points[tile]
        next_candidate[depth] = 0
        visited += 1
        if depth > best_length or (depth == best_length and weights[depth] > best_weight):
            best_length, best_weight = depth, weights[depth]
            chain[:depth] = path[:depth]
    return best_length


@njit(cache=True)
def _open_ends(obs: np.ndarray) -> np.ndarray:
    """Each train slot's open end value (its one-hot's first 1; 0 where none is set)."""
    ends = np.zeros(NUM_SLOTS, np.int64)
    for slot in range(NUM_SLOTS):
        for value in range(NUM_VALUES):
            if obs[_OPEN_ENDS + slot * NUM_VALUES + value] != 0:
                ends[slot] = value
                break
    return ends


def plan_features(observations: np.ndarray) -> np.ndarray:
    """The ``plan`` feature (:data:`PLAN_LAYOUT`) of each row of ``observations``
    (``mexican_train_v0``'s), (N, observation size) -> (N, PLAN_SIZE) float32."""
    rows = np.ascontiguousarray(observations, np.float32)
    # The node budget is an argument, so that the cached code never holds a stale one.
    return _plan_features(rows, CHAIN_SEARCH_NODES)


@njit(cache=True)
def _plan_features(observations: np.ndarray, max_nodes: int) -> np.ndarray:
    out = np.zeros((observations.shape[0], PLAN_SIZE), np.float32)
    chain = np.empty(NUM_TILES, np.int64)
    for row in range(observations.shape[0]):
        obs = observations[row]
        hand = obs[_HAND : _HAND + NUM_TILES] != 0
        if not hand.any():
            continue
        ends = _open_ends(obs)
        length = _longest_chain(hand, ends[0], chain, max_nodes, TILE_PIPS)
        for k in range(length):
            out[row, _PLANNED + chain[k]] = 1.0
            out[row, _ORDER + chain[k]] = 1.0 - k / CHAIN_SCALE
        out[row, _LENGTH] = length / CHAIN_SCALE
        elsewhere = np.zeros(NUM_VALUES, np.bool_)
        for slot in range(1, NUM_SLOTS):
            if obs[_PLAYABLE + slot] != 0:
                elsewhere[ends[slot]] = True
        for tile in range(NUM_TILES):
            if hand[tile] and (elsewhere[TILE_LOW[tile]] or elsewhere[TILE_HIGH[tile]]):
                out[row, _FITS + tile] = 1.0
    return out


drop_stale_cache(_plan_features)
