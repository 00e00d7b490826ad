"""Spinner's encoding: action ids and observation vectors (``spinner_v0``'s spaces).

Actions: one id per placement that can ever be legal (``ACTIONS``: tile, end value it
goes on, value it leaves open), then draw, then pass. Observations: a float32 vector
laid out by ``OBSERVATION_LAYOUT`` (the docs' Environments page tables it), with seats
relative to the observer and padded to 8 players, so one policy fits every player count.
"""

from __future__ import annotations

from array import array

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
from spinner_env.games.spinner.rules import (
    ALL_PLACEMENTS,
    ALL_TILES,
    MAX_HANDS,
    NUM_VALUES,
    Move,
    Place,
    Placed,
    SpinnerState,
    tile_points,
)

MAX_PLAYERS = 8
MAX_UNFILLED = 4
"""Unfilled doubles shown in the observation. At most three can wait at once: only
S-S (and, after an S-S set, the start double) can go on a numbered double's arms, and
only S-S has S arms, so the worst case is three doubles placed on S-S's arms."""

NUM_TILES = len(ALL_TILES)
ACTIONS: tuple[Move, ...] = (*ALL_PLACEMENTS, DRAW, PASS)
DRAW_ACTION = len(ALL_PLACEMENTS)
PASS_ACTION = DRAW_ACTION + 1
NUM_ACTIONS = len(ACTIONS)

OBSERVATION_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_TILES, "1 for each tile in the observer's hand (tile index order)"),
    ("placed", NUM_TILES, "1 for each tile on the layout"),
    ("free_ends", NUM_VALUES, "count of open ends of each value 0-9, S outside unfilled doubles"),
    ("playable_ends", NUM_VALUES, "1 for each end value a placement may go on now (S5)"),
    (
        "unfilled",
        MAX_UNFILLED * (NUM_VALUES + 1),
        "the 4 oldest unfilled doubles (the set counts, S3.4), each a one-hot arm value (11)"
        " and its arms left (0-3)",
    ),
    ("hand_sizes", MAX_PLAYERS, "tiles in each hand, by seat relative to the observer"),
    (
        "voids",
        MAX_PLAYERS * NUM_VALUES,
        "per relative seat, 1 for each value 0-9, S it is known to hold no tile of (S8)",
    ),
    ("totals", MAX_PLAYERS, "match totals / 100, by relative seat"),
    ("seats", MAX_PLAYERS, "1 for each relative seat that has a player"),
    (
        "to_act",
        MAX_PLAYERS,
        "one-hot relative seat of the player to act (zero once the hand is over)",
    ),
    ("boneyard", 1, "tiles in the boneyard"),
    ("drew", 1, "1 if the player to act has drawn this turn (S6.2)"),
    ("hand_number", MAX_HANDS, "one-hot hand number h (start double 9-h)"),
)
OBSERVATION_SLICES, OBSERVATION_SIZE = layout_slices(OBSERVATION_LAYOUT)
MAX_HAND_POINTS = sum(tile_points(t) for t in ALL_TILES)
"""No hand holds more points than the whole set (S1.4)."""
OBSERVATION_BOUNDS: dict[str, tuple[Bound, Bound]] = {
    "hand": (0, 1),
    "placed": (0, 1),
    # Each placement opens at most one end outside the unfilled doubles (S4.3, S4.4).
    "free_ends": (0, NUM_TILES),
    "playable_ends": (0, 1),
    "unfilled": (0, [*[1] * NUM_VALUES, 3] * MAX_UNFILLED),  # a double has 3 arms (S4.4)
    "hand_sizes": (0, NUM_TILES),
    "voids": (0, 1),
    "totals": (0, MAX_HANDS * MAX_HAND_POINTS / 100),
    "seats": (0, 1),
    "to_act": (0, 1),
    "boneyard": (0, NUM_TILES),
    "drew": (0, 1),
    "hand_number": (0, 1),
}
"""Each part's lowest and highest value as the rules allow (not all are reached in play)."""
OBSERVATION_LOW, OBSERVATION_HIGH = layout_bounds(OBSERVATION_LAYOUT, OBSERVATION_BOUNDS)
STATE_SIZE = OBSERVATION_SIZE + MAX_PLAYERS * NUM_TILES + NUM_TILES
"""state(): seat 0's observation, then every seat's hand (absolute seats), then the boneyard."""

