"""The rules of Mexican Train (``shared/rules/mexican_train.md``, cited as M1.1 ... M7).

Plain Python, no RL imports, on the same match core as Spinner (:mod:`spinner_env.core.match`):
build a match with :meth:`MexicanTrainState.new` from a seed, or
:meth:`MexicanTrainState.from_position` from an explicit position, then alternate
``legal_moves()`` and ``apply(move)``; when ``hand_over`` is true call
``start_next_hand()`` until ``match_over``. A "hand" of the core is a round here: hand
``r`` is played around the engine double ``e-e``, ``e = 12 - r`` (M2.2).

The state numbers trains by their owner's seat, the Mexican train being :data:`MEXICAN`
(-1), the last entry of ``trains``. A move is a decision of the player to act and names
its train from that player's seat (:class:`Place`): 0 is their own train, k the train of
the player k seats clockwise. So a move means the same to every seat, as the
environment's action ids and observations do. The readings this module settles:

- M2.5: round r is opened by seat r mod n whatever happened in the round before.
- M5.2 with M5.3 and M5.4: the extra placement after a double may go on any train the
  player may use (M3.3), leaving the double unsatisfied, except that it may not satisfy a
  younger double before an older one (M5.4). At the start of every turn, the doubler's
  own next turn included, an unsatisfied double binds (M5.3): the only legal placements
  are on the oldest one, whoever's train it is on, marker or not.
- The extra placement is a fresh attempt: the player draws one tile if nothing can be
  placed (the core resets ``drew_this_turn`` after every placement), and a turn that ends
  with a pass puts the marker out (M4.3), even when the turn placed a double first.
- M7's "who drew or passed on which open ends" is kept as the core's ``voids[p]``: the
  values seat p is known from public play to hold no tile of. A draw or pass shows p
  void in the open ends of every train p could place on at that moment (only the oldest
  unsatisfied double's under M5.3), as :meth:`MexicanTrainState.playable_trains` gives.
- M6.1 (revised 2026-11-30): a round is blocked when, at the end of a turn, the boneyard
  is empty and no seat could place with every train marked
  (:meth:`MexicanTrainState.hand_blocked`), not merely when everyone has passed since
  the last placement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
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
)
from spinner_env.core.tiles import Tile, parse_tiles

MAX_VALUE = 12
NUM_VALUES = MAX_VALUE + 1
NUM_ROUNDS = 13
MEXICAN = -1
"""The Mexican train's id: the last entry of ``trains``, so ``trains[MEXICAN]`` is it."""
DEAL_SIZES: dict[int, int] = {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9}
"""M2.4: tiles dealt to each player, by the number of players."""


class MexicanTile(Tile):
    """M1.1: the 91 double-twelve tiles, written with plain numbers (M1.2)."""

    __slots__ = ()
    MAX_VALUE = MAX_VALUE
    SYMBOLS = {}


ALL_TILES: tuple[MexicanTile, ...] = MexicanTile.all_tiles()
DOUBLE_BLANK = MexicanTile.of(0, 0)


def parse(text: str) -> MexicanTile:
    """M1.2: read ``"9-12"`` or ``"12-9"`` as a tile."""
    return MexicanTile.parse(text)


def train_name(train: int) -> str:
    """A train of the state by its id: ``player_2's train``, ``the Mexican train``."""
    return "the Mexican train" if train == MEXICAN else f"player_{train}'s train"


@dataclass(frozen=True, slots=True)
class Place:
    """The player to act puts ``tile`` on the open end of a train (M3.2).

    ``train`` counts seats clockwise from the player placing: 0 is their own train, k the
    train of the player k seats on; :data:`MEXICAN` is the Mexican train. Which half
    attaches follows from the train's open end, so the train is all a placement names.
    """

    tile: MexicanTile
    train: int

    def __str__(self) -> str:
        if self.train == MEXICAN:
            return f"{self.tile} on the Mexican train"
        if self.train == 0:
            return f"{self.tile} on own train"
        return f"{self.tile} on the train {self.train} seat(s) on"


