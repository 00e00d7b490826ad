"""Mexican Train for B games at once, compiled with numba (rules M1-M7).

:class:`BatchedMexicanTrain` is to :mod:`spinner_env.games.mexican_train.rules` what
:class:`~spinner_env.games.spinner.batched.BatchedSpinner` is to Spinner: each game's state
is a record of small arrays (:data:`GAME`), the rules run as numba-compiled loops over the records,
and every step gives, for every game, the ``mexican_train_v0`` observation vector and
action mask of the player to act and ``mexican_train_v0``'s rewards. The readable
definition of the rules stays :mod:`spinner_env.games.mexican_train.rules`;
``tests/test_batched_mexican_train.py`` plays both side by side and requires them to
agree decision by decision.

    engine = BatchedMexicanTrain(1024, MexicanTrainRules(num_players=4), reward="match")
    step = engine.reset(seed=0)
    while training:
        step = engine.step(choose(step.obs, step.mask))   # one decision in every game

Seeds, episodes and the Python API are :class:`~spinner_env.batched.core.BatchedEngine`'s:
game b starts from seed ``seed + b``, an ended episode restarts at once from the next
seed, ``step.final_obs`` / ``step.final_totals`` keep how it ended. Round r of seed s is
dealt from ``shuffled(the 90 tiles other than the engine, s, r)`` as in
:meth:`MexicanTrainState._open_hand`.

The state keeps trains by id: seats 0..n-1 own the personal trains, and id
:data:`MEXICAN_TRAIN` (8, past any seat) is the Mexican train; a train's tiles are kept
as the placement log (``layout``, ``layout_train``), which is all the observation needs.
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
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games.mexican_train.encoding import (
    DRAW_ACTION,
    ENCODING,
    MAX_PLAYERS,
    MEXICAN_SLOT,
    NUM_ACTIONS,
    NUM_SLOTS,
    NUM_TILES,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
    PASS_ACTION,
)
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    DOUBLE_BLANK,
    MAX_VALUE,
    NUM_VALUES,
    MexicanTile,
    MexicanTrainRules,
)

MEXICAN_TRAIN = MEXICAN_SLOT
"""The Mexican train's id in a game record (the personal trains' ids are their seats)."""
NUM_TRAINS = NUM_SLOTS
DECK_SIZE = NUM_TILES - 1
"""M2.3, M2.4: every tile but the round's engine is shuffled and dealt."""

# ------------------------------------------------------------------ lookup tables
TILE_LOW = np.array([t.low for t in ALL_TILES], np.int64)
TILE_HIGH = np.array([t.high for t in ALL_TILES], np.int64)
TILE_VALUES = (1 << TILE_LOW) | (1 << TILE_HIGH)
"""``TILE_VALUES[tile]``: the end values the tile has, as bits (M3.2: what it fits)."""
TILE_PIPS = TILE_LOW + TILE_HIGH  # M1.3
DOUBLE_OF = np.array([MexicanTile.of(v, v).index for v in range(NUM_VALUES)], np.int64)
_DOUBLE_BLANK = DOUBLE_BLANK.index
_DOUBLE_BLANK_50 = 50  # M1.3 variant

_HAND = OBSERVATION_SLICES["hand"].start
_TRAINS = OBSERVATION_SLICES["trains"].start
_OPEN_ENDS = OBSERVATION_SLICES["open_ends"].start
_MARKERS = OBSERVATION_SLICES["markers"].start
_PLAYABLE = OBSERVATION_SLICES["playable"].start
_UNSATISFIED = OBSERVATION_SLICES["unsatisfied"].start
_EXTRA = OBSERVATION_SLICES["extra_placement"].start
_SIZES = OBSERVATION_SLICES["hand_sizes"].start
_VOIDS = OBSERVATION_SLICES["voids"].start
_TOTALS = OBSERVATION_SLICES["totals"].start
_SEATS = OBSERVATION_SLICES["seats"].start
_TO_ACT = OBSERVATION_SLICES["to_act"].start
_BONEYARD = OBSERVATION_SLICES["boneyard"].start
_DREW = OBSERVATION_SLICES["drew"].start
_ROUND = OBSERVATION_SLICES["round"].start