_SL = OBSERVATION_SLICES
_FREE = _SL["free_ends"].start
_PLAYABLE = _SL["playable_ends"].start
_UNFILLED = _SL["unfilled"].start
_SIZES = _SL["hand_sizes"].start
_VOIDS = _SL["voids"].start
_TOTALS = _SL["totals"].start
_SEATS = _SL["seats"].start
_TO_ACT = _SL["to_act"].start
_BONEYARD = _SL["boneyard"].start
_DREW = _SL["drew"].start
_HAND_NUMBER = _SL["hand_number"].start
_PLACED = _SL["placed"].start
_BLANK = blank_observations(OBSERVATION_SIZE, _SL["seats"])
_NO_TILES = array("f", bytes(4 * NUM_TILES))


class PlacedTiles:
    """The ``placed`` part of the observation of one game, kept from one observation to
    the next: an environment's memo (``SpinnerEncoding.new_memo``).

    Building it anew walks the whole layout, up to 66 tiles, at every decision. The
    engine only ever appends to a hand's layout, and each placement is a new ``Placed``
    object; so when the layout still holds the placement last seen where it was, the
    entries before it are the ones already seen (in a copied state too), and only the
    tiles placed since are added. Any other layout (a new hand, ``reset``) is walked whole.
    """

    __slots__ = ("last", "seen", "values")

    def __init__(self) -> None:
        self.seen = 0
        self.last: Placed | None = None
        self.values = _NO_TILES[:]

    def part_of(self, layout: list[Placed]) -> array:
        """The ``placed`` part for ``layout`` (the memo's own buffer: copy it to keep it)."""
        seen = self.seen
        if len(layout) < seen or (seen and layout[seen - 1] is not self.last):
            self.values, seen = _NO_TILES[:], 0
        values = self.values
        for placed in layout[seen:]:
            values[placed.tile.index] = 1.0
        self.seen = len(layout)
        self.last = layout[-1] if layout else None
        return values


class SpinnerEncoding(Encoding):
    obs_size = OBSERVATION_SIZE
    state_size = STATE_SIZE
    num_tiles = NUM_TILES
    obs_low = OBSERVATION_LOW
    obs_high = OBSERVATION_HIGH

    def __init__(self) -> None:
        super().__init__(ACTIONS, "Spinner")

    def observation(
        self, game: SpinnerState, seat: int, memo: PlacedTiles | None = None
    ) -> np.ndarray:
        # This runs every decision: entries are stored one by one into a copy of the
        # blank buffer (see blank_observations), nothing is built that is not stored.
        n = game.num_players
        obs = _BLANK[n][:]
        for tile in game.hands[seat]:
            obs[tile.index] = 1.0
        if memo is None:
            for placed in game.layout:
                obs[_PLACED + placed.tile.index] = 1.0
        else:
            obs[_PLACED : _PLACED + NUM_TILES] = memo.part_of(game.layout)
        for end in game.playable_ends():
            obs[_PLAYABLE + end] = 1.0
        for i, double in enumerate(game.unfilled[:MAX_UNFILLED]):
            base = _UNFILLED + i * (NUM_VALUES + 1)
            obs[base + double.value] = 1.0
            obs[base + NUM_VALUES] = double.arms_left
        obs[_FREE : _FREE + NUM_VALUES] = array("f", game.free_ends)
        hands, voids, totals = game.hands, game.voids, game.totals
        for rel, other in enumerate(SEAT_ORDERS[n][seat]):
            obs[_SIZES + rel] = len(hands[other])
            obs[_TOTALS + rel] = totals[other] / 100.0
            base = _VOIDS + rel * NUM_VALUES
            for value in voids[other]:
                obs[base + value] = 1.0
        if not game.hand_over:
            obs[_TO_ACT + (game.current - seat) % n] = 1.0
        obs[_HAND_NUMBER + game.hand_number] = 1.0
        obs[_BONEYARD] = len(game.boneyard)
        obs[_DREW] = game.drew_this_turn
        return np.frombuffer(obs, np.float32)

    def new_memo(self) -> PlacedTiles:
        return PlacedTiles()


ENCODING = SpinnerEncoding()
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
    "MAX_UNFILLED",
    "NUM_ACTIONS",
    "NUM_TILES",
    "OBSERVATION_BOUNDS",
    "OBSERVATION_HIGH",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_LOW",
    "OBSERVATION_SIZE",
    "OBSERVATION_SLICES",
    "PASS_ACTION",
    "STATE_SIZE",
    "Place",
    "PlacedTiles",
    "SpinnerEncoding",
    "action_to_move",
    "move_to_action",
]