Move = Place | Draw | Pass

PLACES: tuple[tuple[Place, ...], ...] = tuple(
    tuple(Place(tile, train) for tile in ALL_TILES)
    for train in (*range(MatchState.MAX_PLAYERS), MEXICAN)
)
"""``PLACES[train][tile.index]``: every placement there can be, relative trains 0-7, then
the Mexican train (``PLACES[MEXICAN]``, the last row). The engine hands out these very
objects, so the environment finds their action ids by identity."""


@dataclass(frozen=True)
class MexicanTrainRules:
    """The rules page's defaults, with its named variants as flags."""

    num_players: int = 2
    num_rounds: int = NUM_ROUNDS
    """M2.2 variant ``num_rounds``: play only the first k rounds (engine 12-12 down)."""
    double_blank_50: bool = False
    """M1.3 variant ``double_blank_50``: ``0-0`` left in hand counts 50."""

    def __post_init__(self) -> None:
        MexicanTrainState.check_num_players(self.num_players)
        check_int("num_rounds", self.num_rounds, 1, NUM_ROUNDS)
        check_bool("double_blank_50", self.double_blank_50)

    @property
    def hand_size(self) -> int:
        return DEAL_SIZES[self.num_players]

    @property
    def num_hands(self) -> int:
        """The match core's name for the number of rounds."""
        return self.num_rounds

    @staticmethod
    def engine_value(round_number: int) -> int:
        """M2.2: round r is played around the engine double ``e-e``, e = 12 - r."""
        return MAX_VALUE - round_number


@dataclass(slots=True)
class Train:
    """A train from the hub outward (M3.1, M3.2); ``marker`` only on personal trains (M3.4)."""

    tiles: list[MexicanTile]
    open_end: int
    marker: bool = False


def chain_end(tiles: Sequence[MexicanTile], engine: int) -> int:
    """The open end of a train of ``tiles`` laid from a hub of ``engine`` (M3.2)."""
    end = engine
    for tile in tiles:
        if not tile.has(end):
            raise ValueError(f"{tile} cannot follow an open end of {end}")
        end = tile.other(end)
    return end