GAME = np.dtype(
    [
        ("hands", np.uint8, (MAX_PLAYERS, NUM_TILES)),  # the tiles held: hands[seat, :size]
        ("hand_sizes", np.uint8, (MAX_PLAYERS,)),
        ("deck", np.uint8, (DECK_SIZE,)),  # the round's shuffled order (M2.4) ...
        ("top", np.uint8),  # ... the boneyard is deck[top:], top first
        ("layout", np.uint8, (DECK_SIZE,)),  # the tiles on the trains, in the order placed
        ("layout_train", np.uint8, (DECK_SIZE,)),  # the train each of them went on
        ("layout_size", np.uint8),
        ("open_ends", np.uint8, (NUM_TRAINS,)),  # by train id (M3.2)
        ("markers", np.uint8, (NUM_TRAINS,)),  # M3.4 (never on the Mexican train)
        ("unsatisfied", np.uint8, (NUM_TRAINS,)),  # trains ending in a double, oldest first
        ("num_unsatisfied", np.uint8),
        ("extra_placement", np.uint8),  # M5.2
        ("voids", np.uint8, (MAX_PLAYERS, NUM_VALUES)),  # values each seat was shown not to hold
        ("totals", np.int32, (MAX_PLAYERS,)),
        ("seed", np.uint64),
        ("hand_number", np.uint8),  # the round r; its engine is 12 - r (M2.2)
        ("current", np.uint8),
        ("drew", np.uint8),
        ("learner", np.uint8),  # whose view final_obs shows
    ],
    align=True,
)
"""One game's state: a record of small arrays, 1,192 bytes.

The trains are kept as the reference engine keeps them: an open end and a marker per
train, unsatisfied doubles oldest first (M5.4). A batch is ``np.zeros(B, GAME)``.
"""


class Params(NamedTuple):
    """The rules and env options as plain numbers, for the compiled code
    (:func:`~spinner_env.batched.core.engine_params` fills it)."""

    num_players: int
    hand_size: int
    num_rounds: int
    double_blank_50: bool
    hand_score_reward: bool
    hand_episode: bool
    random_learner: bool
    learner_seat: int


# ------------------------------------------------------------------ the deal (M2)
@njit(cache=True)
def _start_episode(game: np.record, p: Params, next_seed: np.ndarray) -> None:
    seed = next_seed[0]
    next_seed[0] = seed + np.uint64(1)
    game.seed = seed
    game.totals[:] = 0
    game.hand_number = 0
    if p.hand_episode:
        game.hand_number = _drawn_from_seed(p.num_rounds, seed, FIRST_HAND_DRAW)
    game.learner = p.learner_seat
    if p.random_learner:
        game.learner = _drawn_from_seed(p.num_players, seed, LEARNER_DRAW)
    _open_round(game, p)


@njit(cache=True)
def _open_round(game: np.record, p: Params) -> None:
    """M2.3-M2.5: the engine to the hub, deal the other 90, seat r mod n opens."""
    n = p.num_players
    k = p.hand_size
    engine_value = MAX_VALUE - game.hand_number
    engine = DOUBLE_OF[engine_value]
    # shuffled(ALL_TILES without the engine): shuffle positions, then skip the engine.
    _shuffle_range(game.deck, DECK_SIZE, game.seed, game.hand_number)
    for i in range(DECK_SIZE):
        if game.deck[i] >= engine:
            game.deck[i] += 1
    game.hand_sizes[:] = 0
    for seat in range(n):
        game.hands[seat, :k] = game.deck[seat * k : (seat + 1) * k]
        game.hand_sizes[seat] = k
    game.top = n * k
    game.layout_size = 0
    game.open_ends[:] = engine_value  # M3.1
    game.markers[:] = 0
    game.num_unsatisfied = 0
    game.extra_placement = 0
    game.voids[:, :] = 0
    game.drew = 0
    game.current = game.hand_number % n


# ------------------------------------------------------------------ the turn (M3-M6)
@njit(cache=True, inline="always")
def _slot(train: int, seat: int, n: int) -> int:
    """A train's slot as ``seat`` sees it: seats clockwise from it, the Mexican train last."""
    if train == MEXICAN_TRAIN:
        return MEXICAN_SLOT
    return (train - seat) % n


@njit(cache=True, inline="always")
def _playable_trains(game: np.record, n: int) -> int:
    """The trains a placement may go on now, as bits of train ids (M3.3, M5.2-M5.4):
    the oldest unsatisfied double's alone, except on an extra placement, which may use
    any open train but must not satisfy a younger double first."""
    if game.num_unsatisfied > 0 and not game.extra_placement:
        return 1 << game.unsatisfied[0]
    me = np.int64(game.current)
    trains = 1 << me | 1 << MEXICAN_TRAIN
    for t in range(n):
        if game.markers[t]:
            trains |= 1 << t
    for i in range(1, game.num_unsatisfied):
        trains &= ~(1 << np.int64(game.unsatisfied[i]))
    return trains


