"""The Mexican Train expert, compiled: its value of every legal placement, read from the
``mexican_train_v0`` observation of the seat to act, many observations per call.

:func:`expert_values` gives, for each row, the value
:meth:`spinner_env.games.mexican_train.expert.MexicanTrainExpertAgent.value` gives each
legal placement (``-inf`` for the other actions, ``inf`` for going out), in the same
float64 operations; :func:`expert_actions` plays the highest, the lowest action id among
equals, as the agent does. What the considerations are and why is the agent's docstring;
``tests/test_batched_mexican_train_expert.py`` requires both decision by decision.

The observation shows all the expert reads (M7: its hand, the trains and markers, the
unsatisfied doubles, hand sizes, the voids shown). Each placement is played on a scratch
game record rebuilt from the observation, the observer in seat 0, by the batched engine's
own rules (:func:`~spinner_env.games.mexican_train.batched._play`), so the rules are not written
again here; the other hands, which the observation does not show, are left empty and
nothing reads them. The rules' ``double_blank_50`` (M1.3) is the one thing the observation
does not show: it is an argument.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games.mexican_train.batched import (
    _BONEYARD,
    _DOUBLE_BLANK,
    _DOUBLE_BLANK_50,
    _DREW,
    _EXTRA,
    _HAND,
    _MARKERS,
    _OPEN_ENDS,
    _ROUND,
    _SEATS,
    _SIZES,
    _TRAINS,
    _UNSATISFIED,
    _VOIDS,
    DECK_SIZE,
    DOUBLE_OF,
    GAME,
    MEXICAN_TRAIN,
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    TILE_VALUES,
    Params,
    _legal_mask,
    _play,
)
from spinner_env.games.mexican_train.batched_plan import _longest_chain
from spinner_env.games.mexican_train.encoding import (
    MAX_PLAYERS,
    MEXICAN_SLOT,
    NUM_ACTIONS,
    NUM_SLOTS,
    NUM_TILES,
    OBSERVATION_SIZE,
)
from spinner_env.games.mexican_train.rules import MAX_VALUE, NUM_ROUNDS, NUM_VALUES
from spinner_env.games.mexican_train.weights import (
    CHAIN_SEARCH_NODES,
    EXPERT_WEIGHT_NAMES,
    NUM_EXPERT_WEIGHTS,
)

_ORPHAN = EXPERT_WEIGHT_NAMES.index("orphan")
_STRANDED = EXPERT_WEIGHT_NAMES.index("stranded")
_POINTS = EXPERT_WEIGHT_NAMES.index("points")
_LATE_POINTS = EXPERT_WEIGHT_NAMES.index("late_points")
_LATE_HAND_SIZE = EXPERT_WEIGHT_NAMES.index("late_hand_size")
_EXPOSED = EXPERT_WEIGHT_NAMES.index("exposed")
_MARKED_TRAIN = EXPERT_WEIGHT_NAMES.index("marked_train")
_BLOCK_NEXT = EXPERT_WEIGHT_NAMES.index("block_next")

_ME = 0
"""The observer's seat (and own train) in the scratch record: seats are relative to it."""
_NEXT = 1
_PLACEMENTS = NUM_SLOTS * NUM_TILES
_MAX_DEPTH = NUM_VALUES + 1
"""Scratch records: the position, then one per placement of a turn (a double earns one
more, M5.2, and a hand holds at most the 13 doubles)."""


@njit(cache=True)
def _rebuild(row: np.ndarray, game: np.record) -> int:
    """The observer's position as a game record (the observer in seat 0 and to act, other
    hands empty); returns the number of players."""
    n = 0
    for rel in range(MAX_PLAYERS):
        if row[_SEATS + rel] != 0:
            n += 1
    size = 0
    for tile in range(NUM_TILES):
        if row[_HAND + tile] != 0:
            game.hands[_ME, size] = tile
            size += 1
    game.hand_sizes[:] = 0
    game.hand_sizes[_ME] = size
    game.top = DECK_SIZE - np.int64(row[_BONEYARD])
    game.layout_size = 0
    for train in range(NUM_SLOTS):
        slot = MEXICAN_SLOT if train == MEXICAN_TRAIN else train
        game.open_ends[train] = 0
        for value in range(NUM_VALUES):
            if row[_OPEN_ENDS + slot * NUM_VALUES + value] != 0:
                game.open_ends[train] = value
                break
        game.markers[train] = 1 if train < MAX_PLAYERS and row[_MARKERS + train] != 0 else 0
    count = 0
    for i in range(NUM_SLOTS):
        for slot in range(NUM_SLOTS):
            if row[_UNSATISFIED + i * NUM_SLOTS + slot] != 0:
                game.unsatisfied[count] = MEXICAN_TRAIN if slot == MEXICAN_SLOT else slot
                count += 1
    game.num_unsatisfied = count
    game.extra_placement = row[_EXTRA] != 0
    game.drew = row[_DREW] != 0
    game.current = _ME
    return n


