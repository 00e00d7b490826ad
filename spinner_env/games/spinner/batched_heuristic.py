"""The Spinner heuristic and expert of ``spinner_env.agents`` compiled for the batched engine.

:func:`heuristic_action` makes, for the seat to act in one
:data:`~spinner_env.games.spinner.batched.GAME` record, the decision
``spinner_env.agents.HeuristicAgent`` makes on the same position, or
``spinner_env.agents.ExpertAgent``'s: the same scores in the same float64 operations, the
highest over the legal ids in ascending order with the first maximum winning
(``np.argmax``), and a single legal action played as is (``Agent.act``).
``tests/test_batched_heuristic.py`` and ``tests/test_batched_expert.py`` require it
decision by decision. What the considerations are and why is the agents' docstrings.

One scoring serves both players, because the expert is the heuristic with three more
considerations (``SpinnerExpertWeights`` extends ``SpinnerWeights``): the weights come as a
float64 array in the order of ``COMPILED_WEIGHT_NAMES``
(:mod:`~spinner_env.games.spinner.weights`),
which ``SpinnerWeights.as_array()`` writes, with the expert's own three at 0 for a
heuristic. The expert's terms are computed only when one of them is not 0, so the
heuristic pays nothing for them. After the players' own weights come the phase weights
(``PHASE_WEIGHT_NAMES``), which no hand-written player has: where one is not 0 the weights
of a decision are its own plus each phase weight times the hand's lateness
(:func:`_phased`). The engine stays rules-only (no ``agents`` import).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spinner_env.batched.core import _kth_legal, _legal_count
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games.spinner.batched import (
    ACTION_END,
    ACTION_OPENS,
    ACTION_TILE,
    GAME,
    MAX_UNFILLED,
    NUM_TILES,
    TILE_FITS,
    TILE_HIGH,
    TILE_LOW,
    TILE_POINTS,
    Params,
    _legal_mask,
)
from spinner_env.games.spinner.encoding import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
)
from spinner_env.games.spinner.rules import NUM_VALUES, S
from spinner_env.games.spinner.weights import (
    COMPILED_WEIGHT_NAMES,
    EXPERT_WEIGHT_NAMES,
    HEURISTIC_WEIGHT_NAMES,
    LATE_WEIGHT_NAMES,
    NUM_WEIGHTS,
    OWN_LATE_WEIGHT_NAMES,
    WEIGHT_NAMES,
)

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
_BLOCK_NEXT = WEIGHT_NAMES.index("block_next")
_KEEP_WILD = WEIGHT_NAMES.index("keep_wild")
_OWN_STUCK = WEIGHT_NAMES.index("own_stuck")
_LATE_OF = np.array([WEIGHT_NAMES.index(n.removeprefix("late_")) for n in LATE_WEIGHT_NAMES])
"""The weight each ``late_`` phase weight adds to, in their order."""
_OWN_LATE_OF = np.array(
    [WEIGHT_NAMES.index(n.removeprefix("own_late_")) for n in OWN_LATE_WEIGHT_NAMES]
)
"""The weight each ``own_late_`` phase weight adds to, in their order."""
_FIRST_PHASE = len(WEIGHT_NAMES)
_EXPERT_WEIGHTS = np.array(
    [
        COMPILED_WEIGHT_NAMES.index(prefix + name)
        for name in EXPERT_WEIGHT_NAMES
        for prefix in ("", "late_", "own_late_")
    ]
)
"""The expert's own weights and their phase weights."""

_HAND = OBSERVATION_SLICES["hand"].start
_PLACED = OBSERVATION_SLICES["placed"].start
_FREE = OBSERVATION_SLICES["free_ends"].start
_UNFILLED = OBSERVATION_SLICES["unfilled"].start
_SIZES = OBSERVATION_SLICES["hand_sizes"].start
_SEATS = OBSERVATION_SLICES["seats"].start
_NEXT_VOIDS = OBSERVATION_SLICES["voids"].start + NUM_VALUES  # relative seat 1's row
_BONEYARD = OBSERVATION_SLICES["boneyard"].start
_DREW = OBSERVATION_SLICES["drew"].start
_NO_TILES = np.zeros(0, np.int64)
"""The heuristic's ``Outlook.possible_fits``: a constant, so that it allocates nothing."""


