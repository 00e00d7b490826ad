"""Compiled opponents for the batched Mexican Train engine: a learner's table in one call.

:func:`compiled_action` is :func:`spinner_env.games.spinner.batched_players.compiled_action`
for :class:`~spinner_env.games.mexican_train.batched.BatchedMexicanTrain`: it chooses a seat's
move in compiled code by the seat's kind (the same ``OPPONENT_*`` kinds): uniformly at
random, greedy (``spinner_env.agents.GreedyAgent``), or the Mexican Train heuristic;
Python chooses for seats of kind ``OPPONENT_EXTERNAL``. The shared loop
:func:`spinner_env.batched.core.advance_to_learner` plays the games on with it.

:func:`heuristic_action` makes, for the seat to act, the decision
``spinner_env.games.mexican_train.heuristic.MexicanTrainHeuristicAgent`` makes on the same
position:
the same scores in the same float64 operations, the highest over the legal ids in
ascending order with the first maximum winning (``np.argmax``), and a single legal action
played as is (``Agent.act``). It reads the game record or, as
:func:`heuristic_actions_from_obs`, the ``mexican_train_v0`` observation of the seat to
act, which shows all it looks at; ``tests/test_batched_mexican_train.py`` requires both
decision by decision. What the considerations are and why is the agent's docstring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spinner_env.batched.core import (
    OPPONENT_GREEDY,
    OPPONENT_HEURISTIC,
    OPPONENT_RANDOM,
    _kth_legal,
    _legal_count,
    next_uniform,
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games import CompiledPlayer
from spinner_env.games.mexican_train.batched import (
    _DOUBLE_BLANK,
    _DOUBLE_BLANK_50,
    _MARKERS,
    _OPEN_ENDS,
    _SEATS,
    _SIZES,
    _VOIDS,
    MEXICAN_TRAIN,
    NUM_TRAINS,
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    TILE_VALUES,
    Params,
    _slot,
)
from spinner_env.games.mexican_train.encoding import (
    MAX_PLAYERS,
    MEXICAN_SLOT,
    NUM_ACTIONS,
    NUM_SLOTS,
    NUM_TILES,
    OBSERVATION_SIZE,
)
from spinner_env.games.mexican_train.rules import NUM_VALUES, MexicanTrainRules
from spinner_env.games.mexican_train.weights import NUM_WEIGHTS, WEIGHT_NAMES

_POINTS = WEIGHT_NAMES.index("points")
_LATE_POINTS = WEIGHT_NAMES.index("late_points")
_LATE_HAND_SIZE = WEIGHT_NAMES.index("late_hand_size")
_OWN_TRAIN = WEIGHT_NAMES.index("own_train")
_LIFT_MARKER = WEIGHT_NAMES.index("lift_marker")
_DOUBLE_FOLLOWED = WEIGHT_NAMES.index("double_followed")
_DOUBLE_TRAP = WEIGHT_NAMES.index("double_trap")
_OWN_END_FITS = WEIGHT_NAMES.index("own_end_fits")
_END_VOID_NEXT = WEIGHT_NAMES.index("end_void_next")

_OWN_SLOT = 0
_NEXT_SLOT = 1


def action_points(double_blank_50: bool) -> np.ndarray:
    """M1.3 points of each placement's tile (``0-0`` at 50 under the variant); -1 for
    draw and pass: what greedy maximises."""
    points = np.full(NUM_ACTIONS, -1, np.int64)
    tiles = np.arange(NUM_SLOTS * NUM_TILES) % NUM_TILES
    points[: tiles.size] = TILE_PIPS[tiles]
    if double_blank_50:
        points[: tiles.size][tiles == _DOUBLE_BLANK] = _DOUBLE_BLANK_50
    return points


def greedy_points(rules: MexicanTrainRules) -> np.ndarray:
    """What the compiled greedy maximises under ``rules`` (:func:`action_points`)."""
    return action_points(rules.double_blank_50)


@njit(cache=True)
def _tile_points(tile: int, double_blank_50: bool) -> int:
    if double_blank_50 and tile == _DOUBLE_BLANK:
        return _DOUBLE_BLANK_50
    return TILE_PIPS[tile]


@njit(cache=True)
def _choose(
    hand: np.ndarray,
    smallest_opposing: int,
    open_ends: np.ndarray,
    marked: np.ndarray,
    next_voids: np.ndarray,
    mask: np.ndarray,
    w: np.ndarray,
    double_blank_50: bool,
) -> int:
    """``MexicanTrainHeuristicAgent.act`` from what it reads, trains by slot (as the
    player to act names them: 0 its own, 1 the next seat's, 8 the Mexican train): the
    hand (tile ids, any order), the smallest opposing hand size, each slot's open end and
    marker, the next seat's voids by value (0/1) and the mask."""
    first = _kth_legal(mask, 0)
    # One legal action (a draw or pass is always alone, M4.1), or going out: every
    # placement of the last tile scores inf and the first one wins (M6.1).
    if _legal_count(mask) == 1 or hand.shape[0] == 1:
        return first
    fits = np.zeros(NUM_VALUES, np.int64)
    for tile in hand:
        for v in range(NUM_VALUES):
            fits[v] += TILE_VALUES[tile] >> v & 1
    late = w[_LATE_HAND_SIZE]
    lateness = max(0.0, late + 1 - smallest_opposing) / late
    per_point = w[_POINTS] + w[_LATE_POINTS] * lateness
    best = -1
    best_score = 0.0
    for a in range(first, NUM_SLOTS * NUM_TILES):
        if not mask[a]:
            continue
        slot = a // NUM_TILES
        tile = a % NUM_TILES
        opens = TILE_PIPS[tile] - open_ends[slot]
        has_opens = TILE_VALUES[tile] >> opens & 1
        score = _tile_points(tile, double_blank_50) * per_point
        if slot == _OWN_SLOT:
            score += w[_LIFT_MARKER] if marked[_OWN_SLOT] else w[_OWN_TRAIN]
            score += w[_OWN_END_FITS] * min(3, fits[opens] - has_opens)
        if TILE_LOW[tile] == TILE_HIGH[tile]:  # a double (M5.2, M5.3)
            if fits[opens] - 1 > 0:
                score += w[_DOUBLE_FOLLOWED]
            elif next_voids[opens]:
                score += w[_DOUBLE_TRAP]
        elif next_voids[opens] and (slot in (MEXICAN_SLOT, _NEXT_SLOT) or marked[slot]):
            score += w[_END_VOID_NEXT]
        if best < 0 or score > best_score:
            best = a
            best_score = score
    return best


@njit(cache=True)
def heuristic_action(game: np.record, p: Params, mask: np.ndarray, w: np.ndarray) -> int:
    """The heuristic's action for the seat to act in ``game``, legal by ``mask``."""
    n = p.num_players
    me = np.int64(game.current)
    smallest_opposing = NUM_TILES
    for seat in range(n):
        if seat != me:
            smallest_opposing = min(smallest_opposing, np.int64(game.hand_sizes[seat]))
    open_ends = np.zeros(NUM_SLOTS, np.int64)
    marked = np.zeros(NUM_SLOTS, np.int64)
    for t in range(NUM_TRAINS):
        if t < n or t == MEXICAN_TRAIN:
            slot = _slot(t, me, n)
            open_ends[slot] = game.open_ends[t]
            marked[slot] = game.markers[t]
    hand = game.hands[me, : game.hand_sizes[me]]
    next_voids = game.voids[(me + 1) % n]
    return _choose(
        hand, smallest_opposing, open_ends, marked, next_voids, mask, w, p.double_blank_50
    )


@njit(cache=True)
def _check_batch(rows: int, mask: np.ndarray, w: np.ndarray) -> None:
    # The compiled loops do not check bounds: a wrong shape would read past an array.
    if mask.shape[0] != rows or mask.shape[1] != NUM_ACTIONS:
        raise ValueError("mask must have one row of NUM_ACTIONS per game")
    if w.shape[0] != NUM_WEIGHTS:
        raise ValueError("weights must have NUM_WEIGHTS entries (MexicanTrainWeights.as_array())")


@njit(cache=True)
def heuristic_actions(games: np.ndarray, p: Params, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`heuristic_action` in every game (``mask[b]`` the legal actions of game b)."""
    _check_batch(games.shape[0], mask, w)
    actions = np.empty(games.shape[0], np.int64)
    for b in range(games.shape[0]):
        actions[b] = heuristic_action(games[b], p, mask[b], w)
    return actions


@njit(cache=True)
def heuristic_actions_from_obs(
    obs: np.ndarray, mask: np.ndarray, w: np.ndarray, double_blank_50: bool
) -> np.ndarray:
    """The same decisions read from ``mexican_train_v0`` observations of the seat to act
    (the rules' ``double_blank_50`` is the one thing they do not show)."""
    _check_batch(obs.shape[0], mask, w)
    if obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError("obs must have rows of mexican_train_v0.OBSERVATION_SIZE")
    actions = np.empty(obs.shape[0], np.int64)
    open_ends = np.zeros(NUM_SLOTS, np.int64)
    marked = np.zeros(NUM_SLOTS, np.int64)
    for b in range(obs.shape[0]):
        row = obs[b]
        hand = np.flatnonzero(row[:NUM_TILES])
        smallest_opposing = NUM_TILES
        for rel in range(1, MAX_PLAYERS):
            if row[_SEATS + rel]:
                smallest_opposing = min(smallest_opposing, int(row[_SIZES + rel]))
        for slot in range(NUM_SLOTS):
            ends = row[_OPEN_ENDS + slot * NUM_VALUES : _OPEN_ENDS + (slot + 1) * NUM_VALUES]
            open_ends[slot] = np.argmax(ends)
            marked[slot] = slot < MAX_PLAYERS and row[_MARKERS + slot] != 0
        next_voids = row[_VOIDS + NUM_VALUES : _VOIDS + 2 * NUM_VALUES]
        actions[b] = _choose(
            hand, smallest_opposing, open_ends, marked, next_voids, mask[b], w, double_blank_50
        )
    return actions


@njit(cache=True, inline="always")
def compiled_action(
    game: np.record,
    p: Params,
    mask: np.ndarray,
    legal: int,
    kind: int,
    heuristic_weights: np.ndarray,
    rng_state: np.ndarray,
) -> int:
    """The action a seat of ``kind`` chooses among ``legal`` (two or more) legal actions of
    ``mask``; -1 for ``OPPONENT_EXTERNAL`` (Python chooses). As
    :func:`spinner_env.games.spinner.batched_players.compiled_action`, for Mexican Train."""
    if kind == OPPONENT_RANDOM:
        return _kth_legal(mask, int(next_uniform(rng_state) * legal))
    if kind == OPPONENT_GREEDY:  # the heaviest tile, the lowest id among equals
        action = -1
        best = -1
        for a in range(NUM_SLOTS * NUM_TILES):
            if mask[a]:
                points = _tile_points(a % NUM_TILES, p.double_blank_50)
                if action < 0 or points > best:
                    action = a
                    best = points
        return action
    if kind >= OPPONENT_HEURISTIC:
        return heuristic_action(game, p, mask, heuristic_weights[kind - OPPONENT_HEURISTIC])
    return -1


class MexicanTrainHeuristicPolicy:
    """``spinner_env.games.mexican_train.heuristic.MexicanTrainHeuristicAgent``'s play,
    compiled, with its weights as ``MexicanTrainWeights.as_array()`` gives them;
    ``double_blank_50`` is the rules' variant (M1.3), which the observation does not show."""

    def __init__(
        self, weights: np.ndarray, double_blank_50: bool = False, name: str = "heuristic"
    ) -> None:
        weights = np.asarray(weights, np.float64)
        if weights.shape != (NUM_WEIGHTS,):
            raise ValueError(f"weights must have shape ({NUM_WEIGHTS},), got {weights.shape}")
        self.weights = weights
        self.double_blank_50 = double_blank_50
        self.name = name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return heuristic_actions_from_obs(obs, mask, self.weights, self.double_blank_50)

    def compiled_twin(self, rules: object) -> CompiledPlayer | None:
        """The compiled heuristic with these weights, in Mexican Train under the same
        variant (M1.3)."""
        if isinstance(rules, MexicanTrainRules) and rules.double_blank_50 == self.double_blank_50:
            return CompiledPlayer("heuristic", self.weights)
        return None


def heuristic_policy(
    weights: np.ndarray, name: str, rules: MexicanTrainRules
) -> MexicanTrainHeuristicPolicy:
    """The batched policy of the compiled heuristic with ``weights`` under ``rules``,
    playing as ``name``."""
    return MexicanTrainHeuristicPolicy(weights, rules.double_blank_50, name)


drop_stale_cache(compiled_action)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "NUM_WEIGHTS",
    "WEIGHT_NAMES",
    "MexicanTrainHeuristicPolicy",
    "action_points",
    "compiled_action",
    "greedy_points",
    "heuristic_action",
    "heuristic_actions",
    "heuristic_actions_from_obs",
    "heuristic_policy",
]
