"""Mexican Train's encoding: action ids and observation vectors (``mexican_train_v0``'s).

Actions: one id per (train, tile) placement, then draw, then pass. Trains are named from
the seat of the player to act, as the engine's
:class:`~spinner_env.games.mexican_train.rules.Place` names them: slot 0 is the own
train, slot k the train of the player k seats clockwise (slots 1-7, those past the last
player never legal), slot 8 the Mexican train; the id of tile t on slot k is
``k * 91 + t.index``. Observations: a float32 vector laid out by
``OBSERVATION_LAYOUT`` (the docs' Environments page tables it), with seats relative to
the observer and padded to 8 players, as in ``spinner_v0``.
"""

from __future__ import annotations

import numpy as np

from spinner_env.core.encoding import (
    SEAT_ORDERS,
    Bound,
    Encoding,
    blank_observations,
    layout_bounds,
    layout_slices,
)
from spinner_env.core.match import DRAW, PASS
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    MEXICAN,
    NUM_ROUNDS,
    NUM_VALUES,
    PLACES,
    MexicanTrainState,
    Move,
    Place,
)

MAX_PLAYERS = 8
NUM_TILES = len(ALL_TILES)
MEXICAN_SLOT = MAX_PLAYERS
NUM_SLOTS = MAX_PLAYERS + 1
"""Train slots: the 8 relative seats' personal trains, then the Mexican train."""

PLACEMENTS: tuple[Place, ...] = tuple(place for on_train in PLACES for place in on_train)
"""Slot by slot (the relative seats' trains, then the Mexican train), tile by tile."""
ACTIONS: tuple[Move, ...] = (*PLACEMENTS, DRAW, PASS)
DRAW_ACTION = len(PLACEMENTS)
PASS_ACTION = DRAW_ACTION + 1
NUM_ACTIONS = len(ACTIONS)

OBSERVATION_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_TILES, "1 for each tile in the observer's hand (tile index order)"),
    (
        "trains",
        NUM_SLOTS * NUM_TILES,
        "per train slot (relative seats 0-7, then the Mexican train), 1 for each tile on it",
    ),
    (
        "open_ends",
        NUM_SLOTS * NUM_VALUES,
        "per train slot, one-hot open end value 0-12 (the engine value while the train is"
        " empty; all 0 for a seat with no player)",
    ),
    ("markers", MAX_PLAYERS, "1 for each relative seat whose train carries a marker (M3.4)"),
    (
        "playable",
        NUM_SLOTS,
        "1 for each train slot the player to act may place on now (M3.3, M5.2-M5.4);"
        " 0 once the round is over",
    ),
    (
        "unsatisfied",
        NUM_SLOTS * NUM_SLOTS,
        "the unsatisfied doubles oldest first (up to 9 rows), each a one-hot train slot"
        " whose last tile it is (M5.3, M5.4)",
    ),
    ("extra_placement", 1, "1 while the player to act takes a double's extra placement (M5.2)"),
    ("hand_sizes", MAX_PLAYERS, "tiles in each hand, by seat relative to the observer (M6.4)"),
    (
        "voids",
        MAX_PLAYERS * NUM_VALUES,
        "per relative seat, 1 for each value 0-12 it is known to hold no tile of (M7)",
    ),
    ("totals", MAX_PLAYERS, "match totals / 100, by relative seat"),
    ("seats", MAX_PLAYERS, "1 for each relative seat that has a player"),
    (
        "to_act",
        MAX_PLAYERS,
        "one-hot relative seat of the player to act (zero once the round is over)",
    ),
    ("boneyard", 1, "tiles in the boneyard"),
    ("drew", 1, "1 if the player to act has drawn since its last placement (M4.2, M5.2)"),
    ("round", NUM_ROUNDS, "one-hot round number r (engine double 12-r)"),
)
OBSERVATION_SLICES, OBSERVATION_SIZE = layout_slices(OBSERVATION_LAYOUT)
MAX_HAND_POINTS = sum(t.pips for t in ALL_TILES) + 50
"""No hand holds more points than the whole set, 0-0 counting 50 (M1.3)."""
OBSERVATION_BOUNDS: dict[str, tuple[Bound, Bound]] = {
    **{
        name: (0, 1)
        for name in (
            "hand",
            "trains",
            "open_ends",
            "markers",
            "playable",
            "unsatisfied",
            "extra_placement",
            "voids",
            "seats",
            "to_act",
            "drew",
            "round",
        )
    },
    "hand_sizes": (0, NUM_TILES),
    "totals": (0, NUM_ROUNDS * MAX_HAND_POINTS / 100),
    "boneyard": (0, NUM_TILES),
}
"""Each part's lowest and highest value as the rules allow (not all are reached in play)."""
OBSERVATION_LOW, OBSERVATION_HIGH = layout_bounds(OBSERVATION_LAYOUT, OBSERVATION_BOUNDS)
STATE_SIZE = OBSERVATION_SIZE + MAX_PLAYERS * NUM_TILES + NUM_TILES
"""state(): seat 0's observation, then every seat's hand (absolute seats), then the boneyard."""