class Outlook(NamedTuple):
    """What the expert reads beyond the heuristic (``spinner_env.agents.expert.Outlook``):
    the next seat's hand size and the tiles it may hold (S8), and the layout's open ends
    (S4.5, S5), to find the ends each placement leaves playable."""

    next_size: int
    possible_fits: np.ndarray
    """``TILE_FITS`` of every tile the next seat may hold (empty for the heuristic)."""
    free_ends: np.ndarray
    """Open ends by value outside the unfilled doubles."""
    oldest: int
    """The value of the oldest unfilled double's arms, -1 if none (S5.2)."""
    oldest_arms: int
    second: int
    """The value of the second oldest unfilled double's arms, -1 if none."""


@njit(cache=True)
def _has(tile: int, value: int) -> bool:
    return TILE_LOW[tile] == value or TILE_HIGH[tile] == value


@njit(cache=True)
def _fitting_without(fits: np.ndarray, tile: int, value: int) -> int:
    """``HandCounts.fitting_without``: the tiles other than ``tile`` that fit ``value``."""
    return fits[value] - (_has(tile, value) or TILE_HIGH[tile] == S)


@njit(cache=True)
def _plays_expert(w: np.ndarray) -> bool:
    for i in _EXPERT_WEIGHTS:  # noqa: SIM110 (a loop allocates nothing, per decision)
        if w[i] != 0.0:
            return True
    return False


@njit(cache=True)
def _phased(w: np.ndarray, lateness: float, own_lateness: float) -> np.ndarray:
    """The weights of one decision: ``w`` itself where its phase weights are all 0 (every
    hand-written player), else a copy whose own weights have each phase weight times its
    lateness added."""
    phased = False
    for i in range(_FIRST_PHASE, NUM_WEIGHTS):
        if w[i] != 0.0:
            phased = True
            break
    if not phased:
        return w
    out = w.copy()
    for k in range(_LATE_OF.shape[0]):
        out[_LATE_OF[k]] += lateness * w[_FIRST_PHASE + k]
    own = _FIRST_PHASE + _LATE_OF.shape[0]
    for k in range(_OWN_LATE_OF.shape[0]):
        out[_OWN_LATE_OF[k]] += own_lateness * w[own + k]
    return out


@njit(cache=True)
def _possible_fits(hand: np.ndarray, layout: np.ndarray, next_voids: np.ndarray) -> np.ndarray:
    """``TILE_FITS`` of the tiles the next seat may hold: neither in ``hand`` nor on the
    ``layout``, with no half of a value it was shown void in (S8)."""
    seen = np.zeros(NUM_TILES, np.bool_)
    for tile in hand:
        seen[tile] = True
    for tile in layout:
        seen[tile] = True
    fits = np.empty(NUM_TILES, np.int64)
    count = 0
    for tile in range(NUM_TILES):
        if not (seen[tile] or next_voids[TILE_LOW[tile]] or next_voids[TILE_HIGH[tile]]):
            fits[count] = TILE_FITS[tile]
            count += 1
    return fits[:count]


@njit(cache=True)
def _ends_after(action: int, o: Outlook) -> int:
    """The end values a placement may go on once ``action`` is placed, as bits."""
    tile = ACTION_TILE[action]
    opens = ACTION_OPENS[action]
    covered = -1  # the free end the placement covers
    if o.oldest >= 0:  # S5.1, S5.3: it takes an arm of the oldest unfilled double
        if o.oldest_arms > 1:
            return 1 << o.oldest
        if o.second >= 0:  # S5.4: filled, the next oldest waits (S5.2)
            return 1 << o.second
    else:
        covered = ACTION_END[action]
    if TILE_LOW[tile] == TILE_HIGH[tile]:  # S4.4: the double's arms come first (S5.1)
        return 1 << opens
    ends = 1 << opens  # S4.3
    for v in range(NUM_VALUES):
        if o.free_ends[v] > (1 if v == covered else 0):
            ends |= 1 << v
    return ends


