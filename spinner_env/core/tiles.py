"""Domino tiles and their notation, shared by every game in the suite.

A tile is an unordered pair of end values stored lower end first. Each game fixes its
set by subclassing :class:`Tile` with its highest value and the symbols it prints
(Spinner prints its wild value 10 as ``S``; Mexican Train prints 10 as ``10``).
Tiles are interned: ``Tile.of(a, b)`` and ``parse`` return the one instance of that
tile, so identity, equality and hashing are all cheap in the engines' hot loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

T = TypeVar("T", bound="Tile")


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile ``low-high`` (``low <= high``); ``index`` is its place in ``all_tiles()``."""

    low: int
    high: int
    index: int = field(compare=False, repr=False)

    MAX_VALUE: ClassVar[int] = 0
    SYMBOLS: ClassVar[dict[int, str]] = {}
    _SET: ClassVar[tuple[Tile, ...]] = ()
    _BY_PAIR: ClassVar[dict[tuple[int, int], Tile]] = {}

    def __init_subclass__(cls) -> None:
        # No super() call: slots=True rebuilds the class, which breaks zero-argument super.
        if cls.MAX_VALUE <= 0:
            return
        tiles = []
        for high in range(cls.MAX_VALUE + 1):
            for low in range(high + 1):
                tiles.append(cls(low, high, len(tiles)))
        cls._SET = tuple(tiles)
        cls._BY_PAIR = {(t.low, t.high): t for t in tiles}

    @classmethod
    def all_tiles(cls: type[T]) -> tuple[T, ...]:
        """Every tile of the set, ordered by high end then low end (the index order)."""
        return cls._SET  # type: ignore[return-value]

    @classmethod
    def of(cls: type[T], a: int, b: int) -> T:
        """The tile with ends ``a`` and ``b`` in either order."""
        key = (a, b) if a <= b else (b, a)
        try:
            return cls._BY_PAIR[key]  # type: ignore[return-value]
        except KeyError:
            raise ValueError(f"no tile {a}-{b} in a set with values 0..{cls.MAX_VALUE}") from None

    @classmethod
    def parse(cls: type[T], text: str) -> T:
        """Read a tile in the game's notation, either end first: ``"7-S"``, ``"S-7"``."""
        if not isinstance(text, str):
            raise ValueError(f"a tile is written as a string a-b, got {text!r}")
        parts = text.strip().split("-")
        if len(parts) != 2:
            raise ValueError(f"tile {text!r} is not of the form a-b")
        return cls.of(cls.value_of(parts[0]), cls.value_of(parts[1]))

    @classmethod
    def value_of(cls, symbol: str) -> int:
        """The end value a symbol stands for (``"S"`` -> 10 in Spinner, ``"7"`` -> 7)."""
        symbol = symbol.strip()
        for value, name in cls.SYMBOLS.items():
            if symbol.upper() == name:
                return value
        if symbol.isdigit() and int(symbol) <= cls.MAX_VALUE and int(symbol) not in cls.SYMBOLS:
            return int(symbol)
        raise ValueError(f"{symbol!r} is not an end value of this tile set")

    @classmethod
    def symbol(cls, value: int) -> str:
        """How an end value is written (``10`` -> ``"S"`` in Spinner)."""
        return cls.SYMBOLS.get(value, str(value))

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def pips(self) -> int:
        """The sum of both ends' values."""
        return self.low + self.high

    def has(self, value: int) -> bool:
        return self.low == value or self.high == value

    def other(self, value: int) -> int:
        """The end opposite an end of ``value`` (which the tile must have)."""
        if self.low == value:
            return self.high
        if self.high == value:
            return self.low
        raise ValueError(f"{self} has no end {self.symbol(value)}")

    def __reduce__(self) -> tuple[Callable[[int, int], Tile], tuple[int, int]]:
        # Copies and unpickled tiles are the canonical instance: the engines compare
        # tiles by identity (``tile is DOUBLE_SPINNER``).
        return type(self).of, (self.low, self.high)

    def __str__(self) -> str:
        return f"{self.symbol(self.low)}-{self.symbol(self.high)}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


def parse_tiles(tile_type: type[T], texts: Sequence[T | str] | str) -> list[T]:
    """Parse a list of tiles, or one string of them separated by spaces or commas.

    Tiles already of ``tile_type`` in the list are kept as they are.
    """
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    elif not isinstance(texts, (list, tuple)):
        raise ValueError(f"tiles are a list or a string of tiles, got {texts!r}")
    return [t if isinstance(t, tile_type) else tile_type.parse(t) for t in texts]