_SL = OBSERVATION_SLICES
_TRAINS = _SL["trains"].start
_OPEN_ENDS = _SL["open_ends"].start
_MARKERS = _SL["markers"].start
_PLAYABLE = _SL["playable"].start
_UNSATISFIED = _SL["unsatisfied"].start
_EXTRA = _SL["extra_placement"].start
_SIZES = _SL["hand_sizes"].start
_VOIDS = _SL["voids"].start
_TOTALS = _SL["totals"].start
_SEATS = _SL["seats"].start
_TO_ACT = _SL["to_act"].start
_BONEYARD = _SL["boneyard"].start
_DREW = _SL["drew"].start
_ROUND = _SL["round"].start
_BLANK = blank_observations(OBSERVATION_SIZE, _SL["seats"])


class MexicanTrainEncoding(Encoding):
    obs_size = OBSERVATION_SIZE
    state_size = STATE_SIZE
    num_tiles = NUM_TILES
    obs_low = OBSERVATION_LOW
    obs_high = OBSERVATION_HIGH

    def __init__(self) -> None:
        super().__init__(ACTIONS, "Mexican Train")

    def observation(self, game: MexicanTrainState, seat: int, memo: None = None) -> np.ndarray:
        # This runs every decision: entries are stored one by one into a copy of the
        # blank buffer (see blank_observations), nothing is built that is not stored.
        n = game.num_players
        obs = _BLANK[n][:]
        order = SEAT_ORDERS[n][seat]

        def slot(train: int) -> int:
            return MEXICAN_SLOT if train == MEXICAN else (train - seat) % n

        for tile in game.hands[seat]:
            obs[tile.index] = 1.0
        for train_id in [*order, MEXICAN]:
            train = game.trains[train_id]
            base = slot(train_id)
            tiles_base = _TRAINS + base * NUM_TILES
            for tile in train.tiles:
                obs[tiles_base + tile.index] = 1.0
            obs[_OPEN_ENDS + base * NUM_VALUES + train.open_end] = 1.0
            if train.marker:
                obs[_MARKERS + base] = 1.0
        hands, voids, totals = game.hands, game.voids, game.totals
        for rel, other in enumerate(order):
            obs[_SIZES + rel] = len(hands[other])
            obs[_TOTALS + rel] = totals[other] / 100.0
            base = _VOIDS + rel * NUM_VALUES
            for value in voids[other]:
                obs[base + value] = 1.0
        for i, train in enumerate(game.unsatisfied):
            obs[_UNSATISFIED + i * NUM_SLOTS + slot(train)] = 1.0
        if not game.hand_over:
            for train in game.playable_trains():
                obs[_PLAYABLE + slot(train)] = 1.0
            obs[_TO_ACT + (game.current - seat) % n] = 1.0
        obs[_ROUND + game.hand_number] = 1.0
        obs[_EXTRA] = game.extra_placement
        obs[_BONEYARD] = len(game.boneyard)
        obs[_DREW] = game.drew_this_turn
        return np.frombuffer(obs, np.float32)


ENCODING = MexicanTrainEncoding()
action_to_move = ENCODING.move_of
"""The move an action id stands for (ValueError if out of range)."""
move_to_action = ENCODING.action_of
"""The action id of a move (ValueError if the game has no such move)."""

__all__ = [
    "ACTIONS",
    "DRAW_ACTION",
    "ENCODING",
    "MAX_HAND_POINTS",
    "MAX_PLAYERS",
    "MEXICAN_SLOT",
    "NUM_ACTIONS",
    "NUM_SLOTS",
    "NUM_TILES",
    "OBSERVATION_BOUNDS",
    "OBSERVATION_HIGH",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_LOW",
    "OBSERVATION_SIZE",
    "OBSERVATION_SLICES",
    "PASS_ACTION",
    "PLACEMENTS",
    "STATE_SIZE",
    "MexicanTrainEncoding",
    "Place",
    "action_to_move",
    "move_to_action",
]