@njit(cache=True)
def _next_stuck_chance(o: Outlook, ends: int) -> float:
    """``Outlook.next_stuck_chance``: the chance that a uniform draw of the next seat's
    hand size from the tiles it may hold has no tile for any of ``ends`` (S4.2)."""
    possible = o.possible_fits.shape[0]
    fitting = 0
    for fits in o.possible_fits:
        if fits & ends:
            fitting += 1
    free = possible - fitting
    if free < o.next_size:
        return 0.0
    chance = 1.0
    for i in range(o.next_size):
        chance *= (free - i) / (possible - i)
    return chance


@njit(cache=True)
def _kept_fitting(fits: np.ndarray, size: int, tile: int, ends: int) -> bool:
    """``Outlook.kept_fitting``: whether a tile other than ``tile`` fits one of ``ends``
    (any tile fits a wild end, S4.2)."""
    for end in range(S):
        if ends >> end & 1 and _fitting_without(fits, tile, end) > 0:
            return True
    return bool(ends >> S & 1) and size > 1


class _Hand(NamedTuple):
    """What the scoring of one decision reads of the hand to act, counted once."""

    size: int
    holders: np.ndarray
    """``HandCounts`` over the numbers 0..9: the tiles holding each (the count at S stays 0,
    never read as a score)."""
    fits: np.ndarray
    """... and the tiles fitting each, spinner tiles included (S4.2)."""
    lateness: float
    weights: np.ndarray
    """The weights of this decision (:func:`_phased`)."""
    per_point: float
    expert: bool
    plain_playable: bool
    """A placement of a tile with no spinner half is legal (the expert's ``keep_wild``)."""


@njit(cache=True, inline="always")
def _count_hand(
    hand: np.ndarray, smallest_opposing: int, mask: np.ndarray, first: int, w: np.ndarray
) -> _Hand:
    holders = np.zeros(S + 1, np.int64)
    fits = np.zeros(S + 1, np.int64)
    for tile in hand:
        wild = TILE_HIGH[tile] == S
        for v in range(S):
            holders[v] += _has(tile, v)
            fits[v] += _has(tile, v) or wild
    late = w[_LATE_HAND_SIZE]
    lateness = max(0.0, late + 1 - smallest_opposing) / late
    w = _phased(w, lateness, max(0.0, late + 1 - hand.shape[0]) / late)
    per_point = w[_POINTS] + w[_LATE_POINTS] * lateness
    expert = _plays_expert(w)
    plain_playable = False
    if expert:
        for a in range(first, NUM_ACTIONS):
            if mask[a] and ACTION_TILE[a] >= 0 and TILE_HIGH[ACTION_TILE[a]] != S:
                plain_playable = True
                break
    return _Hand(hand.shape[0], holders, fits, lateness, w, per_point, expert, plain_playable)


@njit(cache=True, inline="always")
def _score(a: int, h: _Hand, next_voids: np.ndarray, outlook: Outlook) -> float:
    """``HeuristicAgent.score`` (with the expert's weights, ``ExpertAgent.score``) of the
    placement ``a``, with the decision's weights ``h.weights``."""
    w = h.weights
    tile = ACTION_TILE[a]
    opens = ACTION_OPENS[a]
    variety = 0
    for v in range(S):
        if h.holders[v] - _has(tile, v) > 0:
            variety += 1
    score = TILE_POINTS[tile] * h.per_point
    score += w[_VARIETY] * variety
    fitting = _fitting_without(h.fits, tile, opens)
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
    if h.expert:  # ExpertAgent.score's terms, in its order
        ends = _ends_after(a, outlook)
        score += w[_BLOCK_NEXT] * _next_stuck_chance(outlook, ends)
        if TILE_HIGH[tile] == S and h.plain_playable:  # a spinner tile held back (S1.2)
            score -= w[_KEEP_WILD] * (1 - h.lateness)
        if not _kept_fitting(h.fits, h.size, tile, ends):
            score -= w[_OWN_STUCK]
    return score


