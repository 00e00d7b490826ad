"""Spinner dominoes for B games at once, compiled with numba (rules S1-S7).

:class:`BatchedSpinner` steps B independent games with one call: each game's state is a
record of small arrays (:data:`GAME`), and the rules run as numba-compiled loops over
the records. It produces, for every game, the observation vector and action mask of
``spinner_v0`` for the player to act, and ``spinner_v0``'s rewards. The readable
definition of the rules stays :mod:`spinner_env.games.spinner.rules`; ``tests/test_batched.py``
plays both side by side and requires them to agree decision by decision.

    engine = BatchedSpinner(1024, SpinnerRules(num_players=4), reward="match")
    step = engine.reset(seed=0)
    while training:
        step = engine.step(choose(step.obs, step.mask))   # one decision in every game

A game whose episode ends starts the next one at once from the next seed (episode e of
the run uses seed ``seed + e``, in the order episodes end); ``step.done`` marks it, and
``step.final_obs`` / ``step.final_totals`` keep how it ended.

Why numba: the per-decision work is branchy and touches a few dozen bytes per game, so
whole-array numpy spends its time on temporaries and masked gathers; a compiled loop per
game does the same work with no temporaries, millions of decisions a second on one core
(docs/speed.md, "The batched engines": ``bench/bench_speed.py``). The per-decision
functions are inlined (``inline="always"``) into the loops over games, which spares a
call with a long list of unpacked arguments per function and decision, and
game records are unsigned, so that indexing with their values needs no negative-index
fix-up.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spinner_env.batched.core import (
    FIRST_HAND_DRAW,
    LEARNER_DRAW,
    BatchedEngine,
    BatchStep,
    _drawn_from_seed,
    _shuffle_range,
    end_hand,
    sample_legal,
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games.spinner.encoding import (
    DRAW_ACTION,
    ENCODING,
    MAX_PLAYERS,
    MAX_UNFILLED,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
    PASS_ACTION,
    move_to_action,
)
from spinner_env.games.spinner.rules import (
    ALL_TILES,
    DOUBLE_SPINNER,
    NUM_VALUES,
    PLACEMENTS_ON,
    S,
    SpinnerRules,
    SpinnerTile,
)

NUM_TILES = len(ALL_TILES)

# ------------------------------------------------------------------ lookup tables
TILE_LOW = np.array([t.low for t in ALL_TILES], np.int64)
TILE_HIGH = np.array([t.high for t in ALL_TILES], np.int64)
TILE_POINTS = TILE_LOW + TILE_HIGH  # S1.4: S counts 10, its value
DOUBLE_OF = np.array([SpinnerTile.of(v, v).index for v in range(NUM_VALUES)], np.int64)
_SPINNER_DOUBLE = DOUBLE_SPINNER.index

# The placements of a tile on an end are consecutive action ids (ALL_PLACEMENTS is
# ordered tile, end, option), so a (first id, count) pair names them all.
FIRST_ACTION = np.zeros((NUM_TILES, NUM_VALUES), np.int64)
ACTION_COUNT = np.zeros((NUM_TILES, NUM_VALUES), np.int64)
ACTION_TILE = np.full(NUM_ACTIONS, -1, np.int64)
ACTION_END = np.full(NUM_ACTIONS, -1, np.int64)
ACTION_OPENS = np.full(NUM_ACTIONS, -1, np.int64)
for _tile in ALL_TILES:
    for _end in range(NUM_VALUES):
        _ids = [move_to_action(p) for p in PLACEMENTS_ON[_tile.index][_end]]
        if _ids:
            assert _ids == list(range(_ids[0], _ids[0] + len(_ids)))
            FIRST_ACTION[_tile.index, _end] = _ids[0]
            ACTION_COUNT[_tile.index, _end] = len(_ids)
        for _id, _place in zip(_ids, PLACEMENTS_ON[_tile.index][_end], strict=True):
            ACTION_TILE[_id] = _tile.index
            ACTION_END[_id] = _end
            ACTION_OPENS[_id] = _place.opens

TILE_FITS = (ACTION_COUNT > 0) @ (1 << np.arange(NUM_VALUES))
"""``TILE_FITS[tile]``: the end values the tile can go on, as bits."""
LOWEST_BIT = np.array([(x & -x).bit_length() - 1 for x in range(1 << NUM_VALUES)], np.int64)
"""``LOWEST_BIT[bits]``: the lowest value in a set of end values (-1 for none)."""

_HAND = OBSERVATION_SLICES["hand"].start
_PLACED = OBSERVATION_SLICES["placed"].start
_FREE = OBSERVATION_SLICES["free_ends"].start
_PLAYABLE = OBSERVATION_SLICES["playable_ends"].start
_UNFILLED = OBSERVATION_SLICES["unfilled"].start
_SIZES = OBSERVATION_SLICES["hand_sizes"].start
_VOIDS = OBSERVATION_SLICES["voids"].start
_TOTALS = OBSERVATION_SLICES["totals"].start
_SEATS = OBSERVATION_SLICES["seats"].start
_TO_ACT = OBSERVATION_SLICES["to_act"].start
_BONEYARD = OBSERVATION_SLICES["boneyard"].start
_DREW = OBSERVATION_SLICES["drew"].start
_HAND_NUMBER = OBSERVATION_SLICES["hand_number"].start

NO_END = 255
"""``layout_end`` of the set, which goes on no end (``Placed.end`` None, S3)."""

FIRST_DEALER_DRAW = -1
"""The hand number ``shuffled`` is given to draw the first dealer (S2.3 variant), as in
:meth:`SpinnerState.new`."""


GAME = np.dtype(
    [
        ("hands", np.uint8, (MAX_PLAYERS, NUM_TILES)),  # the tiles held: hands[seat, :size]
        ("hand_sizes", np.uint8, (MAX_PLAYERS,)),
        ("deck", np.uint8, (NUM_TILES,)),  # the hand's shuffled order (S2.4) ...
        ("top", np.uint8),  # ... the boneyard is deck[top:], top first
        ("layout", np.uint8, (NUM_TILES,)),  # the tiles on the layout, in the order placed
        ("layout_seat", np.uint8, (NUM_TILES,)),  # ... who placed each,
        ("layout_end", np.uint8, (NUM_TILES,)),  # ... on what end value (NO_END: the set),
        ("layout_opens", np.uint8, (NUM_TILES,)),  # ... and what it opened (S4.2-S4.4)
        ("layout_size", np.uint8),
        ("free_ends", np.uint8, (NUM_VALUES,)),  # open ends by value, outside unfilled doubles
        ("unfilled_value", np.uint8, (MAX_UNFILLED,)),  # unfilled doubles, oldest first (S5.2)
        ("unfilled_arms", np.uint8, (MAX_UNFILLED,)),
        ("num_unfilled", np.uint8),
        ("voids", np.uint8, (MAX_PLAYERS, NUM_VALUES)),  # values each seat was shown not to hold
        ("totals", np.int32, (MAX_PLAYERS,)),
        ("seed", np.uint64),
        ("hand_number", np.uint8),
        ("dealer", np.uint8),
        ("current", np.uint8),
        ("passes_in_row", np.uint8),
        ("drew", np.uint8),
        ("learner", np.uint8),  # whose view final_obs shows
    ],
    align=True,
)
"""One game's state: a record of small arrays, about 1,000 bytes.