@dataclass(eq=False)
class MexicanTrainState(MatchState):
    """A match of Mexican Train in progress.

    ``unsatisfied`` holds the trains whose last tile is an unsatisfied double, oldest
    first (M5.3, M5.4); ``extra_placement`` is true while the player to act takes the
    extra placement a double earned (M5.2).
    """

    rules: MexicanTrainRules = field(default_factory=MexicanTrainRules)
    trains: list[Train] = field(default_factory=list)
    unsatisfied: list[int] = field(default_factory=list)
    extra_placement: bool = False

    TILE: ClassVar[type[Tile]] = MexicanTile
    RULES: ClassVar[type] = MexicanTrainRules

    # ------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        rules: MexicanTrainRules | None = None,
        seed: int = 0,
        hand_number: int = 0,
        order: Sequence[Tile] | None = None,
    ) -> MexicanTrainState:
        """A match whose every round is dealt from ``seed`` (M2.4), from round ``hand_number``;
        ``order`` deals that first round explicitly (:meth:`MatchState._deal_order`)."""
        rules = rules or MexicanTrainRules()
        check_int("seed", seed, 0)
        _check_round(rules, hand_number)
        state = cls._undealt(seed, hand_number, [0] * rules.num_players, rules=rules)
        state._open_hand(order)
        return state

    @classmethod
    def from_position(
        cls,
        hands: Sequence[Sequence[MexicanTile | str] | str],
        boneyard: Sequence[MexicanTile | str] | str,
        rules: MexicanTrainRules | None = None,
        *,
        hand_number: int = 0,
        trains: Sequence[Sequence[MexicanTile | str] | str] | None = None,
        markers: Sequence[int] = (),
        unsatisfied: Sequence[int] | None = None,
        current: int | None = None,
        totals: Sequence[int] | None = None,
        seed: int = 0,
    ) -> MexicanTrainState:
        """A round in play from an explicit position; later rounds are dealt from ``seed``.

        ``hands[p]`` is seat p's hand (any size: a position need not be a fresh deal) and
        ``boneyard`` the rest, top first. ``trains`` lists the tiles on each personal
        train by seat and then on the Mexican train, from the hub outward (default: all
        empty); ``markers`` the seats whose trains carry a marker; ``unsatisfied`` the
        trains ending in a double, oldest first (default: those trains in train order);
        ``current`` the seat to act (default: the round's first player, M2.5). Tiles may
        be strings (``"12-3"``) and any list one string (``"12-3 3-3 0-5"``). Every tile
        but the engine must be in exactly one place.
        """
        if not isinstance(hands, (list, tuple)):
            raise ValueError(f"hands must be a list of one hand per seat, got {hands!r}")
        rules = rules or MexicanTrainRules(num_players=len(hands))
        if not isinstance(rules, MexicanTrainRules):
            raise ValueError(f"rules must be MexicanTrainRules, got {rules!r}")
        n = rules.num_players
        _check_round(rules, hand_number)
        hands_t = [parse_tiles(MexicanTile, h) for h in hands]
        if len(hands_t) != n:
            raise ValueError(f"{len(hands_t)} hands given for {n} players")
        for seat, hand in enumerate(hands_t):
            if not hand:
                raise ValueError(f"seat {seat} holds no tile: the round would be over")
        trains = [[]] * (n + 1) if trains is None else trains
        if not isinstance(trains, (list, tuple)):
            raise ValueError(f"trains must be a list of trains, got {trains!r}")
        if len(trains) != n + 1:
            raise ValueError(f"{len(trains)} trains given: {n} players have {n + 1}")
        trains_t = [parse_tiles(MexicanTile, t) for t in trains]
        if current is None:
            current = hand_number % n
        state = cls._undealt(seed, hand_number, given_totals(totals, n), rules=rules)
        state._reset_hand(hands_t, parse_tiles(MexicanTile, boneyard))
        engine = state.engine_value
        state.trains = [Train(tiles, chain_end(tiles, engine)) for tiles in trains_t]
        if not isinstance(markers, (list, tuple)):
            raise ValueError(f"markers must be a list of seats, got {markers!r}")
        for seat in markers:
            check_int("a marker's seat", seat, 0, n - 1)
            state.trains[seat].marker = True
        if unsatisfied is None:
            unsatisfied = [t for t in state.train_ids() if state._ends_in_double(t)]
        state.unsatisfied = list(unsatisfied) if isinstance(unsatisfied, tuple) else unsatisfied
        state.current = current
        state.validate()
        return state

    # --------------------------------------------------------------- the round
    @property
    def num_hands(self) -> int:
        return self.rules.num_rounds

    @property
    def may_keep_drawing(self) -> bool:
        return False  # M4.2: one tile per attempt

    @property
    def engine_value(self) -> int:
        return MexicanTrainRules.engine_value(self.hand_number)

    @property
    def engine(self) -> MexicanTile:
        """M2.3: the round's hub, which is never in a hand or the boneyard."""
        return MexicanTile.of(self.engine_value, self.engine_value)

    def tile_points(self, tile: Tile) -> int:
        """M1.3: pips; ``0-0`` counts 50 under ``double_blank_50``."""
        if self.rules.double_blank_50 and tile is DOUBLE_BLANK:
            return 50
        return tile.pips

    def hand_tiles(self) -> tuple[MexicanTile, ...]:
        engine = self.engine
        return tuple(t for t in ALL_TILES if t is not engine)

    def _open_hand(self, order: Sequence[Tile] | None = None) -> None:
        """M2.3-M2.5: the engine to the hub, deal the other 90, seat r mod n opens."""
        order = self._deal_order(order)
        k = self.rules.hand_size
        n = self.num_players
        self._reset_hand([order[seat * k : (seat + 1) * k] for seat in range(n)], order[n * k :])
        self.trains = [Train([], self.engine_value) for _ in range(n + 1)]  # M3.1
        self.unsatisfied = []
        # M5.5: a round that ended on a double leaves no extra placement to the next.
        self.extra_placement = False
        self.current = self.hand_number % n

    # ------------------------------------------------------------- the trains
    def train_ids(self) -> list[int]:
        """Every train: the personal ones by seat, then the Mexican train."""
        return [*range(self.num_players), MEXICAN]

    def open_to(self, seat: int) -> list[int]:
        """M3.3: the trains ``seat`` may use: its own, the Mexican train, marked ones."""
        return [t for t in self.train_ids() if t in (seat, MEXICAN) or self.trains[t].marker]

    def playable_trains(self) -> list[int]:
        """The trains a placement may go on now (M3.3, M5.2-M5.4), in train order."""
        if self.unsatisfied and not self.extra_placement:
            return [self.unsatisfied[0]]  # M5.3, M5.4
        # M5.2: the extra placement may leave doubles waiting, but M5.4 forbids
        # satisfying a younger one first.
        younger = self.unsatisfied[1:]
        return [t for t in self.open_to(self.current) if t not in younger]

    def placements(self) -> list[Place]:
        hand = self.hands[self.current]
        places = []
        for train in self.playable_trains():
            end = self.trains[train].open_end
            on_train = PLACES[self.relative_train(train)]
            places += [on_train[tile.index] for tile in hand if end in (tile.low, tile.high)]
        return places  # M3.2, M5.1

    def relative_train(self, train: int) -> int:
        """A train's id as the player to act names it in a :class:`Place`."""
        return MEXICAN if train == MEXICAN else (train - self.current) % self.num_players

    def absolute_train(self, relative: int) -> int:
        """The train a :class:`Place` of the player to act goes on, by its state id."""
        return MEXICAN if relative == MEXICAN else (self.current + relative) % self.num_players

    def _open_values(self) -> set[int]:
        return {self.trains[t].open_end for t in self.playable_trains()}

    def _ends_in_double(self, train: int) -> bool:
        tiles = self.trains[train].tiles
        return bool(tiles) and tiles[-1].is_double

    def _place(self, move: Place) -> bool:
        train_id = self.absolute_train(move.train)
        train = self.trains[train_id]
        train.tiles.append(move.tile)
        train.open_end = move.tile.other(train.open_end)
        if train_id in self.unsatisfied:
            self.unsatisfied.remove(train_id)  # M5.3: a tile on it satisfies it
        if train_id == self.current:
            train.marker = False  # M3.4
        self.extra_placement = move.tile.is_double  # M5.2
        if move.tile.is_double:
            self.unsatisfied.append(train_id)
        return self.extra_placement

    def hand_blocked(self) -> bool:
        """M6.1: the boneyard is empty and no seat could place even if every train
        carried a marker; unsatisfied doubles still bind (M5.3, M5.4).

        A pass marks the passer's train (M4.3) and can open it to a seat that passed
        before, so "everyone passed" is not enough: once every seat has passed in a row
        every train is marked, and the seat that can place then does.
        """
        if self.boneyard:
            return False
        if self.unsatisfied:
            open_ends = {self.trains[self.unsatisfied[0]].open_end}
        else:
            open_ends = {train.open_end for train in self.trains}
        return not any(tile.has(end) for hand in self.hands for tile in hand for end in open_ends)

    def _after_no_placement(self) -> None:
        """M4.3: the turn ended without a (further) placement: the marker goes out."""
        self.trains[self.current].marker = True
        self.extra_placement = False

    # ------------------------------------------------------------------ misc
    def validate(self) -> None:
        """ValueError naming the first field that breaks an invariant (see
        :meth:`MatchState.validate`): every train a chain from the engine
        (M3.2) with its open end, markers only on personal trains (M3.4), the
        unsatisfied doubles exactly the trains ending in one (M5.3), and every tile but
        the engine in exactly one place (M2.3)."""
        super().validate()
        n = self.num_players
        if not isinstance(self.trains, list) or len(self.trains) != n + 1:
            raise ValueError(f"trains must list {n + 1} trains for {n} players")
        for t in self.train_ids():
            train = self.trains[t]
            name = train_name(t)
            if not isinstance(train, Train) or not isinstance(train.tiles, list):
                raise ValueError(f"{name} must be a Train, got {train!r}")
            for tile in train.tiles:
                if not isinstance(tile, MexicanTile):
                    raise ValueError(f"{name} holds {tile!r}, not a tile")
            check_int(f"{name}'s open end", train.open_end, 0, MAX_VALUE)
            if chain_end(train.tiles, self.engine_value) != train.open_end:
                raise ValueError(f"{name} does not end in {train.open_end}")
            check_bool(f"{name}'s marker", train.marker)
        if self.trains[MEXICAN].marker:
            raise ValueError("the Mexican train never carries a marker (M3.4)")
        if not isinstance(self.unsatisfied, list):
            raise ValueError(f"unsatisfied must be a list of trains, got {self.unsatisfied!r}")
        for i, t in enumerate(self.unsatisfied):
            check_int(f"unsatisfied[{i}]", t, MEXICAN, n - 1)
        ending_in_double = {t for t in self.train_ids() if self._ends_in_double(t)}
        if set(self.unsatisfied) != ending_in_double or len(set(self.unsatisfied)) != len(
            self.unsatisfied
        ):
            raise ValueError(
                "unsatisfied doubles must be exactly the trains ending in a double (M5.3)"
            )
        check_bool("extra_placement", self.extra_placement)
        if self.extra_placement and not self.unsatisfied:
            raise ValueError("extra_placement follows a double (M5.2), but none is unsatisfied")
        placed = [tile for train in self.trains for tile in train.tiles]
        self.check_tiles_once([*self.hands, self.boneyard, placed], set(ALL_TILES) - {self.engine})

    def copy(self) -> MexicanTrainState:
        """An independent copy, cheaper than ``copy.deepcopy`` (tiles are shared)."""
        new = super().copy()
        new.trains = [Train(list(t.tiles), t.open_end, t.marker) for t in self.trains]
        new.unsatisfied = list(self.unsatisfied)
        return new

    def to_dict(self) -> dict[str, Any]:
        """The full state as JSON-ready data; :meth:`from_dict` reads it back."""
        data = self._common_dict()
        data.update(
            rules=asdict(self.rules),
            trains=[
                {"tiles": [str(t) for t in train.tiles], "marker": train.marker}
                for train in self.trains
            ],
            unsatisfied=list(self.unsatisfied),
            extra_placement=self.extra_placement,
        )
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MexicanTrainState:
        """Rebuild a state written by :meth:`to_dict`; ValueError if it is inconsistent."""
        try:
            state = cls(**cls._common_fields(data), rules=MexicanTrainRules(**data["rules"]))
            check_int("hand_number", state.hand_number, 0, state.rules.num_rounds - 1)
            engine = state.engine_value
            for train in json_list(data, "trains"):
                tiles = parse_tiles(MexicanTile, json_list(train, "tiles"))
                state.trains.append(Train(tiles, chain_end(tiles, engine), train["marker"]))
            state.unsatisfied = data["unsatisfied"]
            state.extra_placement = data["extra_placement"]
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a Mexican Train state: {err!r}") from err
        state.validate()
        return state


def _check_round(rules: MexicanTrainRules, hand_number: int) -> None:
    check_int("hand_number (the round)", hand_number, 0, rules.num_rounds - 1)


__all__ = [
    "ALL_TILES",
    "DEAL_SIZES",
    "DOUBLE_BLANK",
    "DRAW",
    "MEXICAN",
    "NUM_ROUNDS",
    "NUM_VALUES",
    "PASS",
    "PLACES",
    "MexicanTile",
    "MexicanTrainRules",
    "MexicanTrainState",
    "Move",
    "Place",
    "Train",
    "chain_end",
    "parse",
    "train_name",
]