@njit(cache=True)
def _choose(
    hand: np.ndarray,
    smallest_opposing: int,
    next_voids: np.ndarray,
    outlook: Outlook,
    mask: np.ndarray,
    w: np.ndarray,
) -> int:
    """``HeuristicAgent.act`` (``ExpertAgent.act`` with the expert's weights) from what it
    reads: the hand (tile ids, any order), the smallest opposing hand size, the next
    seat's voids by value (0/1), the expert's outlook and the mask."""
    first = _kth_legal(mask, 0)
    # One legal action (a draw or pass is always alone, S6.1-S6.3), or going out: every
    # placement of the last tile scores inf and the first one wins (S6.4).
    if _legal_count(mask) == 1 or hand.shape[0] == 1:
        return first
    h = _count_hand(hand, smallest_opposing, mask, first, w)
    best = -1
    best_score = 0.0
    for a in range(first, NUM_ACTIONS):
        if not mask[a]:
            continue
        score = _score(a, h, next_voids, outlook)
        if best < 0 or score > best_score:
            best = a
            best_score = score
    return best


@njit(cache=True)
def _scores(
    hand: np.ndarray,
    smallest_opposing: int,
    next_voids: np.ndarray,
    outlook: Outlook,
    mask: np.ndarray,
    w: np.ndarray,
    out: np.ndarray,
) -> None:
    """The score :func:`_choose` gives each placement legal by ``mask`` into ``out`` (inf
    for every placement of the last tile, S6.4), ``-inf`` for every other action."""
    out[:] = -np.inf
    first = _kth_legal(mask, 0)
    if first < 0 or ACTION_TILE[first] < 0:  # a draw or a pass: no placement
        return
    h = _count_hand(hand, smallest_opposing, mask, first, w)
    for a in range(first, NUM_ACTIONS):
        if mask[a]:
            out[a] = np.inf if hand.shape[0] == 1 else _score(a, h, next_voids, outlook)


@njit(cache=True)
def heuristic_action(game: np.record, num_players: int, mask: np.ndarray, w: np.ndarray) -> int:
    """The heuristic's (or expert's) action for the seat to act in ``game``, legal by
    ``mask``."""
    me = game.current
    smallest_opposing = NUM_TILES
    for seat in range(num_players):
        if seat != me:
            smallest_opposing = min(smallest_opposing, game.hand_sizes[seat])
    hand = game.hands[me, : game.hand_sizes[me]]
    nxt = (me + 1) % num_players
    next_voids = game.voids[nxt]
    possible = _NO_TILES
    if _plays_expert(w):
        possible = _possible_fits(hand, game.layout[: game.layout_size], next_voids)
    count = game.num_unfilled
    outlook = Outlook(
        int(game.hand_sizes[nxt]),
        possible,
        game.free_ends,
        int(game.unfilled_value[0]) if count > 0 else -1,
        int(game.unfilled_arms[0]),
        int(game.unfilled_value[1]) if count > 1 else -1,
    )
    return _choose(hand, smallest_opposing, next_voids, outlook, mask, w)


@njit(cache=True)
def _check_batch(rows: int, mask: np.ndarray, w: np.ndarray) -> None:
    # The compiled loops do not check bounds: a wrong shape would read past an array.
    if mask.shape[0] != rows or mask.shape[1] != NUM_ACTIONS:
        raise ValueError("mask must have one row of NUM_ACTIONS per game")
    if w.shape[0] != NUM_WEIGHTS:
        raise ValueError("weights must have NUM_WEIGHTS entries (SpinnerWeights.as_array())")


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
def _unfilled_arm_value(row: np.ndarray, i: int) -> int:
    """The arm value of the observation's unfilled double i (oldest first), -1 if none."""
    base = _UNFILLED + i * (NUM_VALUES + 1)
    if row[base + NUM_VALUES] == 0:  # no arms left: no such double
        return -1
    return int(np.argmax(row[base : base + NUM_VALUES]))