The layout is kept as the reference engine keeps it (S4.5): free open ends counted by
value, unfilled doubles oldest first with their arms left, and every placement as the
reference ``Placed`` has it (seat, tile, end, opens), so that the reference state can be
read back (:func:`spinner_env.games.spinner.rollout.state_of`). A batch is
``np.zeros(B, GAME)``; the compiled code takes one record per game, which costs nothing to pass (a
tuple of arrays would have every array's reference count touched at every call).
"""


class Params(NamedTuple):
    """The rules and env options as plain numbers, for the compiled code
    (:func:`~spinner_env.batched.core.engine_params` fills it)."""

    num_players: int
    hand_size: int
    num_hands: int
    draw_until_playable: bool
    shortened: bool
    seeded_first_dealer: bool
    hand_score_reward: bool
    hand_episode: bool
    random_learner: bool
    learner_seat: int


# ------------------------------------------------------------------ the deal (S2.4)
@njit(cache=True)
def _start_episode(game: np.record, p: Params, next_seed: np.ndarray) -> None:
    seed = next_seed[0]
    next_seed[0] = seed + np.uint64(1)
    game.seed = seed
    game.totals[:] = 0
    game.dealer = 0  # S2.3
    if p.seeded_first_dealer:
        game.dealer = _drawn_from_seed(p.num_players, seed, FIRST_DEALER_DRAW)
    game.hand_number = 0
    if p.hand_episode:
        game.hand_number = _drawn_from_seed(p.num_hands, seed, FIRST_HAND_DRAW)
    game.learner = p.learner_seat
    if p.random_learner:
        game.learner = _drawn_from_seed(p.num_players, seed, LEARNER_DRAW)
    _open_hand(game, p)


@njit(cache=True)
def _open_hand(game: np.record, p: Params) -> None:
    """S2.4 deal, then S3 set: who sets, the set double's two arms, who acts first."""
    n = p.num_players
    k = p.hand_size
    _shuffle_range(game.deck, NUM_TILES, game.seed, game.hand_number)
    game.hand_sizes[:] = 0
    for seat in range(n):
        game.hands[seat, :k] = game.deck[seat * k : (seat + 1) * k]
        game.hand_sizes[seat] = k
    game.top = n * k
    game.layout_size = 0
    game.free_ends[:] = 0
    game.voids[:, :] = 0
    game.passes_in_row = 0
    game.drew = 0
    d = 9 - game.hand_number
    set_tile = DOUBLE_OF[d]
    setter = _holder(game, n, set_tile)  # S3.1
    if setter < 0:
        set_tile = _SPINNER_DOUBLE
        setter = _holder(game, n, set_tile)
    if setter < 0 and p.shortened:  # S7.3: the highest lower double held sets
        for lower in range(d - 1, -1, -1):
            set_tile = DOUBLE_OF[lower]
            setter = _holder(game, n, set_tile)
            if setter >= 0:
                break
    if setter < 0:  # S3.2: draw from the dealer clockwise until d-d or S-S comes up
        seat = game.dealer
        while True:
            tile = game.deck[game.top]
            game.top += 1
            _take(game, seat, tile)
            if tile == DOUBLE_OF[d] or tile == _SPINNER_DOUBLE:
                set_tile = tile
                setter = seat
                break
            seat = (seat + 1) % n
    _give_up(game, setter, set_tile)
    arm_value = d if set_tile == _SPINNER_DOUBLE else TILE_LOW[set_tile]  # S3.4
    _lay(game, set_tile, setter, NO_END, arm_value)
    game.unfilled_value[0] = arm_value
    game.unfilled_arms[0] = 2
    game.num_unfilled = 1
    game.current = (setter + 1) % n  # S3.5


@njit(cache=True)
def _holder(game: np.record, n: int, tile: int) -> int:
    for seat in range(n):
        for i in range(game.hand_sizes[seat]):
            if game.hands[seat, i] == tile:
                return seat
    return -1


@njit(cache=True)
def _take(game: np.record, seat: int, tile: int) -> None:
    game.hands[seat, game.hand_sizes[seat]] = tile
    game.hand_sizes[seat] += 1


@njit(cache=True)
def _lay(game: np.record, tile: int, seat: int, end: int, opens: int) -> None:
    i = game.layout_size
    game.layout[i] = tile
    game.layout_seat[i] = seat
    game.layout_end[i] = end
    game.layout_opens[i] = opens
    game.layout_size = i + 1


@njit(cache=True)
def _give_up(game: np.record, seat: int, tile: int) -> None:
    """Take a held tile out of the hand (the last tile fills its place: order is free)."""
    last = game.hand_sizes[seat] - 1
    for i in range(last + 1):
        if game.hands[seat, i] == tile:
            game.hands[seat, i] = game.hands[seat, last]
            break
    game.hand_sizes[seat] = last


# ------------------------------------------------------------------ the turn (S4-S6)
@njit(cache=True, inline="always")
def _playable_ends(game: np.record) -> int:
    """The end values a placement may go on now, as bits (S5.1, S5.2: only the oldest
    unfilled double's arms, else every free end)."""
    if game.num_unfilled > 0:
        return 1 << game.unfilled_value[0]
    ends = 0
    for v in range(NUM_VALUES):
        if game.free_ends[v] > 0:
            ends |= 1 << v
    return ends


@njit(cache=True, inline="always")
def _legal_mask(game: np.record, p: Params, mask: np.ndarray) -> None:
    """S6.1-S6.3: the placements if any, else draw, else pass."""
    mask[:] = 0
    seat = game.current
    ends = _playable_ends(game)
    can_place = False
    for i in range(game.hand_sizes[seat]):
        t = game.hands[seat, i]
        fits = ends & TILE_FITS[t]
        if fits:
            can_place = True
            while fits:
                end = LOWEST_BIT[fits]
                fits &= fits - 1
                first = FIRST_ACTION[t, end]
                for a in range(first, first + ACTION_COUNT[t, end]):
                    mask[a] = 1
    if not can_place:
        if game.top < NUM_TILES and (not game.drew or p.draw_until_playable):
            mask[DRAW_ACTION] = 1
        else:
            mask[PASS_ACTION] = 1


@njit(cache=True, inline="always")
def _observe(game: np.record, p: Params, seat: int, in_play: bool, obs: np.ndarray) -> None:
    """``SpinnerEncoding.observation`` of seat (seats relative to it, padded to 8)."""
    n = p.num_players
    obs[:] = 0.0
    for i in range(game.hand_sizes[seat]):
        obs[_HAND + game.hands[seat, i]] = 1.0
    for i in range(game.layout_size):
        obs[_PLACED + game.layout[i]] = 1.0
    ends = _playable_ends(game)
    for v in range(NUM_VALUES):
        obs[_FREE + v] = game.free_ends[v]
        obs[_PLAYABLE + v] = ends >> v & 1
    for i in range(game.num_unfilled):
        base = _UNFILLED + i * (NUM_VALUES + 1)
        obs[base + game.unfilled_value[i]] = 1.0
        obs[base + NUM_VALUES] = game.unfilled_arms[i]
    for rel in range(n):
        other = (seat + rel) % n
        obs[_SIZES + rel] = game.hand_sizes[other]
        for v in range(NUM_VALUES):
            obs[_VOIDS + rel * NUM_VALUES + v] = game.voids[other, v]
        obs[_TOTALS + rel] = game.totals[other] / 100.0
        obs[_SEATS + rel] = 1.0
    if in_play:
        obs[_TO_ACT + (game.current - seat) % n] = 1.0
    obs[_BONEYARD] = NUM_TILES - game.top
    obs[_DREW] = game.drew
    obs[_HAND_NUMBER + game.hand_number] = 1.0


@njit(cache=True)
def _mark_voids(game: np.record, seat: int) -> None:
    """S8 (``MatchState._show_void``): a seat that draws or passes holds none of the
    playable values, nor S; a tile it drew and kept this turn voids what it showed before."""
    ends = _playable_ends(game) | 1 << S
    for v in range(NUM_VALUES):
        if ends >> v & 1:
            game.voids[seat, v] = 1
        elif game.drew:
            game.voids[seat, v] = 0


@njit(cache=True, inline="always")
def _play(game: np.record, p: Params, action: int) -> bool:
    """Play a legal action for the player to act; return whether the hand ended (S6.4)."""
    n = p.num_players
    seat = game.current
    if action == DRAW_ACTION:  # S6.2
        _mark_voids(game, seat)
        _take(game, seat, game.deck[game.top])
        game.top += 1
        game.drew = 1
        return False
    if action == PASS_ACTION:  # S6.2, S6.3
        _mark_voids(game, seat)
        game.passes_in_row += 1
        if game.top == NUM_TILES and game.passes_in_row >= n:
            return True
        game.current = (seat + 1) % n
        game.drew = 0
        return False
    tile = ACTION_TILE[action]
    _give_up(game, seat, tile)
    _lay(game, tile, seat, ACTION_END[action], ACTION_OPENS[action])
    count = game.num_unfilled
    if count > 0:  # S5.1, S5.3: the oldest unfilled double takes the placement
        game.unfilled_arms[0] -= 1
        if game.unfilled_arms[0] == 0:  # S5.4
            for i in range(count - 1):
                game.unfilled_value[i] = game.unfilled_value[i + 1]
                game.unfilled_arms[i] = game.unfilled_arms[i + 1]
            count -= 1
    else:
        game.free_ends[ACTION_END[action]] -= 1
    if TILE_LOW[tile] == TILE_HIGH[tile]:  # S4.4: three arms, filled in turn (S5.2)
        game.unfilled_value[count] = ACTION_OPENS[action]
        game.unfilled_arms[count] = 3
        count += 1
    else:
        game.free_ends[ACTION_OPENS[action]] += 1
    game.num_unfilled = count
    game.passes_in_row = 0
    game.drew = 0
    if game.hand_sizes[seat] == 0:
        return True
    game.current = (seat + 1) % n
    return False


@njit(cache=True)
def _finish_hand(game: np.record, p: Params, next_seed: np.ndarray, out: BatchStep, b: int) -> None:
    """S6.4, S7: score the hand; reward as ``DominoAECEnv._finish_hand``; deal on or restart."""
    n = p.num_players
    points = np.zeros(n, np.int64)
    for seat in range(n):
        for i in range(game.hand_sizes[seat]):
            points[seat] += TILE_POINTS[game.hands[seat, i]]
    winner = game.current  # the player who placed their last tile (S6.4) ...
    if game.hand_sizes[winner] > 0:  # ... else the fewest points, ties to the lowest seat
        winner = 0
        for seat in range(n):
            if points[seat] < points[winner]:
                winner = seat
    if not end_hand(game, p, points, p.num_hands, next_seed, out, b):
        game.dealer = winner  # S2.3
        game.hand_number += 1
        _open_hand(game, p)


# ------------------------------------------------------------------ the Python API
class BatchedSpinner(BatchedEngine):
    """B Spinner games stepped together; see the module docstring.

    Args:
        num_games: B.
        rules: the Spinner rules and variants (one set for every game).
        reward, episode, learner_seat: as :class:`~spinner_env.batched.core.BatchedEngine`.

    ``games`` is the batch's state, one :data:`GAME` record per game.
    """

    game_dtype = GAME
    obs_size = OBSERVATION_SIZE
    encoding = ENCODING
    num_actions = NUM_ACTIONS
    max_players = MAX_PLAYERS
    rules_class = SpinnerRules
    params_class = Params


drop_stale_cache(_finish_hand)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "FIRST_HAND_DRAW",
    "GAME",
    "LEARNER_DRAW",
    "BatchStep",
    "BatchedSpinner",
    "sample_legal",
]