@njit(cache=True)
def _engine_tile(row: np.ndarray) -> int:
    """The round's engine, the double in the hub (M2.2: round r's is 12 - r)."""
    for r in range(NUM_ROUNDS):
        if row[_ROUND + r] != 0:
            return DOUBLE_OF[MAX_VALUE - r]
    return -1


@njit(cache=True)
def _possible_for_next(row: np.ndarray, possible: np.ndarray) -> int:
    """``NextSeat``: the tiles the next seat may hold (neither ours, on a train nor the
    engine, none of a value it was shown void in, M7), marked in ``possible``; returns
    how many."""
    engine = _engine_tile(row)
    count = 0
    for tile in range(NUM_TILES):
        possible[tile] = False
        if tile == engine or row[_HAND + tile] != 0:
            continue
        seen = False
        for slot in range(NUM_SLOTS):
            if row[_TRAINS + slot * NUM_TILES + tile] != 0:
                seen = True
                break
        if seen:
            continue
        if (
            row[_VOIDS + _NEXT * NUM_VALUES + TILE_LOW[tile]] != 0
            or row[_VOIDS + _NEXT * NUM_VALUES + TILE_HIGH[tile]] != 0
        ):
            continue
        possible[tile] = True
        count += 1
    return count


@njit(cache=True)
def _stuck_chance(ends: int, possible: np.ndarray, num_possible: int, hand_size: int) -> float:
    """``NextSeat.stuck_chance``: the chance that a uniform draw of ``hand_size`` of the
    possible tiles holds none that fits the end values ``ends`` (bits), C(free, k) /
    C(possible, k) as a product."""
    fitting = 0
    for tile in range(NUM_TILES):
        if possible[tile] and TILE_VALUES[tile] & ends:
            fitting += 1
    free = num_possible - fitting
    if free < hand_size:
        return 0.0
    chance = 1.0
    for i in range(hand_size):
        chance *= (free - i) / (num_possible - i)
    return chance


@njit(cache=True)
def _open_to_ends(game: np.record, n: int, seat: int) -> int:
    """The open end values of the trains ``seat`` may use but its own (M3.3: the Mexican
    train and the marked trains), as bits."""
    ends = 1 << np.int64(game.open_ends[MEXICAN_TRAIN])
    for t in range(n):
        if t != seat and game.markers[t]:
            ends |= 1 << np.int64(game.open_ends[t])
    return ends


class _Decision(NamedTuple):
    """What valuing one decision's placements reads besides the position, made once: the
    weights, each tile's points (M1.3), the lateness of the round (the smallest opposing
    hand), the tiles the next seat may hold and its hand size (``NextSeat``), the chain
    search's budget, and scratch arrays for the hand and the chain."""

    w: np.ndarray
    tile_points: np.ndarray
    lateness: float
    possible: np.ndarray
    num_possible: int
    next_hand_size: int
    max_nodes: int
    hand: np.ndarray
    chain: np.ndarray