@njit(cache=True)
def _read_obs(row: np.ndarray, expert: bool) -> tuple[np.ndarray, int, np.ndarray, Outlook]:
    """What the heuristic (and the expert) read, from a ``spinner_v0`` observation of the
    seat to act: the hand, the smallest opposing hand size, the next seat's voids and the
    outlook."""
    hand = np.flatnonzero(row[_HAND : _HAND + NUM_TILES])
    smallest_opposing = NUM_TILES
    for rel in range(1, MAX_PLAYERS):
        if row[_SEATS + rel]:
            smallest_opposing = min(smallest_opposing, int(row[_SIZES + rel]))
    next_voids = row[_NEXT_VOIDS : _NEXT_VOIDS + NUM_VALUES]
    possible = _NO_TILES
    if expert:
        layout = np.flatnonzero(row[_PLACED : _PLACED + NUM_TILES])
        possible = _possible_fits(hand, layout, next_voids)
    outlook = Outlook(
        int(row[_SIZES + 1]),
        possible,
        row[_FREE : _FREE + NUM_VALUES],
        _unfilled_arm_value(row, 0),
        int(row[_UNFILLED + NUM_VALUES]),
        _unfilled_arm_value(row, 1),
    )
    return hand, smallest_opposing, next_voids, outlook


@njit(cache=True)
def _check_obs(obs: np.ndarray, mask: np.ndarray, w: np.ndarray) -> None:
    _check_batch(obs.shape[0], mask, w)
    if obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError("obs must have rows of spinner_v0.OBSERVATION_SIZE")


