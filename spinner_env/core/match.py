"""What every domino game of the suite shares, independent of its layout rules.

A match is a sequence of hands. Each hand is dealt from a seed (or given explicitly),
played in turns in which a player places a tile, draws, or passes, and ends when a
player goes out or the hand is blocked. Hands left in hand are scored into match
totals. A game subclasses :class:`MatchState` and supplies its layout: which placements
are legal, what a placement does, how a hand is dealt and opened, and what a tile costs.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from spinner_env.core.tiles import Tile, parse_tiles

_MASK64 = (1 << 64) - 1
M = TypeVar("M", bound="MatchState")


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top tile of the boneyard into hand (only when nothing can be placed)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without placing (only when nothing can be placed or drawn)."""

    def __str__(self) -> str:
        return "pass"


DRAW = Draw()
PASS = Pass()


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: ``points[p]`` is what seat p added to its match total."""

    hand_number: int
    winner: int
    points: tuple[int, ...]
    blocked: bool


def shuffled(tiles: Sequence[Tile], seed: int, hand_number: int) -> list[Tile]:
    """The tiles in the order a hand's shuffle puts them, the same on every machine.

    A Fisher-Yates shuffle driven by SplitMix64 over (seed, hand number): written out
    here rather than taken from ``random`` or numpy, whose shuffles are not promised to
    stay the same across versions.
    """
    order = list(tiles)
    state = (seed * 0x9E3779B97F4A7C15 + hand_number * 0xD1B54A32D192ED03 + 1) & _MASK64
    for i in range(len(order) - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        j = z % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def match_winners(totals: Sequence[int]) -> list[int]:
    """The seats with the lowest match total; equal lowest totals share the win."""
    best = min(totals)
    return [seat for seat, total in enumerate(totals) if total == best]


@dataclass(eq=False)
class MatchState(ABC):
    """The state of a whole match: the current hand in play plus the match so far.

    ``boneyard[0]`` is the top: draws take from the front. ``voids[p]`` holds the end
    values seat p is known, from public play, to hold none of: it drew or passed while
    ends of those values were open to it, and has kept no tile drawn since.
    """

    num_players: int
    seed: int
    hand_number: int
    hands: list[list[Tile]]
    boneyard: list[Tile]
    current: int
    totals: list[int]
    results: list[HandResult] = field(default_factory=list)
    passes_in_row: int = 0
    drew_this_turn: bool = False
    voids: list[set[int]] = field(default_factory=list)

    TILE: ClassVar[type[Tile]] = Tile
    RULES: ClassVar[type]
    """The game's rules class; each game's state has a ``rules`` field of it."""
    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 8

    # ----------------------------------------------------------------- game hooks
    @property
    @abstractmethod
    def num_hands(self) -> int:
        """How many hands the match lasts."""

    @property
    @abstractmethod
    def may_keep_drawing(self) -> bool:
        """Whether a player whose drawn tile cannot be placed draws again."""

    @abstractmethod
    def placements(self) -> list[Any]:
        """The legal placements of the player to act, in a fixed order."""

    @abstractmethod
    def tile_points(self, tile: Tile) -> int:
        """What a tile left in hand adds to its holder's total."""

    @abstractmethod
    def _open_values(self) -> set[int]:
        """The end values the player to act could place on (what a draw shows void)."""

    @abstractmethod
    def _place(self, move: Any) -> bool:
        """Put the tile on the layout; return whether the same player places again."""

    @abstractmethod
    def _after_no_placement(self) -> None:
        """What a turn that ends without a placement leaves behind (a marker, say)."""

    @abstractmethod
    def hand_tiles(self) -> tuple[Tile, ...]:
        """The tiles hand ``hand_number`` deals (all the set's, less any hub tile)."""

    @abstractmethod
    def _open_hand(self, order: Sequence[Tile] | None = None) -> None:
        """Deal the hand ``hand_number`` (:meth:`_deal_order`) and play its forced opening."""

    def _deal_order(self, order: Sequence[Tile] | None) -> list[Tile]:
        """The hand's tiles as dealt: each seat's hand in turn, then the boneyard top first.

        The seed's shuffle, or ``order`` where a caller deals explicitly (OpenSpiel's chance
        nodes, :mod:`spinner_env.openspiel`); ValueError unless ``order`` holds every tile
        of :meth:`hand_tiles` once.
        """
        tiles = self.hand_tiles()
        if order is None:
            return shuffled(tiles, self.seed, self.hand_number)
        order = list(order)
        self.check_tiles_once([order], set(tiles))
        return order

    @classmethod
    def _undealt(cls: type[M], seed: int, hand_number: int, totals: list[int], **game: Any) -> M:
        """A match with no hand dealt yet, for a game's constructors to deal or set up."""
        return cls(
            num_players=len(totals),
            seed=seed,
            hand_number=hand_number,
            hands=[],
            boneyard=[],
            current=0,
            totals=totals,
            **game,
        )

    def copy(self: M) -> M:
        """An independent copy, cheaper than ``copy.deepcopy`` (tiles are shared).

        Games extend it to copy their layout.
        """
        new = copy.copy(self)
        new.hands = [list(h) for h in self.hands]
        new.boneyard = list(self.boneyard)
        new.totals = list(self.totals)
        new.results = list(self.results)
        new.voids = [set(v) for v in self.voids]
        return new

    # ------------------------------------------------------------------ the turn
    @property
    def hand_over(self) -> bool:
        return bool(self.results) and self.results[-1].hand_number == self.hand_number

    @property
    def match_over(self) -> bool:
        return self.hand_over and self.hand_number + 1 >= self.num_hands

    def legal_moves(self) -> list[Any]:
        """Every legal move of the player to act: placements, else draw, else pass."""
        if self.hand_over:
            return []
        places = self.placements()
        if places:
            return places
        if self.boneyard and (not self.drew_this_turn or self.may_keep_drawing):
            return [DRAW]
        return [PASS]

    def apply(self, move: Any) -> None:
        """Play ``move`` for the player to act; ValueError (state unchanged) if illegal."""
        if move not in self.legal_moves():
            if self.hand_over:
                raise ValueError(f"{move} was played after the hand ended")
            raise ValueError(f"{move} is not legal for seat {self.current} now")
        self.play_legal(move)

    def play_legal(self, move: Any) -> None:
        """Play a move already known to be legal (the environments check it themselves)."""
        seat = self.current
        if move is DRAW or isinstance(move, Draw):
            self._show_void(seat)
            self.hands[seat].append(self.boneyard.pop(0))
            self.drew_this_turn = True
            return
        if move is PASS or isinstance(move, Pass):
            self._show_void(seat)
            self.passes_in_row += 1
            self._after_no_placement()
            self._end_turn()
            return
        self.hands[seat].remove(move.tile)
        again = self._place(move)
        self.passes_in_row = 0
        self.drew_this_turn = False
        if not self.hands[seat]:
            self._end_hand(went_out=seat)
        elif not again:
            self._end_turn()

    def _show_void(self, seat: int) -> None:
        """Record what a draw or pass shows: the seat holds none of the open values.

        A tile drawn earlier this turn and kept (it could not be placed) is known only to
        lack the values open now, so it voids what older draws and passes showed.
        """
        if self.drew_this_turn:
            self.voids[seat] = self._open_values()
        else:
            self.voids[seat] |= self._open_values()

    def hand_blocked(self) -> bool:
        """Whether the hand in play is blocked, as checked whenever a turn ends.

        The shared reading (S6.4): the boneyard is empty and every player has passed in
        turn since the last placement. Games whose passes change what others may play
        refine it (Mexican Train's markers, M6.1).
        """
        return not self.boneyard and self.passes_in_row >= self.num_players

    def _end_turn(self) -> None:
        if self.hand_blocked():
            self._end_hand(went_out=None)
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.current = (self.current + 1) % self.num_players
        self.drew_this_turn = False

    # ------------------------------------------------------------------ the hand
    def hand_points(self, seat: int) -> int:
        return sum(self.tile_points(tile) for tile in self.hands[seat])

    def _end_hand(self, went_out: int | None) -> None:
        points = tuple(self.hand_points(seat) for seat in range(self.num_players))
        if went_out is None:
            winner = min(range(self.num_players), key=lambda seat: (points[seat], seat))
        else:
            winner = went_out
        for seat, p in enumerate(points):
            self.totals[seat] += p
        self.results.append(HandResult(self.hand_number, winner, points, went_out is None))

    def start_next_hand(self, order: Sequence[Tile] | None = None) -> None:
        """Deal and open the match's next hand once the current one is over, from the seed
        or in the explicit ``order`` (:meth:`_deal_order`)."""
        if not self.hand_over:
            raise ValueError("the current hand is still in play")
        if self.match_over:
            raise ValueError("the match is over: there is no next hand")
        if order is not None and not isinstance(order, (list, tuple)):
            raise ValueError(f"order must be a list of tiles, got {order!r}")
        self.hand_number += 1
        try:
            self._open_hand(order)
        except ValueError:
            self.hand_number -= 1
            raise

    def _reset_hand(self, hands: list[list[Tile]], boneyard: list[Tile]) -> None:
        self.hands = hands
        self.boneyard = boneyard
        self.passes_in_row = 0
        self.drew_this_turn = False
        self.voids = [set() for _ in range(self.num_players)]

    def match_winners(self) -> list[int]:
        """The seats sharing the lowest total; final once ``match_over``."""
        return match_winners(self.totals)

    # ---------------------------------------------------------------- validation
    @classmethod
    def check_num_players(cls, num_players: int) -> None:
        check_int("num_players", num_players, cls.MIN_PLAYERS, cls.MAX_PLAYERS)

    def validate(self) -> None:
        """ValueError naming the first field that breaks an invariant the engine relies on.

        Checks the rules' type and the fields every game shares; each game extends it with
        its layout (and every tile in exactly one place). Every state built from outside data
        passes through it: ``from_position``, ``from_dict``, an environment's
        ``reset(options={"game": ...})``.
        """
        rules = getattr(self, "rules", None)
        if not isinstance(rules, self.RULES):
            raise ValueError(f"rules must be {self.RULES.__name__}, got {rules!r}")
        self.check_num_players(self.num_players)
        if self.num_players != rules.num_players:
            raise ValueError(
                f"num_players {self.num_players!r} differs from the rules' {rules.num_players}"
            )
        n = self.num_players
        check_int("seed", self.seed, 0)
        check_int("hand_number", self.hand_number, 0, self.num_hands - 1)
        check_int("current", self.current, 0, n - 1)
        check_int("passes_in_row", self.passes_in_row, 0)
        check_bool("drew_this_turn", self.drew_this_turn)
        for name in ("hands", "totals", "voids"):
            value = getattr(self, name)
            if not isinstance(value, list) or len(value) != n:
                raise ValueError(
                    f"{name} must be a list of one entry per seat ({n}), got {value!r}"
                )
        for seat in range(n):
            hand = self.hands[seat]
            if not isinstance(hand, list) or not all(isinstance(t, self.TILE) for t in hand):
                raise ValueError(f"hands[{seat}] must be a list of tiles, got {hand!r}")
            check_int(f"totals[{seat}]", self.totals[seat], 0)
            voids = self.voids[seat]
            if not isinstance(voids, set) or not all(
                _is_int(v) and 0 <= v <= self.TILE.MAX_VALUE for v in voids
            ):
                raise ValueError(
                    f"voids[{seat}] must be a set of end values 0 to {self.TILE.MAX_VALUE}, "
                    f"got {voids!r}"
                )
        boneyard = self.boneyard
        if not isinstance(boneyard, list) or not all(isinstance(t, self.TILE) for t in boneyard):
            raise ValueError(f"boneyard must be a list of tiles, got {boneyard!r}")
        self._validate_results()
        if not self.hand_over:
            for seat, hand in enumerate(self.hands):
                if not hand:
                    raise ValueError(f"hands[{seat}] is empty but the hand is not over")

    def _validate_results(self) -> None:
        if not isinstance(self.results, list):
            raise ValueError(f"results must be a list, got {self.results!r}")
        n = self.num_players
        previous = -1
        for i, result in enumerate(self.results):
            name = f"results[{i}]"
            if not isinstance(result, HandResult):
                raise ValueError(f"{name} must be a HandResult, got {result!r}")
            check_int(f"{name}.hand_number", result.hand_number, previous + 1, self.hand_number)
            previous = result.hand_number
            check_int(f"{name}.winner", result.winner, 0, n - 1)
            check_bool(f"{name}.blocked", result.blocked)
            if not isinstance(result.points, tuple) or len(result.points) != n:
                raise ValueError(f"{name}.points must hold one number per seat ({n})")
            for seat, points in enumerate(result.points):
                check_int(f"{name}.points[{seat}]", points, 0)
        if self.hand_over:
            last = self.results[-1]
            if list(last.points) != [self.hand_points(seat) for seat in range(n)]:
                raise ValueError("the last result's points are not what the hands hold")
            if not last.blocked and self.hands[last.winner]:
                raise ValueError("the last result's winner went out but still holds tiles")

    @classmethod
    def check_tiles_once(cls, groups: Sequence[Sequence[Tile]], expected: set[Tile]) -> None:
        """Every tile of ``expected`` in exactly one place, and nothing else."""
        seen: set[Tile] = set()
        for group in groups:
            for tile in group:
                if not isinstance(tile, cls.TILE):
                    raise ValueError(f"{tile!r} is not a tile of this game")
                if tile in seen:
                    raise ValueError(f"tile {tile} appears more than once")
                seen.add(tile)
        missing = expected - seen
        if missing:
            raise ValueError(
                "tiles missing from the position: " + " ".join(sorted(map(str, missing)))
            )
        extra = seen - expected
        if extra:
            raise ValueError("tiles that are not in play: " + " ".join(sorted(map(str, extra))))

    # --------------------------------------------------------------------- JSON
    def _common_dict(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "seed": self.seed,
            "hand_number": self.hand_number,
            "hands": [[str(t) for t in hand] for hand in self.hands],
            "boneyard": [str(t) for t in self.boneyard],
            "current": self.current,
            "totals": list(self.totals),
            "results": [
                {
                    "hand_number": r.hand_number,
                    "winner": r.winner,
                    "points": list(r.points),
                    "blocked": r.blocked,
                }
                for r in self.results
            ],
            "passes_in_row": self.passes_in_row,
            "drew_this_turn": self.drew_this_turn,
            "voids": [sorted(v) for v in self.voids],
        }

    @classmethod
    def _common_fields(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The shared fields of a :meth:`_common_dict`, as they are: :meth:`validate` judges
        them. Lists become the engine's types (tiles, sets, results) or a ValueError."""
        if not isinstance(data, dict):
            raise ValueError(f"a state is a dict of its fields, got {type(data).__name__}")
        return {
            "num_players": data["num_players"],
            "seed": data["seed"],
            "hand_number": data["hand_number"],
            "hands": [parse_tiles(cls.TILE, h) for h in json_list(data, "hands")],
            "boneyard": parse_tiles(cls.TILE, json_list(data, "boneyard")),
            "current": data["current"],
            "totals": data["totals"],
            "results": [
                HandResult(
                    r["hand_number"], r["winner"], tuple(json_list(r, "points")), r["blocked"]
                )
                for r in json_list(data, "results")
            ],
            "passes_in_row": data["passes_in_row"],
            "drew_this_turn": data["drew_this_turn"],
            "voids": [_int_set(v) for v in json_list(data, "voids")],
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_set(values: Any) -> Any:
    """A JSON list of ints as a set; anything else as it is, for :meth:`validate` to name."""
    return set(values) if isinstance(values, list) and all(map(_is_int, values)) else values


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """ValueError naming ``name`` unless ``value`` is an int (not a bool) in [low, high]."""
    if not _is_int(value) or value < low or (high is not None and value > high):  # type: ignore[operator]
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be an integer {span}, got {value!r}")


def given_totals(totals: Sequence[int] | None, num_players: int) -> list[int]:
    """The match totals a position starts from (default all 0), one per seat."""
    if totals is None:
        return [0] * num_players
    if not isinstance(totals, (list, tuple)) or len(totals) != num_players:
        raise ValueError(f"totals must list one match total per seat ({num_players}): {totals!r}")
    return list(totals)


def check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def json_list(data: dict[str, Any], key: str) -> list[Any]:
    """``data[key]``, which must be a list (KeyError if absent, for the caller to name)."""
    value = data[key]
    if not isinstance(value, list):
        raise ValueError(f"{key} must be a list, got {value!r}")
    return value