@njit(cache=True, inline="always")
def _open_values(game: np.record, trains: int) -> int:
    """The open ends of a set of trains, as bits of values."""
    values = 0
    for t in range(NUM_TRAINS):
        if trains >> t & 1:
            values |= 1 << np.int64(game.open_ends[t])
    return values


@njit(cache=True, inline="always")
def _legal_mask(game: np.record, p: Params, mask: np.ndarray) -> None:
    """M4.1, M4.2: the placements if any, else draw (once per attempt), else pass."""
    mask[:] = 0
    n = p.num_players
    seat = np.int64(game.current)
    trains = _playable_trains(game, n)
    size = game.hand_sizes[seat]
    can_place = False
    for t in range(NUM_TRAINS):
        if trains >> t & 1:
            end = np.int64(game.open_ends[t])
            first = _slot(t, seat, n) * NUM_TILES
            for i in range(size):
                tile = np.int64(game.hands[seat, i])
                if TILE_VALUES[tile] >> end & 1:
                    mask[first + tile] = 1
                    can_place = True
    if not can_place:
        if game.top < DECK_SIZE and not game.drew:
            mask[DRAW_ACTION] = 1
        else:
            mask[PASS_ACTION] = 1


@njit(cache=True, inline="always")
def _observe(game: np.record, p: Params, seat: int, in_play: bool, obs: np.ndarray) -> None:
    """``MexicanTrainEncoding.observation`` of seat (seats relative to it, padded to 8)."""
    n = p.num_players
    obs[:] = 0.0
    for i in range(game.hand_sizes[seat]):
        obs[_HAND + game.hands[seat, i]] = 1.0
    for i in range(game.layout_size):
        slot = _slot(np.int64(game.layout_train[i]), seat, n)
        obs[_TRAINS + slot * NUM_TILES + game.layout[i]] = 1.0
    for t in range(NUM_TRAINS):
        if t < n or t == MEXICAN_TRAIN:
            slot = _slot(t, seat, n)
            obs[_OPEN_ENDS + slot * NUM_VALUES + game.open_ends[t]] = 1.0
            if game.markers[t]:
                obs[_MARKERS + slot] = 1.0
    for i in range(game.num_unsatisfied):
        obs[_UNSATISFIED + i * NUM_SLOTS + _slot(np.int64(game.unsatisfied[i]), seat, n)] = 1.0
    if in_play:
        trains = _playable_trains(game, n)
        for t in range(NUM_TRAINS):
            if trains >> t & 1:
                obs[_PLAYABLE + _slot(t, seat, n)] = 1.0
        obs[_TO_ACT + (np.int64(game.current) - seat) % n] = 1.0
    for rel in range(n):
        other = (seat + rel) % n
        obs[_SIZES + rel] = game.hand_sizes[other]
        for v in range(NUM_VALUES):
            obs[_VOIDS + rel * NUM_VALUES + v] = game.voids[other, v]
        obs[_TOTALS + rel] = game.totals[other] / 100.0
        obs[_SEATS + rel] = 1.0
    obs[_ROUND + game.hand_number] = 1.0
    obs[_EXTRA] = game.extra_placement
    obs[_BONEYARD] = DECK_SIZE - game.top
    obs[_DREW] = game.drew


@njit(cache=True)
def _show_void(game: np.record, n: int, seat: int) -> None:
    """M7 (``MatchState._show_void``): a seat that draws or passes holds none of the open
    ends it could place on; a tile it drew and kept this turn voids what it showed before."""
    values = _open_values(game, _playable_trains(game, n))
    for v in range(NUM_VALUES):
        if values >> v & 1:
            game.voids[seat, v] = 1
        elif game.drew:
            game.voids[seat, v] = 0


@njit(cache=True)
def _give_up(game: np.record, seat: int, tile: int) -> None:
    """Take a held tile out of the hand (the last tile fills its place: order is free)."""
    last = game.hand_sizes[seat] - 1
    for i in range(last + 1):
        if game.hands[seat, i] == tile:
            game.hands[seat, i] = game.hands[seat, last]
            break
    game.hand_sizes[seat] = last