@njit(cache=True)
def heuristic_actions_from_obs(obs: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The same decisions read from ``spinner_v0`` observations of the seat to act, which
    show all the heuristic and the expert look at (own hand, the layout, hand sizes, the
    next seat's voids)."""
    _check_obs(obs, mask, w)
    expert = _plays_expert(w)
    actions = np.empty(obs.shape[0], np.int64)
    for b in range(obs.shape[0]):
        hand, smallest_opposing, next_voids, outlook = _read_obs(obs[b], expert)
        actions[b] = _choose(hand, smallest_opposing, next_voids, outlook, mask[b], w)
    return actions


@njit(cache=True)
def heuristic_scores_from_obs(obs: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The score the heuristic (with the expert's weights, the expert) gives each legal
    placement of each row, read from its observation (``inf`` for every placement of the
    last tile, ``-inf`` for every other action): what it plays is the highest, the lowest
    id among equals."""
    _check_obs(obs, mask, w)
    expert = _plays_expert(w)
    out = np.empty((obs.shape[0], NUM_ACTIONS), np.float64)
    for b in range(obs.shape[0]):
        hand, smallest_opposing, next_voids, outlook = _read_obs(obs[b], expert)
        _scores(hand, smallest_opposing, next_voids, outlook, mask[b], w, out[b])
    return out


@njit(cache=True)
def heuristic_terms_from_obs(obs: np.ndarray, mask: np.ndarray, w: np.ndarray) -> tuple:
    """Each legal action's score with ``w`` (rows: the mask's legal entries in
    ``np.nonzero`` order, as :func:`heuristic_scores_from_obs` gives it) and what each
    weight adds to it per unit (columns: the weights; 0 for ``late_hand_size``, the one the
    score is not linear in), each row's observation read once. A player's own weight's
    term is its score's change when that weight grows by one; a phase weight's is its
    lateness (the opponents' or its own, :func:`_phased`) times its own weight's term."""
    _check_obs(obs, mask, w)
    own = np.array([i for i in range(_FIRST_PHASE) if i != _LATE_HAND_SIZE])
    shifted = np.empty((own.shape[0], NUM_WEIGHTS))
    expert = _plays_expert(w)
    for k in range(own.shape[0]):
        shifted[k] = w
        shifted[k, own[k]] += 1.0
        expert = expert or _plays_expert(shifted[k])
    legal_count = np.count_nonzero(mask)
    scores = np.empty(legal_count, np.float64)
    terms = np.zeros((legal_count, NUM_WEIGHTS), np.float64)
    base = np.empty(NUM_ACTIONS, np.float64)
    row_scores = np.empty(NUM_ACTIONS, np.float64)
    late = w[_LATE_HAND_SIZE]
    first_own_late = _FIRST_PHASE + _LATE_OF.shape[0]
    entry = 0
    for b in range(obs.shape[0]):
        hand, smallest_opposing, next_voids, outlook = _read_obs(obs[b], expert)
        legal = np.flatnonzero(mask[b])
        _scores(hand, smallest_opposing, next_voids, outlook, mask[b], w, base)
        lateness = max(0.0, late + 1 - smallest_opposing) / late
        own_lateness = max(0.0, late + 1 - hand.shape[0]) / late
        for k in range(own.shape[0]):
            _scores(hand, smallest_opposing, next_voids, outlook, mask[b], shifted[k], row_scores)
            for i in range(legal.shape[0]):
                if np.isfinite(base[legal[i]]):
                    terms[entry + i, own[k]] = row_scores[legal[i]] - base[legal[i]]
        for i in range(legal.shape[0]):
            scores[entry + i] = base[legal[i]]
            row = terms[entry + i]
            for k in range(_LATE_OF.shape[0]):
                row[_FIRST_PHASE + k] = lateness * row[_LATE_OF[k]]
            for k in range(_OWN_LATE_OF.shape[0]):
                row[first_own_late + k] = own_lateness * row[_OWN_LATE_OF[k]]
        entry += legal.shape[0]
    return scores, terms


@njit(cache=True)
def legal_masks_from_obs(obs: np.ndarray) -> np.ndarray:
    """The action mask of each row's seat to act, read from its ``spinner_v0`` observation
    by the engine's rules (S5.1, S5.2, S6.1-S6.3; a draw where the boneyard holds tiles and
    the seat has not drawn, as without ``draw_until_playable``)."""
    if obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError("obs must have rows of spinner_v0.OBSERVATION_SIZE")
    masks = np.zeros((obs.shape[0], NUM_ACTIONS), np.int8)
    game = np.zeros(1, GAME)[0]
    p = Params(2, 0, 1, False, False, False, False, False, False, 0)
    for b in range(obs.shape[0]):
        row = obs[b]
        size = 0
        for tile in range(NUM_TILES):
            if row[_HAND + tile] != 0:
                game.hands[0, size] = tile
                size += 1
        game.hand_sizes[0] = size
        for v in range(NUM_VALUES):
            game.free_ends[v] = np.int64(row[_FREE + v])
        count = 0
        while count < MAX_UNFILLED:
            value = _unfilled_arm_value(row, count)
            if value < 0:
                break
            arms_left = _UNFILLED + count * (NUM_VALUES + 1) + NUM_VALUES
            game.unfilled_value[count] = value
            game.unfilled_arms[count] = np.int64(row[arms_left])
            count += 1
        game.num_unfilled = count
        game.top = NUM_TILES - np.int64(row[_BONEYARD])
        game.drew = row[_DREW] != 0
        game.current = 0
        _legal_mask(game, p, masks[b])
    return masks


drop_stale_cache(heuristic_actions)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "EXPERT_WEIGHT_NAMES",
    "HEURISTIC_WEIGHT_NAMES",
    "NUM_WEIGHTS",
    "WEIGHT_NAMES",
    "heuristic_action",
    "heuristic_actions",
    "heuristic_actions_from_obs",
    "heuristic_scores_from_obs",
    "heuristic_terms_from_obs",
    "legal_masks_from_obs",
]