@njit(cache=True)
def _position(game: np.record, n: int, d: _Decision, terms: np.ndarray) -> float:
    """``MexicanTrainExpertAgent.position`` of seat 0 once its placements are made; what
    each weight adds to it per unit goes to ``terms`` (0 for ``late_hand_size``, which it
    is not linear in, and for ``marked_train``, a term of the placement itself)."""
    w, hand, chain = d.w, d.hand, d.chain
    hand[:] = False
    points = 0
    size = np.int64(game.hand_sizes[_ME])
    for i in range(size):
        tile = game.hands[_ME, i]
        hand[tile] = True
        points += d.tile_points[tile]
    end = np.int64(game.open_ends[_ME])
    plan = _longest_chain(hand, end, chain, d.max_nodes, d.tile_points)
    for k in range(plan):
        hand[chain[k]] = False  # what stays marked is the orphans
    ends = _open_to_ends(game, n, _ME)
    stranded = 0
    for tile in range(NUM_TILES):
        if hand[tile] and not TILE_VALUES[tile] & ends:
            stranded += 1
    score = -w[_ORPHAN] * (size - plan) - w[_STRANDED] * stranded
    score -= points * (w[_POINTS] + w[_LATE_POINTS] * d.lateness)
    exposed = game.markers[_ME] != 0
    for i in range(game.num_unsatisfied):
        if game.unsatisfied[i] == _ME:
            exposed = True
    if exposed:
        score -= w[_EXPOSED] * plan
    if game.num_unsatisfied > 0:  # the next seat must satisfy the oldest double (M5.3)
        next_ends = 1 << np.int64(game.open_ends[game.unsatisfied[0]])
    else:
        next_ends = _open_to_ends(game, n, _NEXT) | 1 << np.int64(game.open_ends[_NEXT])
    stuck = _stuck_chance(next_ends, d.possible, d.num_possible, d.next_hand_size)
    score += w[_BLOCK_NEXT] * stuck
    terms[:] = 0.0
    terms[_ORPHAN] = -(size - plan)
    terms[_STRANDED] = -stranded
    terms[_POINTS] = -points
    terms[_LATE_POINTS] = -points * d.lateness
    if exposed:
        terms[_EXPOSED] = -plan
    terms[_BLOCK_NEXT] = stuck
    return score


@njit(cache=True)
def _next_placement(mask: np.ndarray, start: int) -> int:
    """The first placement of ``mask`` from id ``start`` on, -1 if none."""
    for a in range(start, _PLACEMENTS):
        if mask[a]:
            return a
    return -1


@njit(cache=True)
def _value(
    games: np.ndarray, masks: np.ndarray, action: int, p: Params, d: _Decision, terms: np.ndarray
) -> float:
    """``MexicanTrainExpertAgent.value`` of placing ``action`` in ``games[0]``, and in
    ``terms`` what each weight adds to it per unit (through the best follow-up after a
    double: the value is linear in the weights but for that choice and
    ``late_hand_size``; 0 where it goes out).

    The agent's recursion over a double's follow-ups (M5.2), as a loop (numba's cache
    cannot hold a recursive function): the value of a placement made from ``games[d]``
    (played on ``games[d + 1]``) is its own term plus, after a double, the best value of
    the follow-ups of ``games[d + 1]``, which frame ``d + 1`` collects (its term in
    ``term``, its ``marked_train`` term in ``marked``, the best so far in ``best`` with
    its terms in ``best_terms``, the next follow-up to try from ``scan``)."""
    term = np.zeros(_MAX_DEPTH + 1)
    marked = np.zeros(_MAX_DEPTH + 1)
    best = np.full(_MAX_DEPTH + 1, -np.inf)
    best_terms = np.zeros((_MAX_DEPTH + 1, terms.shape[0]))
    scan = np.zeros(_MAX_DEPTH + 1, np.int64)
    depth = 0
    while True:
        games[depth + 1] = games[depth]
        after = games[depth + 1]
        _play(after, p, action)
        score = 0.0
        slot = action // NUM_TILES
        on_marked = slot != _ME and slot != MEXICAN_SLOT
        if on_marked:
            score -= d.w[_MARKED_TRAIN]
        tile = action % NUM_TILES
        follow_up = -1
        if after.hand_sizes[_ME] == 0:
            result = np.inf  # going out ends the round (M6.1, M5.5)
            terms[:] = 0.0
        else:
            if TILE_LOW[tile] == TILE_HIGH[tile]:  # the extra placement (M5.2)
                _legal_mask(after, p, masks[depth + 1])
                follow_up = _next_placement(masks[depth + 1], 0)
            if follow_up >= 0:
                depth += 1
                term[depth], best[depth], scan[depth] = score, -np.inf, follow_up + 1
                marked[depth] = -1.0 if on_marked else 0.0
                action = follow_up
                continue
            result = score + _position(after, p.num_players, d, terms)
            if on_marked:
                terms[_MARKED_TRAIN] = -1.0
        while depth > 0:  # hand the result to the frames waiting for it
            if result > best[depth]:
                best[depth] = result
                best_terms[depth] = terms
            follow_up = _next_placement(masks[depth], scan[depth])
            if follow_up >= 0:
                scan[depth] = follow_up + 1
                action = follow_up
                break
            result = term[depth] + best[depth]
            terms[:] = best_terms[depth]
            terms[_MARKED_TRAIN] += marked[depth]
            depth -= 1
        if follow_up < 0:
            if result == np.inf:  # a follow-up went out: every way out is worth the same
                terms[:] = 0.0
            return result


