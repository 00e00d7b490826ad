"""Spinner's board in pictures and on the web page: the open ends by value with their
counts (S4.5: ends of equal value are interchangeable, so that is all the rules see), and
the layout as it lies on a table: the set in the middle, lines of play leaving it, doubles
crosswise with three arms (S4.4), each tile's joining half against the tile it joins,
lines turning at the edge of the board, the tiles as large as the layout allows
(:func:`fit_layout`; the geometry is plain data, :func:`lay_out`), an unfilled double and
its waiting arms in orange (S5). :mod:`spinner_env.picture` draws the rest of the table.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, takewhile
from typing import NamedTuple

from spinner_env.core.text import counted
from spinner_env.games.spinner.rules import Place, Placed, S, SpinnerState, SpinnerTile
from spinner_env.picture import (
    ACTIVE,
    HAND_TOP,
    HEADER_H,
    IVORY,
    MAIN_W,
    MAIN_X,
    MUTED,
    TILE_EDGE,
    WAITING,
    Group,
    Line,
    Rect,
    Scene,
    Text,
    half_shapes,
    tile_group,
)

WILD_VALUE = S
"""S1.3: the wild value S is drawn as a gold half with a star."""


def title(state: SpinnerState) -> str:
    d = SpinnerTile.symbol(state.start_value)
    return f"Spinner  ·  hand {state.hand_number + 1} of {state.num_hands}  ·  set {d}-{d}"


def move_target(state: SpinnerState, move: Place) -> dict[str, str]:
    """Where a placement goes, as the board's ``data-end`` targets name it, and what it opens."""
    sym = SpinnerTile.symbol
    return {"target": sym(move.end), "opens": sym(move.opens)}


# ------------------------------------------------------------- Spinner layout
# The table as it lies (S4.1: a tree), on a grid where a tile's half is 2 x 2 units, so the
# middle of a line and of a crosswise double both fall on grid points. The engine keeps
# only counts of open ends by value (S4.5: equal ends are interchangeable), so which of
# several equal ends a tile went on is the picture's choice: the one with the most room.
Step = tuple[int, int]
"""A heading on the grid: (1, 0) east, (0, 1) south (y grows downwards, as on screen)."""
EAST: Step = (1, 0)
WEST: Step = (-1, 0)
Cell = int
"""A grid cell (x, y) as the one number ``x * COLUMN + y``: a layout takes and checks many
cells, and numbers, unlike pairs, are no objects for the garbage collector to walk."""
COLUMN = 1 << 12
"""More than twice the grid's height (at most 116 units, -58 to 58: see :func:`board_grid`)."""


def _across(heading: Step) -> tuple[Step, Step]:
    """The two headings at right angles to ``heading``."""
    dx, dy = heading
    return (-dy, dx), (dy, -dx)


@dataclass(frozen=True, slots=True)
class GridBox:
    """The cells ``x0 <= x < x1``, ``y0 <= y < y1`` of the layout grid."""

    x0: int
    y0: int
    x1: int
    y1: int

    @classmethod
    def around(cls, x: int, y: int, half_w: int, half_h: int) -> GridBox:
        return cls(x - half_w, y - half_h, x + half_w, y + half_h)

    def cells(self) -> tuple[Cell, ...]:
        columns = range(self.x0 * COLUMN, self.x1 * COLUMN, COLUMN)
        return tuple(chain.from_iterable(range(x + self.y0, x + self.y1) for x in columns))

    def within(self, bounds: GridBox) -> bool:
        return (
            bounds.x0 <= self.x0 and self.x1 <= bounds.x1
            and bounds.y0 <= self.y0 and self.y1 <= bounds.y1
        )  # fmt: skip

    def overlap_area(self, other: GridBox) -> int:
        """How many cells the two boxes share."""
        width = min(self.x1, other.x1) - max(self.x0, other.x0)
        height = min(self.y1, other.y1) - max(self.y0, other.y0)
        return max(0, width) * max(0, height)


@dataclass(frozen=True, slots=True)
class LayoutEnd:
    """An open end on the table: the middle of the edge a tile attaches to, the way a line
    leaves it, its value, and the layout index of the tile it belongs to."""

    x: int
    y: int
    heading: Step
    value: int
    owner: int


