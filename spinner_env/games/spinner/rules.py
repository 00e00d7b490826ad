"""The rules of Spinner dominoes (``shared/rules/spinner.md``, cited as S1.1 ... S8).

Plain Python, no RL imports. :class:`SpinnerState` is a whole match: build it with
:meth:`SpinnerState.new` from a seed, or :meth:`SpinnerState.from_position` from an
explicit deal, then alternate ``legal_moves()`` and ``apply(move)``; when
``hand_over`` is true call ``start_next_hand()`` until ``match_over``.

The layout (S4.1) is a tree, but by S4.5 open ends of equal value are interchangeable,
so the state keeps only what the rules look at: the count of free open ends of each
value, and the unfilled doubles (S5) oldest first with the arms each has left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

from spinner_env.core.match import (
    DRAW,
    PASS,
    Draw,
    MatchState,
    Pass,
    check_bool,
    check_int,
    given_totals,
    json_list,
    shuffled,
)
from spinner_env.core.tiles import Tile, parse_tiles

S = 10
"""S1.3: the wild spinner symbol as an end value (so that S1.4 points are a plain sum)."""
NUM_VALUES = 11
MAX_HANDS = 10


class SpinnerTile(Tile):
    """S1.1: the 55 double-nine tiles plus the 11 spinners, 66 in all; S prints as ``S``."""

    __slots__ = ()
    MAX_VALUE = S
    SYMBOLS = {S: "S"}


ALL_TILES: tuple[SpinnerTile, ...] = SpinnerTile.all_tiles()
DOUBLE_SPINNER = SpinnerTile.of(S, S)


def parse(text: str) -> SpinnerTile:
    """S1.3: read ``"7-S"``, ``"S-7"``, ``"0-0"`` as a tile."""
    return SpinnerTile.parse(text)


def tile_points(tile: Tile) -> int:
    """S1.4: pips, each S counting 10."""
    return tile.low + tile.high


def matches(half: int, end: int) -> bool:
    """S1.2, S4.2: a half fits an end of equal value, and S fits anything either way."""
    return half in (end, S) or end == S


@dataclass(frozen=True, slots=True)
class Place:
    """Place ``tile`` on an open end of value ``end``, leaving ``opens`` open (S4.2, S4.3)."""

    tile: SpinnerTile
    end: int
    opens: int

    def __str__(self) -> str:
        sym = SpinnerTile.symbol
        return f"{self.tile} on {sym(self.end)} (opens {sym(self.opens)})"


Move = Place | Draw | Pass


def _placements_of(tile: SpinnerTile, end: int) -> tuple[Place, ...]:
    if tile.is_double:
        # S4.4: a double opens arms of its own value whichever way it is attached.
        return (Place(tile, end, tile.low),) if matches(tile.low, end) else ()
    # The two ends differ, so the two ways of attaching always leave different values open.
    return tuple(
        Place(tile, end, opens)
        for attached, opens in ((tile.low, tile.high), (tile.high, tile.low))
        if matches(attached, end)
    )


PLACEMENTS_ON: tuple[tuple[tuple[Place, ...], ...], ...] = tuple(
    tuple(_placements_of(tile, end) for end in range(NUM_VALUES)) for tile in ALL_TILES
)
"""``PLACEMENTS_ON[tile.index][end]``: every distinct way to put the tile on that end."""

ALL_PLACEMENTS: tuple[Place, ...] = tuple(
    p for per_tile in PLACEMENTS_ON for per_end in per_tile for p in per_end
)
"""Every placement that can ever be legal, in a fixed order (the env's action ids)."""


@dataclass(frozen=True)
class SpinnerRules:
    """The rules page's defaults, with its named variants as flags."""

    num_players: int = 2
    num_hands: int = MAX_HANDS
    """S2.2 variant ``num_hands``: play only the first k hands (9-9 down)."""
    draw_until_playable: bool = False
    """S6.2 variant: keep drawing until a tile can be placed or the boneyard is empty."""
    shortened: bool = False
    """S7.3 variant: no drawing for the set; the highest lower double held sets."""
    seeded_first_dealer: bool = False
    """S2.3 variant: the dealer of hand 0 is drawn by the seed rather than seat 0."""

    def __post_init__(self) -> None:
        SpinnerState.check_num_players(self.num_players)
        check_int("num_hands", self.num_hands, 1, MAX_HANDS)
        for flag in ("draw_until_playable", "shortened", "seeded_first_dealer"):
            check_bool(flag, getattr(self, flag))

    @property
    def hand_size(self) -> int:
        """S2.4: 14 tiles each with 2 players, 7 with 3 to 8."""
        return 14 if self.num_players == 2 else 7

    @staticmethod
    def start_value(hand_number: int) -> int:
        """S2.2: hand h opens with the double 9-h."""
        return 9 - hand_number


@dataclass(frozen=True, slots=True)
class Placed:
    """A tile on the layout: who placed it, on what end value (None: the set), what it opened."""

    seat: int
    tile: SpinnerTile
    end: int | None
    opens: int


@dataclass(slots=True)
class UnfilledDouble:
    """A double whose arms must be filled before play goes elsewhere (S3.4, S5)."""

    tile: SpinnerTile
    value: int
    arms_left: int


@dataclass(eq=False)
class SpinnerState(MatchState):
    """A match of Spinner dominoes in progress."""

    rules: SpinnerRules = field(default_factory=SpinnerRules)
    dealer: int = 0
    layout: list[Placed] = field(default_factory=list)
    free_ends: list[int] = field(default_factory=lambda: [0] * NUM_VALUES)
    unfilled: list[UnfilledDouble] = field(default_factory=list)

    TILE: ClassVar[type[Tile]] = SpinnerTile
    RULES: ClassVar[type] = SpinnerRules

    # ------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        rules: SpinnerRules | None = None,
        seed: int = 0,
        hand_number: int = 0,
        order: Sequence[Tile] | None = None,
    ) -> SpinnerState:
        """A match whose every hand is dealt from ``seed`` (S2.4), starting at ``hand_number``;
        ``order`` deals that first hand explicitly (:meth:`MatchState._deal_order`)."""
        rules = rules or SpinnerRules()
        check_int("seed", seed, 0)
        check_int("hand_number", hand_number, 0, rules.num_hands - 1)
        n = rules.num_players
        dealer = shuffled(list(range(n)), seed, -1)[0] if rules.seeded_first_dealer else 0
        state = cls._undealt(seed, hand_number, [0] * n, rules=rules, dealer=dealer)
        state._open_hand(order)
        return state

    @classmethod
    def from_position(
        cls,
        hands: list[list[SpinnerTile]] | list[list[str]] | list[str],
        boneyard: list[SpinnerTile] | list[str] | str,
        rules: SpinnerRules | None = None,
        *,
        dealer: int = 0,
        hand_number: int = 0,
        totals: list[int] | None = None,
        seed: int = 0,
    ) -> SpinnerState:
        """Start a hand from an explicit deal, as it lies before the set (S3).

        ``hands[p]`` is seat p's hand and ``boneyard`` the rest, top first; tiles may be
        given as strings (``"7-S"``) and a hand or the boneyard as one string
        (``"9-9 3-S 0-1"``). Later hands of the match are dealt from ``seed``.
        """
        if not isinstance(hands, (list, tuple)):
            raise ValueError(f"hands must be a list of one hand per seat, got {hands!r}")
        rules = rules or SpinnerRules(num_players=len(hands))
        if not isinstance(rules, SpinnerRules):
            raise ValueError(f"rules must be SpinnerRules, got {rules!r}")
        n = rules.num_players
        hands_t = [parse_tiles(SpinnerTile, h) for h in hands]
        boneyard_t = parse_tiles(SpinnerTile, boneyard)
        if len(hands_t) != n:
            raise ValueError(f"{len(hands_t)} hands given for {n} players")
        for seat, hand in enumerate(hands_t):
            if len(hand) != rules.hand_size:
                raise ValueError(
                    f"seat {seat} holds {len(hand)} tiles; S2.4 deals {rules.hand_size} "
                    f"to each of {n} players"
                )
        cls.check_tiles_once([*hands_t, boneyard_t], set(ALL_TILES))
        # The set (S3) reads these two; validate() checks everything once it is done.
        check_int("dealer", dealer, 0, n - 1)
        check_int("hand_number", hand_number, 0, rules.num_hands - 1)
        state = cls._undealt(seed, hand_number, given_totals(totals, n), rules=rules, dealer=dealer)
        state._set_up(hands_t, boneyard_t)
        state.validate()
        return state

    # --------------------------------------------------------------- the hand
    @property
    def num_hands(self) -> int:
        return self.rules.num_hands

    @property
    def may_keep_drawing(self) -> bool:
        return self.rules.draw_until_playable

    @property
    def start_value(self) -> int:
        return SpinnerRules.start_value(self.hand_number)

    def tile_points(self, tile: Tile) -> int:
        return tile_points(tile)

    def hand_tiles(self) -> tuple[SpinnerTile, ...]:
        return ALL_TILES

    def _open_hand(self, order: Sequence[Tile] | None = None) -> None:
        """S2.4: shuffle all 66, deal 14 or 7 each, the rest is the boneyard; S2.3: the
        winner of the hand just played deals the next, one double lower."""
        order = self._deal_order(order)
        if self.results:
            self.dealer = self.results[-1].winner
        k = self.rules.hand_size
        hands = [order[seat * k : (seat + 1) * k] for seat in range(self.num_players)]
        self._set_up(hands, order[self.num_players * k :])

    def _set_up(self, hands: list[list[SpinnerTile]], boneyard: list[SpinnerTile]) -> None:
        """S3: find who sets, and set; the player after the setter acts first."""
        self._reset_hand(hands, boneyard)
        self.layout = []
        self.free_ends = [0] * NUM_VALUES
        d = self.start_value
        wanted = (SpinnerTile.of(d, d), DOUBLE_SPINNER)
        setter, set_tile = self._holder_of(wanted)
        if setter is None and self.rules.shortened:
            lower = tuple(SpinnerTile.of(v, v) for v in range(d - 1, -1, -1))
            setter, set_tile = self._holder_of(lower)
        if setter is None:
            setter, set_tile = self._draw_for_set(wanted)
        assert set_tile is not None
        self.hands[setter].remove(set_tile)
        arm_value = d if set_tile is DOUBLE_SPINNER else set_tile.low
        self.layout.append(Placed(setter, set_tile, None, arm_value))
        self.unfilled = [UnfilledDouble(set_tile, arm_value, arms_left=2)]
        self.current = (setter + 1) % self.num_players

    def _holder_of(self, wanted: tuple[SpinnerTile, ...]) -> tuple[int | None, SpinnerTile | None]:
        """The first tile of ``wanted`` that anyone holds, and its holder (S3.1, S7.3)."""
        for tile in wanted:
            for seat, hand in enumerate(self.hands):
                if tile in hand:
                    return seat, tile
        return None, None

    def _draw_for_set(self, wanted: tuple[SpinnerTile, ...]) -> tuple[int, SpinnerTile]:
        """S3.2: from the dealer clockwise, each draws one tile until one draws a set tile."""
        seat = self.dealer
        while True:
            tile = self.boneyard.pop(0)
            self.hands[seat].append(tile)
            if tile in wanted:
                return seat, tile
            seat = (seat + 1) % self.num_players

    # ------------------------------------------------------------ the layout
    def playable_ends(self) -> list[int]:
        """The end values a placement may go on now (S5.1, S5.2: oldest unfilled double first)."""
        if self.unfilled:
            return [self.unfilled[0].value]
        return [value for value, count in enumerate(self.free_ends) if count]

    def placements(self) -> list[Place]:
        ends = self.playable_ends()
        return [
            place
            for tile in self.hands[self.current]
            for end in ends
            for place in PLACEMENTS_ON[tile.index][end]
        ]

    def _open_values(self) -> set[int]:
        # S8: a player who cannot place holds neither those values nor any spinner.
        return {*self.playable_ends(), S}

    def _place(self, move: Place) -> bool:
        if self.unfilled:
            oldest = self.unfilled[0]
            oldest.arms_left -= 1  # S5.1, S5.3
            if oldest.arms_left == 0:
                del self.unfilled[0]  # S5.4
        else:
            self.free_ends[move.end] -= 1
        if move.tile.is_double:
            self.unfilled.append(UnfilledDouble(move.tile, move.opens, arms_left=3))  # S4.4
        else:
            self.free_ends[move.opens] += 1
        self.layout.append(Placed(self.current, move.tile, move.end, move.opens))
        return False

    def _after_no_placement(self) -> None:
        pass

    def open_end_counts(self) -> list[int]:
        """Every open end by value, the arms of unfilled doubles included."""
        counts = list(self.free_ends)
        for double in self.unfilled:
            counts[double.value] += double.arms_left
        return counts

    # ------------------------------------------------------------ validation
    def validate(self) -> None:
        """ValueError naming the first field that breaks an invariant (see
        :meth:`MatchState.validate`): the dealer, the layout as a sequence of
        legal placements from the set (S3, S4, S5), the open ends and unfilled doubles it
        leaves, and every tile in exactly one place (S1.1)."""
        super().validate()
        check_int("dealer", self.dealer, 0, self.num_players - 1)
        if not isinstance(self.layout, list) or not self.layout:
            raise ValueError("layout must list the tiles placed, the set (S3) first")
        for i, placed in enumerate(self.layout):
            if not isinstance(placed, Placed) or not isinstance(placed.tile, SpinnerTile):
                raise ValueError(f"layout[{i}] must be a Placed tile, got {placed!r}")
            check_int(f"layout[{i}].seat", placed.seat, 0, self.num_players - 1)
            check_int(f"layout[{i}].opens", placed.opens, 0, S)
        self.check_tiles_once(
            [*self.hands, self.boneyard, [p.tile for p in self.layout]], set(ALL_TILES)
        )
        if not isinstance(self.free_ends, list) or len(self.free_ends) != NUM_VALUES:
            raise ValueError(f"free_ends must be a list of {NUM_VALUES} counts")
        for value, count in enumerate(self.free_ends):
            check_int(f"free_ends[{value}]", count, 0)
        if not isinstance(self.unfilled, list):
            raise ValueError(f"unfilled must be a list, got {self.unfilled!r}")
        for i, double in enumerate(self.unfilled):
            if not isinstance(double, UnfilledDouble):
                raise ValueError(f"unfilled[{i}] must be an UnfilledDouble, got {double!r}")
            check_int(f"unfilled[{i}].value", double.value, 0, S)
            check_int(f"unfilled[{i}].arms_left", double.arms_left, 1, 3)
        replayed = self._replay_layout()
        if self.free_ends != replayed.free_ends:
            raise ValueError(
                f"free_ends {self.free_ends!r} are not what the layout leaves open "
                f"({replayed.free_ends})"
            )
        if self.unfilled != replayed.unfilled:
            raise ValueError(
                f"unfilled {self.unfilled!r} are not the doubles the layout leaves unfilled "
                f"({replayed.unfilled})"
            )

    def _replay_layout(self) -> SpinnerState:
        """The layout placed again, placement by placement, from the set: ValueError at
        the first that was not legal when it was made."""
        first = self.layout[0]
        d = self.start_value
        set_tiles = [SpinnerTile.of(d, d), DOUBLE_SPINNER]
        if self.rules.shortened:
            set_tiles += [SpinnerTile.of(v, v) for v in range(d)]  # S7.3
        arm_value = d if first.tile is DOUBLE_SPINNER else first.tile.low
        if first.tile not in set_tiles or first.end is not None or first.opens != arm_value:
            raise ValueError(
                f"layout[0] must be the set (S3): one of {', '.join(map(str, set_tiles))} "
                f"on no end, opening {SpinnerTile.symbol(arm_value)}; got {first!r}"
            )
        replay = replace(
            self,
            layout=[first],
            free_ends=[0] * NUM_VALUES,
            unfilled=[UnfilledDouble(first.tile, arm_value, arms_left=2)],
        )
        for i, placed in enumerate(self.layout[1:], start=1):
            check_int(f"layout[{i}].end", placed.end, 0, S)
            move = Place(placed.tile, placed.end, placed.opens)
            if move not in PLACEMENTS_ON[placed.tile.index][placed.end]:
                raise ValueError(f"layout[{i}]: {move} is not a way to place {placed.tile}")
            if placed.end not in replay.playable_ends():
                raise ValueError(f"layout[{i}]: {move} went on an end that was not open (S5.1)")
            replay.current = placed.seat
            replay._place(move)
        return replay

    # ------------------------------------------------------------------ misc
    def copy(self) -> SpinnerState:
        """An independent copy, cheaper than ``copy.deepcopy`` (tiles are shared)."""
        new = super().copy()
        new.layout = list(self.layout)
        new.free_ends = list(self.free_ends)
        new.unfilled = [UnfilledDouble(u.tile, u.value, u.arms_left) for u in self.unfilled]
        return new

    def to_dict(self) -> dict[str, Any]:
        """The full state as JSON-ready data; :meth:`from_dict` reads it back."""
        data = self._common_dict()
        data.update(
            rules=asdict(self.rules),
            dealer=self.dealer,
            layout=[
                {"seat": p.seat, "tile": str(p.tile), "end": p.end, "opens": p.opens}
                for p in self.layout
            ],
            free_ends=list(self.free_ends),
            unfilled=[
                {"tile": str(u.tile), "value": u.value, "arms_left": u.arms_left}
                for u in self.unfilled
            ],
        )
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SpinnerState:
        """Rebuild a state written by :meth:`to_dict`; ValueError if it is inconsistent."""
        try:
            state = cls(
                **cls._common_fields(data),
                rules=SpinnerRules(**data["rules"]),
                dealer=data["dealer"],
                layout=[
                    Placed(p["seat"], parse(p["tile"]), p["end"], p["opens"])
                    for p in json_list(data, "layout")
                ],
                free_ends=data["free_ends"],
                unfilled=[
                    UnfilledDouble(parse(u["tile"]), u["value"], u["arms_left"])
                    for u in json_list(data, "unfilled")
                ],
            )
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a Spinner state: {err!r}") from err
        state.validate()
        return state


__all__ = [
    "ALL_PLACEMENTS",
    "ALL_TILES",
    "DOUBLE_SPINNER",
    "DRAW",
    "PASS",
    "PLACEMENTS_ON",
    "Move",
    "Place",
    "Placed",
    "S",
    "SpinnerRules",
    "SpinnerState",
    "SpinnerTile",
    "UnfilledDouble",
    "matches",
    "parse",
    "tile_points",
]