@njit(cache=True)
def _row_values(
    row: np.ndarray,
    mask: np.ndarray,
    w: np.ndarray,
    double_blank_50: bool,
    max_nodes: int,
    games: np.ndarray,
    masks: np.ndarray,
    out: np.ndarray,
    terms: np.ndarray,
) -> None:
    """Each legal placement's value in ``out`` (else ``-inf``) and its terms in the same
    row of ``terms`` (:func:`_value`; rows of other actions are left as they are)."""
    out[:] = -np.inf
    n = _rebuild(row, games[0])
    if n < 2:  # no table (a row of padding): nothing is legal
        return
    p = Params(n, 0, NUM_ROUNDS, double_blank_50, False, False, False, 0)
    tile_points = TILE_PIPS.copy()
    if double_blank_50:
        tile_points[_DOUBLE_BLANK] = _DOUBLE_BLANK_50
    smallest_opposing = NUM_TILES
    for rel in range(1, n):
        smallest_opposing = min(smallest_opposing, np.int64(row[_SIZES + rel]))
    late = w[_LATE_HAND_SIZE]
    lateness = max(0.0, late + 1 - smallest_opposing) / late
    possible = np.zeros(NUM_TILES, np.bool_)
    num_possible = _possible_for_next(row, possible)
    d = _Decision(
        w,
        tile_points,
        lateness,
        possible,
        num_possible,
        np.int64(row[_SIZES + _NEXT]),
        max_nodes,
        np.zeros(NUM_TILES, np.bool_),
        np.empty(NUM_TILES, np.int64),
    )
    for a in range(_PLACEMENTS):
        if mask[a]:
            out[a] = _value(games, masks, a, p, d, terms[a])


def _check_obs(obs: np.ndarray) -> None:
    if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(
            f"observations must be rows of {OBSERVATION_SIZE} (mexican_train_v0), "
            f"got shape {obs.shape}"
        )


def _checked(
    obs: np.ndarray, mask: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The compiled functions' arguments: the rows as float32, the mask as bools, the
    weights as float64; ValueError for a shape that does not fit."""
    obs = np.ascontiguousarray(obs, np.float32)
    mask = np.ascontiguousarray(mask)
    weights = np.asarray(weights, np.float64)
    _check_obs(obs)
    if mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(
            f"masks must be one row of {NUM_ACTIONS} per observation, got shape {mask.shape}"
        )
    if weights.shape != (NUM_EXPERT_WEIGHTS,):
        raise ValueError(
            f"weights must have shape ({NUM_EXPERT_WEIGHTS},) "
            f"(MexicanTrainExpertWeights.as_array()), got {weights.shape}"
        )
    return obs, mask != 0, weights


def expert_values(
    obs: np.ndarray, mask: np.ndarray, weights: np.ndarray, double_blank_50: bool = False
) -> np.ndarray:
    """The expert's value of each legal placement of each row (``-inf`` for every other
    action, ``inf`` for going out): (N, observation size), (N, actions) -> (N, actions)
    float64. ``weights`` as ``MexicanTrainExpertWeights.as_array()`` gives them."""
    return _values(*_checked(obs, mask, weights), double_blank_50, CHAIN_SEARCH_NODES)


@njit(cache=True)
def _values(
    obs: np.ndarray, mask: np.ndarray, w: np.ndarray, double_blank_50: bool, max_nodes: int
) -> np.ndarray:
    out = np.empty((obs.shape[0], NUM_ACTIONS), np.float64)
    games = np.zeros(_MAX_DEPTH + 1, GAME)
    masks = np.zeros((_MAX_DEPTH + 1, NUM_ACTIONS), np.int8)
    terms = np.empty((NUM_ACTIONS, NUM_EXPERT_WEIGHTS))  # scratch: nobody reads them
    for b in range(obs.shape[0]):
        _row_values(obs[b], mask[b], w, double_blank_50, max_nodes, games, masks, out[b], terms)
    return out


def expert_terms(
    obs: np.ndarray, mask: np.ndarray, weights: np.ndarray, double_blank_50: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Each legal action's value with ``weights`` (rows: the mask's legal entries in
    ``np.nonzero`` order, as :func:`expert_values` gives them) and what each weight adds to
    it per unit (columns: the weights; 0 for ``late_hand_size``, which the value is not
    linear in, and for a draw, a pass or going out). After a double the terms are those of
    its best follow-up with ``weights`` (M5.2): the value is linear in the weights as long
    as that choice holds."""
    return _values_terms(*_checked(obs, mask, weights), double_blank_50, CHAIN_SEARCH_NODES)