@dataclass(frozen=True, slots=True)
class TileSpot:
    """Where ``layout[index]`` lies: its box, the values on its left (or top) and right (or
    bottom) halves, the end it joins (None: the set), and whether it touches that end
    (False only where the grid had no room beside it: see :func:`lay_out`)."""

    index: int
    box: GridBox
    halves: tuple[int, int]
    joins: LayoutEnd | None
    touching: bool = True

    @property
    def upright(self) -> bool:
        return self.box.y1 - self.box.y0 > self.box.x1 - self.box.x0


@dataclass(frozen=True)
class TableLayout:
    """A whole layout inside ``bounds`` (the set's centre is the origin): one spot per
    placed tile in order of play, and the arms its unfilled doubles have left (S5)."""

    spots: list[TileSpot]
    bounds: GridBox
    waiting_arms: list[LayoutEnd]

    @property
    def apart(self) -> int:
        """How many tiles lie apart from the end they join."""
        return sum(not spot.touching for spot in self.spots)


class _Shape(NamedTuple):  # a tuple: made often, as fast as can be
    """One way to lay a tile at an end, as geometry: its box and the box's cells, the
    middles of the half at the end and of the other half, and the ends it opens, as (x, y,
    heading)."""

    box: GridBox
    cells: tuple[Cell, ...]
    joining: tuple[int, int]
    other: tuple[int, int]
    opens: tuple[tuple[int, int, Step], ...]
    straight: bool


@dataclass(frozen=True)
class _Option:
    """A shape laid at an open end of the table."""

    end: LayoutEnd
    shape: _Shape


def _shapes_at(x: int, y: int, heading: Step, double: bool) -> tuple[_Shape, ...]:
    """The ways a tile joins the end at (x, y) with its joining half against it: a double
    crosswise, centred on the line or slid along the end as far as it still touches, with
    three arms (S4.4: straight on, and out of both short sides); another tile straight on,
    or turned a corner (joining half on the line, the other half to one side), which is
    how a line folds at the edge of the table or before another line."""
    hx, hy = heading
    ax, ay = x + hx, y + hy
    found = []
    if double:
        for shift in (0, 1, -1):
            cx, cy = ax + shift * abs(hy), ay + shift * abs(hx)
            box = GridBox.around(cx, cy, 1 + abs(hy), 1 + abs(hx))
            arms = [(cx + hx, cy + hy, heading)]
            arms += [(cx + 2 * px, cy + 2 * py, (px, py)) for px, py in _across(heading)]
            found.append(_Shape(box, box.cells(), (cx, cy), (cx, cy), tuple(arms), shift == 0))
        return tuple(found)
    for turned in (heading, *_across(heading)):
        px, py = turned
        bx, by = ax + 2 * px, ay + 2 * py
        box = GridBox(min(ax, bx) - 1, min(ay, by) - 1, max(ax, bx) + 1, max(ay, by) + 1)
        opened = ((bx + px, by + py, turned),)
        found.append(_Shape(box, box.cells(), (ax, ay), (bx, by), opened, turned == heading))
    return tuple(found)


# Laying a tile asks for the shapes at the same few ends many times over (every room
# check): those of the latest ends are kept, and with them their boxes' cells (the grid's
# 183 x 117 points, four headings, tile or double, are too many to keep them all).
_shapes = lru_cache(maxsize=1 << 13)(_shapes_at)