@njit(cache=True)
def _blocked(game: np.record, n: int) -> bool:
    """M6.1 (``MexicanTrainState.hand_blocked``): the boneyard is empty and no seat could
    place with every train marked; an unsatisfied double still binds (M5.3, M5.4)."""
    if game.top < DECK_SIZE:
        return False
    if game.num_unsatisfied > 0:
        ends = 1 << np.int64(game.open_ends[game.unsatisfied[0]])
    else:
        ends = 1 << np.int64(game.open_ends[MEXICAN_TRAIN])
        for t in range(n):
            ends |= 1 << np.int64(game.open_ends[t])
    for seat in range(n):
        for i in range(game.hand_sizes[seat]):
            if TILE_VALUES[game.hands[seat, i]] & ends:
                return False
    return True


@njit(cache=True, inline="always")
def _end_turn(game: np.record, n: int) -> bool:
    """``MatchState._end_turn``: the round ends if blocked (M6.1), else the next seat acts."""
    if _blocked(game, n):
        return True
    game.current = (np.int64(game.current) + 1) % n
    game.drew = 0
    return False


@njit(cache=True, inline="always")
def _play(game: np.record, p: Params, action: int) -> bool:
    """Play a legal action for the player to act; return whether the round ended."""
    n = p.num_players
    seat = np.int64(game.current)
    if action == DRAW_ACTION:  # M4.2
        _show_void(game, n, seat)
        game.hands[seat, game.hand_sizes[seat]] = game.deck[game.top]
        game.hand_sizes[seat] += 1
        game.top += 1
        game.drew = 1
        return False
    if action == PASS_ACTION:  # M4.3, M5.3: the marker goes out
        _show_void(game, n, seat)
        game.markers[seat] = 1
        game.extra_placement = 0
        return _end_turn(game, n)
    slot = action // NUM_TILES
    tile = action % NUM_TILES
    train = MEXICAN_TRAIN if slot == MEXICAN_SLOT else (seat + slot) % n
    _give_up(game, seat, tile)
    game.layout[game.layout_size] = tile
    game.layout_train[game.layout_size] = train
    game.layout_size += 1
    game.open_ends[train] = TILE_PIPS[tile] - game.open_ends[train]  # M3.2: the other half
    count = game.num_unsatisfied
    for i in range(count):  # M5.3: a tile on an unsatisfied double satisfies it
        if game.unsatisfied[i] == train:
            for j in range(i, count - 1):
                game.unsatisfied[j] = game.unsatisfied[j + 1]
            count -= 1
            break
    if train == seat:
        game.markers[seat] = 0  # M3.4
    double = TILE_LOW[tile] == TILE_HIGH[tile]
    if double:  # M5.2: one more placement; M5.4: satisfied in the order placed
        game.unsatisfied[count] = train
        count += 1
    game.num_unsatisfied = count
    game.extra_placement = double
    game.drew = 0
    if game.hand_sizes[seat] == 0:  # M5.5, M6.1
        return True
    if double:
        return False
    return _end_turn(game, n)


@njit(cache=True)
def _finish_round(
    game: np.record, p: Params, next_seed: np.ndarray, out: BatchStep, b: int
) -> None:
    """M6.2, M6.3: score the round; reward as ``DominoAECEnv._finish_hand``; deal on or
    restart."""
    n = p.num_players
    points = np.zeros(n, np.int64)
    for seat in range(n):
        for i in range(game.hand_sizes[seat]):
            tile = game.hands[seat, i]
            if p.double_blank_50 and tile == _DOUBLE_BLANK:
                points[seat] += _DOUBLE_BLANK_50
            else:
                points[seat] += TILE_PIPS[tile]
    if not end_hand(game, p, points, p.num_rounds, next_seed, out, b):
        game.hand_number += 1
        _open_round(game, p)


# ------------------------------------------------------------------ the Python API
class BatchedMexicanTrain(BatchedEngine):
    """B Mexican Train games stepped together; see the module docstring.

    Args:
        num_games: B.
        rules: the Mexican Train rules and variants (one set for every game).
        reward, episode, learner_seat: as :class:`~spinner_env.batched.core.BatchedEngine`
            (a hand episode is one round).

    ``games`` is the batch's state, one :data:`GAME` record per game.
    """

    game_dtype = GAME
    obs_size = OBSERVATION_SIZE
    encoding = ENCODING
    num_actions = NUM_ACTIONS
    max_players = MAX_PLAYERS
    rules_class = MexicanTrainRules
    params_class = Params


drop_stale_cache(_finish_round)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "GAME",
    "MEXICAN_TRAIN",
    "BatchedMexicanTrain",
]