@njit(cache=True)
def _values_terms(
    obs: np.ndarray, mask: np.ndarray, w: np.ndarray, double_blank_50: bool, max_nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    legal = np.count_nonzero(mask)
    scores = np.empty(legal, np.float64)
    terms = np.zeros((legal, NUM_EXPERT_WEIGHTS), np.float64)
    games = np.zeros(_MAX_DEPTH + 1, GAME)
    masks = np.zeros((_MAX_DEPTH + 1, NUM_ACTIONS), np.int8)
    row_values = np.empty(NUM_ACTIONS, np.float64)
    row_terms = np.zeros((NUM_ACTIONS, NUM_EXPERT_WEIGHTS))
    entry = 0
    for b in range(obs.shape[0]):
        _row_values(
            obs[b], mask[b], w, double_blank_50, max_nodes, games, masks, row_values, row_terms
        )
        for a in range(NUM_ACTIONS):
            if mask[b, a]:
                scores[entry] = row_values[a]
                if a < _PLACEMENTS:
                    terms[entry] = row_terms[a]
                entry += 1
    return scores, terms


def legal_masks(obs: np.ndarray) -> np.ndarray:
    """The action mask of each row's seat to act, read from its observation by the
    engine's rules (M3.3, M4.1, M5.2-M5.4): (N, observation size) -> (N, actions) int8."""
    obs = np.ascontiguousarray(obs, np.float32)
    _check_obs(obs)
    return _legal_masks(obs)


@njit(cache=True)
def _legal_masks(obs: np.ndarray) -> np.ndarray:
    masks = np.zeros((obs.shape[0], NUM_ACTIONS), np.int8)
    game = np.zeros(1, GAME)[0]
    for b in range(obs.shape[0]):
        n = _rebuild(obs[b], game)
        if n >= 2:  # else no table (a row of padding): nothing is legal
            _legal_mask(game, Params(n, 0, NUM_ROUNDS, False, False, False, False, 0), masks[b])
    return masks


def expert_actions(
    obs: np.ndarray, mask: np.ndarray, weights: np.ndarray, double_blank_50: bool = False
) -> np.ndarray:
    """The expert's action in each row: the highest-valued legal placement, the lowest id
    among equals; a lone legal action (a draw or a pass, M4.1) as it is."""
    values = expert_values(obs, mask, weights, double_blank_50)
    mask = np.asarray(mask) != 0
    lone = mask.sum(axis=1) == 1
    actions = np.argmax(values, axis=1)
    actions[lone] = np.argmax(mask[lone], axis=1)
    return actions


class MexicanTrainExpertPolicy:
    """``MexicanTrainExpertAgent``'s play as a batched policy (what the batched engine's
    opponents and labellers ask), with its weights as ``MexicanTrainExpertWeights.as_array()``
    gives them; ``double_blank_50`` is the rules' variant (M1.3), which the observation does
    not show."""

    def __init__(
        self, weights: np.ndarray, double_blank_50: bool = False, name: str = "expert"
    ) -> None:
        weights = np.asarray(weights, np.float64)
        if weights.shape != (NUM_EXPERT_WEIGHTS,):
            raise ValueError(
                f"weights must have shape ({NUM_EXPERT_WEIGHTS},), got {weights.shape}"
            )
        self.weights = weights
        self.double_blank_50 = double_blank_50
        self.name = name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return expert_actions(obs, mask, self.weights, self.double_blank_50)


drop_stale_cache(_values)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "MexicanTrainExpertPolicy",
    "expert_actions",
    "expert_terms",
    "expert_values",
    "legal_masks",
]