class _Table:
    """A layout being laid tile by tile: the cells taken, the tiles lying apart, and the
    open ends, free (by value) or on unfilled doubles (oldest first, S5.2)."""

    def __init__(self, bounds: GridBox) -> None:
        self.bounds = bounds
        self.taken: set[Cell] = set()
        self.free: dict[int, list[LayoutEnd]] = {}
        self.unfilled: list[list[LayoutEnd]] = []
        self.spots: list[TileSpot] = []
        self.apart = 0

    def result(self) -> TableLayout:
        arms = [arm for arms in self.unfilled for arm in arms]
        return TableLayout(list(self.spots), self.bounds, arms)

    def fits(self, shape: _Shape, besides: GridBox | None = None) -> bool:
        if not shape.box.within(self.bounds):
            return False
        if besides is not None and besides.overlap_area(shape.box):
            return False
        return self.taken.isdisjoint(shape.cells)

    def has_room(
        self, x: int, y: int, heading: Step, besides: GridBox, double: bool = False
    ) -> bool:
        """Whether a tile could still join the end at (x, y) once ``besides`` is taken; a
        ``double``, with room at each of its arms."""
        return any(
            self.fits(s, besides)
            and not (double and any(not self.has_room(*arm, s.box) for arm in s.opens))
            for s in _shapes(x, y, heading, double)
        )

    def crowding(self, box: GridBox) -> int:
        """Taken or off-table cells within two units of ``box``, so that lines keep apart
        and turn before they meet an edge or another line."""
        near = GridBox(box.x0 - 2, box.y0 - 2, box.x1 + 2, box.y1 + 2)
        off_table = near.overlap_area(near) - near.overlap_area(self.bounds)
        # Every taken cell lies on the table (each box laid fits it), so none counts twice.
        return off_table + len(self.taken.intersection(near.cells()))

    def cost(self, option: _Option) -> int:
        """Lower is better. Worst is to shut in an arm that must be filled (S5.1), then to
        leave the tile's own ends without room (for a tile, then for a double and its
        arms), then turning, then crowding."""
        box, opens = option.shape.box, option.shape.opens
        shut = sum(
            1
            for arms in self.unfilled
            for arm in arms
            if arm is not option.end and not self.has_room(arm.x, arm.y, arm.heading, box)
        )
        dead = sum(not self.has_room(x, y, heading, box) for x, y, heading in opens)
        cramped = sum(not self.has_room(x, y, heading, box, double=True) for x, y, heading in opens)
        turned = 0 if option.shape.straight else 4
        return 1000 * shut + 100 * dead + 30 * cramped + turned + self.crowding(box)

    def lay_set(self, placed: Placed) -> None:
        """S3.4: the set stands crosswise in the middle, an arm leaving each long side."""
        box = GridBox.around(0, 0, 1, 2)
        self._take(0, box, box.cells(), (placed.tile.low, placed.tile.high), None)
        self.unfilled.append(
            [LayoutEnd(1, 0, EAST, placed.opens, 0), LayoutEnd(-1, 0, WEST, placed.opens, 0)]
        )

    def lay(self, index: int, placed: Placed) -> bool:
        """Lay ``placed`` at its best spot on an arm of the oldest unfilled double (S5.1,
        S5.2), or else on a free end of its value (S4.5); apart from it if none has room;
        False if the grid has no room for it at all."""
        ends = self.unfilled[0] if self.unfilled else self.free[placed.end]
        double = placed.tile.is_double
        options = [
            _Option(end, shape)
            for end in ends
            for shape in _shapes(end.x, end.y, end.heading, double)
            if self.fits(shape)
        ]
        touching = bool(options)
        option = min(options, key=self.cost) if touching else self._apart(ends[0], double)
        if option is None:
            return False
        ends.remove(option.end)
        if self.unfilled and not self.unfilled[0]:
            del self.unfilled[0]  # S5.4
        tile, joining, shape = placed.tile, placed.tile.other(placed.opens), option.shape
        if double:
            halves = (tile.low, tile.high)
        elif shape.joining < shape.other:
            halves = (joining, placed.opens)
        else:
            halves = (placed.opens, joining)
        self._take(index, shape.box, shape.cells, halves, option.end, touching)
        opened = [LayoutEnd(x, y, heading, placed.opens, index) for x, y, heading in shape.opens]
        if double:
            self.unfilled.append(opened)  # S4.4; S5.3: a double on an arm waits its turn
        else:
            self.free.setdefault(placed.opens, []).extend(opened)
        return True

    def _apart(self, end: LayoutEnd, double: bool) -> _Option | None:
        """The first free spot for a tile joining ``end`` when none touches it: further
        along its heading, else anywhere on the grid, row by row; None if the grid is full.
        The shapes of these far places are not kept (:data:`_shapes`): they are looked at
        once."""
        b, (hx, hy) = self.bounds, end.heading
        along = takewhile(
            # No shape laid at an end off the grid's edges lies on the grid: its box holds
            # a cell beside the end, and the line does not come back once it has left.
            lambda point: b.x0 <= point[0] <= b.x1 and b.y0 <= point[1] <= b.y1,
            ((end.x + k * hx, end.y + k * hy) for k in range(2, b.x1 - b.x0)),
        )
        grid = ((x, y) for y in range(b.y0, b.y1) for x in range(b.x0, b.x1))
        for x, y in chain(along, grid):  # one by one: a spot is mostly found early
            for shape in _shapes_at(x, y, end.heading, double):
                if self.fits(shape):
                    return _Option(end, shape)
        return None

    def _take(
        self,
        index: int,
        box: GridBox,
        cells: tuple[Cell, ...],
        halves: tuple[int, int],
        joins: LayoutEnd | None,
        touching: bool = True,
    ) -> None:
        self.taken.update(cells)
        self.spots.append(TileSpot(index, box, halves, joins, touching))
        self.apart += not touching


def _laid(layout: Sequence[Placed], bounds: GridBox) -> _Table | None:
    table = _Table(bounds)
    table.lay_set(layout[0])
    for index, placed in enumerate(layout[1:], start=1):
        if not table.lay(index, placed):
            return None
    return table


def lay_out(layout: Sequence[Placed], bounds: GridBox) -> TableLayout | None:
    """Every tile of ``layout`` (the set first, then in order of play) on the grid inside
    ``bounds``, each at its best spot as it comes (:meth:`_Table.cost`), so a longer
    layout keeps the spots of the shorter one. A tile that finds no room against the end
    it joins lies apart from it (``touching`` False), and the picture draws a line
    between them; :func:`fit_layout` picks a grid on which none has to. None if the grid
    is too small to hold them all."""
    table = _laid(layout, bounds)
    return None if table is None else table.result()


BOARD_X, BOARD_Y, BOARD_W, BOARD_H = MAIN_X, HEADER_H + 78, MAIN_W, HAND_TOP - HEADER_H - 86
"""The part of the picture the Spinner layout lies in (below the open ends)."""
HALF_SIDES = (40, 34, 29, 25, 22, 19, 16, 14, 12, 10, 8)
"""The sizes a layout's half tiles may take, in pixels, largest first."""


def board_grid(side: float) -> GridBox:
    """The grid of the board at half-tile side ``side`` (pixels); a half is 2 x 2 units,
    so a unit is side / 2 pixels."""
    half_w, half_h = int(BOARD_W // side), int(BOARD_H // side)
    return GridBox(-half_w, -half_h, half_w, half_h)


def fit_layout_exhaustively(layout: Sequence[Placed]) -> tuple[float, TableLayout]:
    """The largest half-tile side (pixels) at which ``layout`` fits the board with every
    tile against the end it joins, and the layout at that size; if no size manages, the
    size with the fewest tiles apart (the largest among equals). Laid afresh at every
    size: what :func:`fit_layout` answers, slowly. Fitting is not monotone in the size (a
    grid one size smaller may need a tile apart where a yet smaller one does not), so no
    size can be skipped. The smallest size always holds a whole layout: its grid splits
    into 2,610 disjoint tile-sized boxes, and the 66 tiles' 528 cells reach at most 528 of
    them."""
    return _fittest([_laid(layout, board_grid(side)) for side in HALF_SIDES])


def _fittest(tables: Sequence[_Table | None]) -> tuple[float, TableLayout]:
    """The size and layout :func:`fit_layout_exhaustively` picks among ``layout`` laid at
    every size of :data:`HALF_SIDES` (None where it does not fit at all)."""
    best: tuple[float, _Table] | None = None
    for side, table in zip(HALF_SIDES, tables, strict=True):
        if table is not None and table.apart == 0:
            return side, table.result()
        if table is not None and (best is None or table.apart < best[1].apart):
            best = side, table
    assert best is not None, "the smallest size holds every layout (see above)"
    return best[0], best[1].result()


class _GrowingTables:
    """The latest layouts laid at every size, so that a longer layout of the same hand
    lays only its new tiles at each size (:func:`lay_out` keeps a shorter layout's spots).
    A shorter layout is looked for up to ``behind`` tiles back (a page draws the table
    after the agents' moves, not after the person's). A layout's tables are taken out to
    lay the next tiles on them, so one thread at a time holds them; a layout asked for
    again after that, or one with no shorter layout here, is laid afresh."""

    def __init__(self, held: int, behind: int) -> None:
        self.held = held
        self.behind = behind
        self.lock = threading.Lock()
        self.tables: OrderedDict[tuple[Placed, ...], list[_Table | None]] = OrderedDict()

    def fit(self, layout: tuple[Placed, ...]) -> tuple[float, TableLayout]:
        """:func:`fit_layout_exhaustively`'s answer for ``layout``."""
        shorter, laid = None, 0
        with self.lock:
            for laid in range(len(layout) - 1, max(0, len(layout) - 1 - self.behind), -1):
                shorter = self.tables.pop(layout[:laid], None)
                if shorter is not None:
                    break
        if shorter is None:
            tables = [_laid(layout, board_grid(side)) for side in HALF_SIDES]
        else:  # None stays None: a longer layout does not fit where a shorter one did not
            tables = [_grown(t, layout, laid) for t in shorter]
        fitted = _fittest(tables)  # before another thread may take the tables to grow them
        with self.lock:
            self.tables[layout] = tables
            while len(self.tables) > self.held:
                self.tables.popitem(last=False)
        return fitted


def _grown(table: _Table | None, layout: Sequence[Placed], laid: int) -> _Table | None:
    """``table``, holding ``layout[:laid]``, with the rest of ``layout`` laid on it."""
    for index in range(laid, len(layout)):
        if table is None or not table.lay(index, layout[index]):
            return None
    return table


_GROWING = _GrowingTables(held=64, behind=8)
"""Enough for a server's games (64 at most) to each keep its latest layout between moves;
eight tiles back: a round of eight players."""


@lru_cache(maxsize=64)  # the web board and rgb_array draw a state more than once
def fit_layout(layout: tuple[Placed, ...]) -> tuple[float, TableLayout]:
    """What :func:`fit_layout_exhaustively` answers, laying only the new tiles at each size
    where a layout a few tiles shorter was laid before (a game's layouts grow a tile at a
    time)."""
    return _GROWING.fit(layout)


def draw_board(scene: Scene, state: SpinnerState) -> None:
    """The open ends by value with their counts, then the layout as it lies."""
    sym = SpinnerTile.symbol
    top = HEADER_H + 12
    scene.add(Text(MAIN_X, top + 10, "Open ends", 16, MUTED))
    counts = state.open_end_counts()
    playable = set(state.playable_ends()) if not state.hand_over else set()
    x = MAIN_X
    chip_side = 30
    for value, count in enumerate(counts):
        if not count:
            continue
        attrs = {"class": "end", "data-end": sym(value)}
        if value in playable:
            attrs["class"] += " playable"
        edge = ACTIVE if value in playable else None
        chip = Rect(x - 4, top + 21, chip_side + 42, chip_side + 8, "#225f3d", edge, 2, 6)
        group = Group(attrs, [chip])
        group.shapes.append(Rect(x, top + 25, chip_side, chip_side, IVORY, TILE_EDGE, 1, 4))
        group.shapes += half_shapes(value, x, top + 25, chip_side, WILD_VALUE)
        group.shapes.append(Text(x + chip_side + 5, top + 25 + chip_side / 2, f"x{count}", 15))
        scene.add(group)
        x += chip_side + 48
    if state.unfilled:
        oldest = state.unfilled[0]
        note = (
            f"fill the {oldest.tile} first: {counted(oldest.arms_left, 'arm')} of "
            f"{sym(oldest.value)} left"
        )
        scene.add(Text(MAIN_X + MAIN_W, top + 10, note, 14, WAITING, "r"))

    side, table = fit_layout(tuple(state.layout))
    unit = side / 2
    cx, cy = BOARD_X + BOARD_W / 2, BOARD_Y + BOARD_H / 2
    waiting = {u.tile for u in state.unfilled}
    last = len(state.layout) - 1
    for spot in table.spots:
        tile = state.layout[spot.index].tile
        x, y = cx + spot.box.x0 * unit, cy + spot.box.y0 * unit
        edge = WAITING if tile in waiting else ACTIVE if spot.index == last else TILE_EDGE
        attrs = {"class": "layout-tile", "data-tile": str(tile)}
        first, second = spot.halves
        scene.add(tile_group(first, second, x, y, side, WILD_VALUE, spot.upright, edge, attrs))
        if not spot.touching and spot.joins is not None:
            end = spot.joins
            scene.add(
                Line(cx + end.x * unit, cy + end.y * unit, x + side / 2, y + side / 2, WAITING, 2)
            )
    for arm in table.waiting_arms:
        # S5: an arm still to fill, marked on the double's edge it leaves from.
        (hx, hy), ax, ay = arm.heading, cx + arm.x * unit, cy + arm.y * unit
        dx, dy = abs(hy) * unit * 0.8, abs(hx) * unit * 0.8
        scene.add(Line(ax - dx, ay - dy, ax + dx, ay + dy, WAITING, max(2, side / 8)))
