"""Pictures of game states: the table drawn as shapes, then as pixels or as SVG.

:func:`table_scene` lays a state out as a :class:`Scene`, a list of plain shapes
(rectangles, circles, polygons, lines, text) on a fixed canvas, as seen from one seat:
its own hand face up, the others' as counts and tile backs, the boneyard as a count.
The scene is a pure function of the state and the seat, so a picture is deterministic.
Two painters read a scene: :func:`to_image` (Pillow; ``render_mode="rgb_array"`` of the
environments is ``np.asarray`` of it) and :func:`to_svg` (the web game's board), so the
pictures and the page look the same. Groups carry data attributes (the tile a hand tile
is, the end or train a target is) that only the SVG keeps, for the page to click on.

What is drawn, for both games: a header (game, hand, whose turn or how the hand ended),
a side panel (every seat's tile count, match total, and the seat to act outlined; the
boneyard count), and the viewer's hand along the bottom. Spinner: the open ends by value
with their counts (S4.5: ends of equal value are interchangeable, so that is all the
rules see), and the layout as it lies on a table: the set in the middle, lines of play
leaving it, doubles crosswise with three arms (S4.4), each tile's joining half against
the tile it joins, lines turning at the edge of the board, the tiles as large as the
layout allows (:func:`fit_layout`; the geometry is plain data, :func:`lay_out`), an
unfilled double and its waiting arms in orange (S5). Mexican Train: the engine, then
one row per train from the hub outward, its marker as a red flag, the Mexican train in
red, the open end of every train as a target, an unsatisfied double outlined in orange
(M5.3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from html import escape
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from spinner_env.core.match import MatchState
from spinner_env.core.text import counted
from spinner_env.games import game_of
from spinner_env.games.mexican_train.rules import MEXICAN, MexicanTrainState, train_name
from spinner_env.games.spinner.rules import Placed, S, SpinnerState, SpinnerTile

WIDTH, HEIGHT = 1024, 768
"""The canvas: one size for every state, so that frames make a video."""

FELT = "#1d5c3a"
PANEL = "#164a2e"
IVORY = "#fbf7ea"
TILE_EDGE = "#2b2b2b"
BACK = "#7a2e1d"
TEXT = "#f4f1e4"
MUTED = "#b9cbb9"
ACTIVE = "#ffd54a"
WAITING = "#ff8c1a"
SPINNER_HALF = "#ffe3a3"
MARKER = "#e0312b"
PIP_COLOURS = (
    "#222222", "#1c5fb8", "#1f8a3a", "#c0392b", "#6a3fa0", "#0f8c8c", "#8a5a00",
    "#d4477f", "#2d3e50", "#a04000", "#3a7d1a", "#5b2c6f", "#b7950b",
)  # fmt: skip
"""Pip colour by value, so equal values match at a glance (as in coloured-pip sets)."""


# ---------------------------------------------------------------------- shapes
@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    outline: str | None = None
    width: float = 1
    radius: float = 0


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    fill: str


@dataclass(frozen=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: str


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    colour: str
    width: float = 1


@dataclass(frozen=True)
class Text:
    """``anchor``: ``l``, ``m`` or ``r`` for where x is; y is the text's vertical middle."""

    x: float
    y: float
    text: str
    size: int
    fill: str = TEXT
    anchor: str = "l"


@dataclass
class Group:
    """Shapes that belong together; ``attrs`` become SVG attributes (``data-tile``...)."""

    attrs: dict[str, str]
    shapes: list[Shape] = field(default_factory=list)


Shape = Rect | Circle | Polygon | Line | Text | Group


@dataclass
class Scene:
    width: int
    height: int
    background: str
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)


# ---------------------------------------------------------------------- tiles
PIP_GRID_3X3 = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
    8: ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    9: tuple((c, r) for r in range(3) for c in range(3)),
}
"""Pip places (column, row) on a 3 x 3 grid, as on standard tiles."""
_FULL_3X4 = tuple((c, r) for r in range(4) for c in range(3))
PIP_GRID_3X4 = {
    10: tuple(p for p in _FULL_3X4 if p not in ((1, 1), (1, 2))),
    11: tuple(p for p in _FULL_3X4 if p != (1, 1)),
    12: _FULL_3X4,
}
"""Values 10-12 (Mexican Train) on a 3 x 4 grid."""


def half_shapes(value: int, x: float, y: float, side: float, spinner: bool) -> list[Shape]:
    """One half of a tile: a ``side`` x ``side`` square at (x, y) showing ``value``.

    In Spinner the wild value S is a gold half with a star (S1.3), never pips.
    """
    if spinner and value == S:
        cx, cy = x + side / 2, y + side / 2
        return [
            Rect(x + 1, y + 1, side - 2, side - 2, SPINNER_HALF, radius=side * 0.12),
            Polygon(star(cx, cy, side * 0.42, side * 0.18), "#d35400"),
        ]
    cols, rows = (3, 4) if value > 9 else (3, 3)
    places = PIP_GRID_3X4[value] if value > 9 else PIP_GRID_3X3[value]
    pad = side * 0.2
    step_x = (side - 2 * pad) / (cols - 1)
    step_y = (side - 2 * pad) / (rows - 1)
    r = side * (0.075 if value > 9 else 0.09)
    colour = PIP_COLOURS[value]
    return [Circle(x + pad + c * step_x, y + pad + row * step_y, r, colour) for c, row in places]


def star(cx: float, cy: float, outer: float, inner: float) -> tuple[tuple[float, float], ...]:
    """The corners of a five-pointed star centred on (cx, cy), point up."""
    corners = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = -math.pi / 2 + k * math.pi / 5
        corners.append(
            (round(cx + radius * math.cos(angle), 2), round(cy + radius * math.sin(angle), 2))
        )
    return tuple(corners)


def tile_group(
    first: int,
    second: int,
    x: float,
    y: float,
    side: float,
    spinner: bool,
    upright: bool = False,
    outline: str = TILE_EDGE,
    attrs: dict[str, str] | None = None,
) -> Group:
    """A face-up tile with ``first`` on the left (or top, when ``upright``)."""
    w, h = (side, 2 * side) if upright else (2 * side, side)
    group = Group(attrs or {}, [Rect(x, y, w, h, IVORY, outline, max(1, side / 14), side * 0.15)])
    dx, dy = (0, side) if upright else (side, 0)
    group.shapes += half_shapes(first, x, y, side, spinner)
    group.shapes += half_shapes(second, x + dx, y + dy, side, spinner)
    if upright:
        group.shapes.append(Line(x + 3, y + side, x + side - 3, y + side, TILE_EDGE))
    else:
        group.shapes.append(Line(x + side, y + 3, x + side, y + side - 3, TILE_EDGE))
    return group


def back_shape(x: float, y: float, w: float, h: float) -> Rect:
    return Rect(x, y, w, h, BACK, "#f0d9b5", 1, min(w, h) * 0.2)


# ---------------------------------------------------------------------- layout
@dataclass
class Flow:
    """Places items left to right, wrapping, inside a box; each item is w x h."""

    x: float
    y: float
    width: float
    item_w: float
    item_h: float
    gap: float

    @property
    def per_row(self) -> int:
        return max(1, int((self.width + self.gap) // (self.item_w + self.gap)))

    def positions(self, count: int) -> list[tuple[float, float]]:
        return [
            (
                self.x + (k % self.per_row) * (self.item_w + self.gap),
                self.y + (k // self.per_row) * (self.item_h + self.gap),
            )
            for k in range(count)
        ]

    def height(self, count: int) -> float:
        rows = max(1, math.ceil(count / self.per_row))
        return rows * self.item_h + (rows - 1) * self.gap


Pitch = Callable[[float], tuple[float, float, float]]
"""An item's (width, height, gap) for a half-tile side."""


def fitting_side(
    count: int, width: float, height: float, sizes: Sequence[float], pitch: Pitch
) -> float:
    """The largest half-tile side in ``sizes`` whose flow of ``count`` items fits the box."""
    for side in sizes:
        w, h, gap = pitch(side)
        if Flow(0, 0, width, w, h, gap).height(count) <= height:
            return side
    return sizes[-1]


MAIN_X, MAIN_W = 16, 728
SIDE_X = 760
HEADER_H = 44
HAND_TOP = 600


def table_scene(state: MatchState, viewer: int | None, you: bool = True) -> Scene:
    """The table as ``viewer`` sees it (None: no hand face up), its seat labelled "(you)"
    unless ``you`` is false (a replay shows the acting seat's hand, but it is nobody's);
    ValueError for a state of no game of the suite (``games.game_of``)."""
    game = game_of(state)
    scene = Scene(WIDTH, HEIGHT, FELT)
    _BOARDS[game.name](scene, state)
    spinner = game.name == "spinner"  # S1.3: value 10 is the wild S, drawn as a star
    _header(scene, state, spinner)
    _side_panel(scene, state, viewer if you else None)
    _hand(scene, state, viewer, spinner)
    return scene


def _header(scene: Scene, state: MatchState, spinner: bool) -> None:
    scene.add(Rect(0, 0, WIDTH, HEADER_H, PANEL))
    if spinner:
        d = SpinnerTile.symbol(state.start_value)
        title = f"Spinner  ·  hand {state.hand_number + 1} of {state.num_hands}  ·  set {d}-{d}"
    else:
        e = state.engine_value
        title = f"Mexican Train  ·  round {state.hand_number + 1} of {state.num_hands}"
        title += f"  ·  engine {e}-{e}"
    scene.add(Text(16, HEADER_H / 2, title, 20))
    if state.hand_over:
        result = state.results[-1]
        how = "blocked" if result.blocked else "went out"
        status = f"player_{result.winner} wins the hand ({how})"
        if state.match_over:
            winners = state.match_winners()
            status = "Match over: " + ", ".join(f"player_{s}" for s in winners)
            status += " wins" if len(winners) == 1 else " win"
    else:
        status = f"player_{state.current} to act"
    scene.add(Text(WIDTH - 16, HEADER_H / 2, status, 20, ACTIVE, "r"))


def _side_panel(scene: Scene, state: MatchState, viewer: int | None) -> None:
    x, w = SIDE_X, WIDTH - SIDE_X - 12
    scene.add(Rect(x - 8, HEADER_H + 8, w + 8, HEIGHT - HEADER_H - 16, PANEL, radius=8))
    y = HEADER_H + 20
    scene.add(Text(x, y + 6, "Players", 16, MUTED))
    y += 24
    row_h = min(62.0, (HEIGHT - 200 - y) / state.num_players)
    for seat in range(state.num_players):
        acting = seat == state.current and not state.hand_over
        name = f"player_{seat}" + ("  (you)" if seat == viewer else "")
        group = Group({"class": "seat", "data-seat": str(seat)})
        group.shapes.append(
            Rect(x, y, w - 8, row_h - 6, "#225f3d", ACTIVE if acting else None, 3, 6)
        )
        group.shapes.append(Text(x + 10, y + 14, name, 15, ACTIVE if acting else TEXT))
        group.shapes.append(Text(x + w - 18, y + 14, f"total {state.totals[seat]}", 15, TEXT, "r"))
        count = len(state.hands[seat])
        shown = min(count, 16)
        for k in range(shown):
            group.shapes.append(back_shape(x + 10 + k * 9, y + 28, 7, min(14, row_h - 38)))
        group.shapes.append(
            Text(
                x + 16 + shown * 9,
                y + 28 + min(14, row_h - 38) / 2,
                f"{count} tile" + ("" if count == 1 else "s"),
                13,
                MUTED,
            )
        )
        scene.add(group)
        y += row_h
    y = max(y, HEIGHT - 180) + 8
    for k in range(4):
        scene.add(back_shape(x + 10 + k * 3, y + 8 - k * 3, 22, 40))
    boneyard = Group({"class": "boneyard", "data-count": str(len(state.boneyard))})
    boneyard.shapes.append(Text(x + 50, y + 24, f"Boneyard: {len(state.boneyard)}", 17))
    scene.add(boneyard)
    if state.results:
        last = state.results[-1]
        scene.add(Text(x, y + 66, f"Hand {last.hand_number + 1} points:", 14, MUTED))
        for first in range(0, state.num_players, 4):
            points = "  ".join(
                f"p{seat} +{last.points[seat]}"
                for seat in range(first, min(first + 4, state.num_players))
            )
            scene.add(Text(x, y + 86 + first * 5, points, 13, TEXT))


def _hand(scene: Scene, state: MatchState, viewer: int | None, spinner: bool) -> None:
    if viewer is None:
        scene.add(Text(MAIN_X, HAND_TOP + 14, "No hand shown", 15, MUTED))
        return
    hand = state.hands[viewer]
    title = f"player_{viewer}'s hand ({counted(len(hand), 'tile')})"
    scene.add(Text(MAIN_X, HAND_TOP + 10, title, 16, MUTED))
    box_h = HEIGHT - HAND_TOP - 36
    side = fitting_side(
        len(hand), MAIN_W, box_h, (30, 24, 18, 14, 11), lambda s: (2 * s, s, s * 0.35)
    )
    flow = Flow(MAIN_X, HAND_TOP + 26, MAIN_W, 2 * side, side, side * 0.35)
    for tile, (x, y) in zip(hand, flow.positions(len(hand)), strict=True):
        attrs = {"class": "hand-tile", "data-tile": str(tile)}
        scene.add(tile_group(tile.low, tile.high, x, y, side, spinner, attrs=attrs))


# ------------------------------------------------------------- Spinner layout
# The table as it lies (S4.1: a tree), on a grid where a tile's half is 2 x 2 units, so the
# middle of a line and of a crosswise double both fall on grid points. The engine keeps
# only counts of open ends by value (S4.5: equal ends are interchangeable), so which of
# several equal ends a tile went on is the picture's choice: the one with the most room.
Step = tuple[int, int]
"""A heading on the grid: (1, 0) east, (0, 1) south (y grows downwards, as on screen)."""
EAST: Step = (1, 0)
WEST: Step = (-1, 0)


def _across(heading: Step) -> tuple[Step, Step]:
    """The two headings at right angles to ``heading``."""
    dx, dy = heading
    return (-dy, dx), (dy, -dx)


@dataclass(frozen=True)
class GridBox:
    """The cells ``x0 <= x < x1``, ``y0 <= y < y1`` of the layout grid."""

    x0: int
    y0: int
    x1: int
    y1: int

    @classmethod
    def around(cls, x: int, y: int, half_w: int, half_h: int) -> GridBox:
        return cls(x - half_w, y - half_h, x + half_w, y + half_h)

    def cells(self) -> list[tuple[int, int]]:
        return [(x, y) for x in range(self.x0, self.x1) for y in range(self.y0, self.y1)]

    def within(self, bounds: GridBox) -> bool:
        return (
            bounds.x0 <= self.x0 and self.x1 <= bounds.x1
            and bounds.y0 <= self.y0 and self.y1 <= bounds.y1
        )  # fmt: skip


@dataclass(frozen=True)
class LayoutEnd:
    """An open end on the table: the middle of the edge a tile attaches to, the way a line
    leaves it, its value, and the layout index of the tile it belongs to."""

    x: int
    y: int
    heading: Step
    value: int
    owner: int


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class _Option:
    """One way to lay a tile at an end: its box, the middles of the half at the end and of
    the other half, and the ends it opens, as (x, y, heading)."""

    end: LayoutEnd
    box: GridBox
    joining: tuple[int, int]
    other: tuple[int, int]
    opens: tuple[tuple[int, int, Step], ...]
    straight: bool


def _options(end: LayoutEnd, double: bool) -> list[_Option]:
    """The ways a tile joins ``end`` with its joining half against it: a double crosswise,
    centred on the line or slid along the end as far as it still touches, with three arms
    (S4.4: straight on, and out of both short sides); another tile straight on, or turned
    a corner (joining half on the line, the other half to one side), which is how a line
    folds at the edge of the table or before another line."""
    hx, hy = end.heading
    ax, ay = end.x + hx, end.y + hy
    found = []
    if double:
        for shift in (0, 1, -1):
            cx, cy = ax + shift * abs(hy), ay + shift * abs(hx)
            box = GridBox.around(cx, cy, 1 + abs(hy), 1 + abs(hx))
            arms = [(cx + hx, cy + hy, end.heading)]
            arms += [(cx + 2 * px, cy + 2 * py, (px, py)) for px, py in _across(end.heading)]
            found.append(_Option(end, box, (cx, cy), (cx, cy), tuple(arms), shift == 0))
        return found
    for heading in (end.heading, *_across(end.heading)):
        px, py = heading
        bx, by = ax + 2 * px, ay + 2 * py
        box = GridBox(min(ax, bx) - 1, min(ay, by) - 1, max(ax, bx) + 1, max(ay, by) + 1)
        opened = ((bx + px, by + py, heading),)
        found.append(_Option(end, box, (ax, ay), (bx, by), opened, heading == end.heading))
    return found


class _Table:
    """A layout being laid tile by tile: the cells taken (by which tile) and the open
    ends, free (by value) or on unfilled doubles (oldest first, S5.2)."""

    def __init__(self, bounds: GridBox) -> None:
        self.bounds = bounds
        self.owner: dict[tuple[int, int], int] = {}
        self.free: dict[int, list[LayoutEnd]] = {}
        self.unfilled: list[list[LayoutEnd]] = []
        self.spots: list[TileSpot] = []

    def fits(self, box: GridBox, besides: GridBox | None = None) -> bool:
        if not box.within(self.bounds):
            return False
        cells = box.cells()
        if besides is not None and not set(besides.cells()).isdisjoint(cells):
            return False
        return self.owner.keys().isdisjoint(cells)

    def has_room(
        self, x: int, y: int, heading: Step, besides: GridBox, double: bool = False
    ) -> bool:
        """Whether a tile could still join the end at (x, y) once ``besides`` is taken; a
        ``double``, with room at each of its arms."""
        end = LayoutEnd(x, y, heading, 0, 0)
        return any(
            self.fits(o.box, besides)
            and not (double and any(not self.has_room(*arm, o.box) for arm in o.opens))
            for o in _options(end, double)
        )

    def crowding(self, box: GridBox) -> int:
        """Taken or off-table cells within two units of ``box``, so that lines keep apart
        and turn before they meet an edge or another line."""
        near = GridBox(box.x0 - 2, box.y0 - 2, box.x1 + 2, box.y1 + 2)
        b = self.bounds
        return sum(
            1
            for x, y in near.cells()
            if (x, y) in self.owner or not (b.x0 <= x < b.x1 and b.y0 <= y < b.y1)
        )

    def cost(self, option: _Option) -> int:
        """Lower is better. Worst is to shut in an arm that must be filled (S5.1), then to
        leave the tile's own ends without room (for a tile, then for a double and its
        arms), then turning, then crowding."""
        box = option.box
        shut = sum(
            1
            for arms in self.unfilled
            for arm in arms
            if arm is not option.end and not self.has_room(arm.x, arm.y, arm.heading, box)
        )
        dead = sum(not self.has_room(x, y, heading, box) for x, y, heading in option.opens)
        cramped = sum(
            not self.has_room(x, y, heading, box, double=True) for x, y, heading in option.opens
        )
        turned = 0 if option.straight else 4
        return 1000 * shut + 100 * dead + 30 * cramped + turned + self.crowding(box)

    def lay_set(self, placed: Placed) -> None:
        """S3.4: the set stands crosswise in the middle, an arm leaving each long side."""
        self._take(0, GridBox.around(0, 0, 1, 2), (placed.tile.low, placed.tile.high), None)
        self.unfilled.append(
            [LayoutEnd(1, 0, EAST, placed.opens, 0), LayoutEnd(-1, 0, WEST, placed.opens, 0)]
        )

    def lay(self, index: int, placed: Placed) -> bool:
        """Lay ``placed`` at its best spot on an arm of the oldest unfilled double (S5.1,
        S5.2), or else on a free end of its value (S4.5); apart from it if none has room;
        False if the grid has no room for it at all."""
        ends = self.unfilled[0] if self.unfilled else self.free[placed.end]
        double = placed.tile.is_double
        options = [o for end in ends for o in _options(end, double) if self.fits(o.box)]
        touching = bool(options)
        option = min(options, key=self.cost) if touching else self._apart(ends[0], double)
        if option is None:
            return False
        ends.remove(option.end)
        if self.unfilled and not self.unfilled[0]:
            del self.unfilled[0]  # S5.4
        tile, joining = placed.tile, placed.tile.other(placed.opens)
        if double:
            halves = (tile.low, tile.high)
        elif option.joining < option.other:
            halves = (joining, placed.opens)
        else:
            halves = (placed.opens, joining)
        self._take(index, option.box, halves, option.end, touching)
        opened = [LayoutEnd(x, y, heading, placed.opens, index) for x, y, heading in option.opens]
        if double:
            self.unfilled.append(opened)  # S4.4; S5.3: a double on an arm waits its turn
        else:
            self.free.setdefault(placed.opens, []).extend(opened)
        return True

    def _apart(self, end: LayoutEnd, double: bool) -> _Option | None:
        """The first free spot for a tile joining ``end`` when none touches it: further
        along its heading, else anywhere on the grid, row by row; None if the grid is full.
        """
        b, (hx, hy) = self.bounds, end.heading
        along = [(end.x + k * hx, end.y + k * hy) for k in range(2, b.x1 - b.x0)]
        grid = [(x, y) for y in range(b.y0, b.y1) for x in range(b.x0, b.x1)]
        for x, y in along + grid:
            moved = LayoutEnd(x, y, end.heading, end.value, end.owner)
            for option in _options(moved, double):
                if self.fits(option.box):
                    return replace(option, end=end)
        return None

    def _take(
        self,
        index: int,
        box: GridBox,
        halves: tuple[int, int],
        joins: LayoutEnd | None,
        touching: bool = True,
    ) -> None:
        self.owner.update(dict.fromkeys(box.cells(), index))
        self.spots.append(TileSpot(index, box, halves, joins, touching))


def lay_out(layout: Sequence[Placed], bounds: GridBox) -> TableLayout | None:
    """Every tile of ``layout`` (the set first, then in order of play) on the grid inside
    ``bounds``, each at its best spot as it comes (:meth:`_Table.cost`), so a longer
    layout keeps the spots of the shorter one. A tile that finds no room against the end
    it joins lies apart from it (``touching`` False), and the picture draws a line
    between them; :func:`fit_layout` picks a grid on which none has to. None if the grid
    is too small to hold them all."""
    table = _Table(bounds)
    table.lay_set(layout[0])
    for index, placed in enumerate(layout[1:], start=1):
        if not table.lay(index, placed):
            return None
    return TableLayout(table.spots, bounds, [arm for arms in table.unfilled for arm in arms])


BOARD_X, BOARD_Y, BOARD_W, BOARD_H = MAIN_X, HEADER_H + 78, MAIN_W, HAND_TOP - HEADER_H - 86
"""The part of the picture the Spinner layout lies in (below the open ends)."""
HALF_SIDES = (40, 34, 29, 25, 22, 19, 16, 14, 12, 10, 8)
"""The sizes a layout's half tiles may take, in pixels, largest first."""


@lru_cache(maxsize=64)  # the web board and rgb_array draw a state more than once
def fit_layout(layout: tuple[Placed, ...]) -> tuple[float, TableLayout]:
    """The largest half-tile side (pixels) at which ``layout`` fits the board with every
    tile against the end it joins, and the layout at that size; if no size manages, the
    size with the fewest tiles apart (the largest among equals). The smallest size always
    holds a whole layout: its grid splits into 2,610 disjoint tile-sized boxes, and the
    66 tiles' 528 cells reach at most 528 of them."""
    best: tuple[float, TableLayout] | None = None
    for side in HALF_SIDES:
        # A half is 2 x 2 grid units, so a unit is side / 2 pixels.
        half_w, half_h = int(BOARD_W // side), int(BOARD_H // side)
        table = lay_out(layout, GridBox(-half_w, -half_h, half_w, half_h))
        if table is not None and table.apart == 0:
            return side, table
        if table is not None and (best is None or table.apart < best[1].apart):
            best = side, table
    assert best is not None, "the smallest size holds every layout (see above)"
    return best


# --------------------------------------------------------------------- Spinner
def _spinner_board(scene: Scene, state: SpinnerState) -> None:
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
        group.shapes += half_shapes(value, x, top + 25, chip_side, spinner=True)
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
        scene.add(tile_group(first, second, x, y, side, True, spot.upright, edge, attrs))
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


# --------------------------------------------------------------- Mexican Train
def _mexican_board(scene: Scene, state: MexicanTrainState) -> None:
    top = HEADER_H + 12
    e = state.engine_value
    scene.add(Text(MAIN_X, top + 10, "Trains, from the hub", 16, MUTED))
    engine = tile_group(e, e, MAIN_X, top + 24, 26, False, True, ACTIVE, {"class": "engine"})
    scene.add(engine)
    label_w = 150
    area_x = MAIN_X + 36 + label_w
    area_w = MAIN_X + MAIN_W - area_x
    playable = set(state.playable_trains()) if not state.hand_over else set()
    trains = state.train_ids()
    box_h = HAND_TOP - top - 40

    def rows_needed(side: float) -> float:
        per_row = max(1, int((area_w - 2 * side) // (2 * side + 4)))
        lines = sum(max(1, math.ceil((len(state.trains[t].tiles) + 1) / per_row)) for t in trains)
        return lines * (side + 8)

    side = next((s for s in (28, 24, 20, 17, 14, 11) if rows_needed(s) <= box_h), 10)
    per_row = max(1, int((area_w - 2 * side) // (2 * side + 4)))
    y = top + 24
    for train_id in trains:
        train = state.trains[train_id]
        mexican = train_id == MEXICAN
        name = "Mexican train" if mexican else f"player_{train_id}"
        label = Group({"class": "train-label"})
        label.shapes.append(
            Rect(MAIN_X + 36, y, label_w - 8, side + 2, MARKER if mexican else "#225f3d", radius=4)
        )
        label.shapes.append(Text(MAIN_X + 44, y + side / 2 + 1, name, 14))
        if train.marker:
            fx = MAIN_X + 36 + label_w - 30
            label.shapes.append(Line(fx, y + 2, fx, y + side, TEXT, 2))
            label.shapes.append(Polygon(((fx, y + 2), (fx + 14, y + 7), (fx, y + 12)), MARKER))
        scene.add(label)
        attached = e  # M3.2: each tile attaches to the open end the one before left
        x, line = area_x, 0
        for k, tile in enumerate(train.tiles):
            if k and k % per_row == 0:
                line += 1
            tx = area_x + (k % per_row) * (2 * side + 4)
            ty = y + line * (side + 8)
            opens = tile.other(attached)
            last_double = k == len(train.tiles) - 1 and train_id in state.unsatisfied
            edge = WAITING if last_double else TILE_EDGE
            attrs = {"class": "train-tile", "data-tile": str(tile)}
            scene.add(tile_group(attached, opens, tx, ty, side, False, outline=edge, attrs=attrs))
            attached = opens
            x = tx + 2 * side + 4
        end = train.open_end
        end_x = x if train.tiles else area_x
        if train.tiles and len(train.tiles) % per_row == 0:
            line += 1
            end_x = area_x
        attrs = {"class": "train-end", "data-train": str(train_id)}
        edge = TEXT
        if train_id in playable:
            attrs["class"] += " playable"
            edge = ACTIVE
        target = Group(
            attrs, [Rect(end_x, y + line * (side + 8), side, side, "#dcebd9", edge, 2, 3)]
        )
        target.shapes += half_shapes(end, end_x, y + line * (side + 8), side, spinner=False)
        scene.add(target)
        y += (line + 1) * (side + 8)
    if state.unsatisfied:
        waits = ", ".join(train_name(t) for t in state.unsatisfied)
        scene.add(
            Text(MAIN_X + MAIN_W, top + 10, f"Unsatisfied double on {waits}", 14, WAITING, "r")
        )


_BOARDS: dict[str, Callable[[Scene, Any], None]] = {
    "spinner": _spinner_board,
    "mexican_train": _mexican_board,
}
"""Each game's board, by its name in ``games.GAMES``."""


# --------------------------------------------------------------------- painters
@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    # Pillow's bundled font: the same glyphs on every machine, so pictures are reproducible.
    return ImageFont.load_default(size=size)


def _paint(draw: ImageDraw.ImageDraw, shapes: Sequence[Shape]) -> None:
    for shape in shapes:
        if isinstance(shape, Group):
            _paint(draw, shape.shapes)
        elif isinstance(shape, Rect):
            box = (shape.x, shape.y, shape.x + shape.w, shape.y + shape.h)
            width = round(shape.width) if shape.outline else 0
            draw.rounded_rectangle(box, shape.radius, shape.fill, shape.outline, width)
        elif isinstance(shape, Circle):
            r = shape.r
            draw.ellipse((shape.cx - r, shape.cy - r, shape.cx + r, shape.cy + r), shape.fill)
        elif isinstance(shape, Polygon):
            draw.polygon(shape.points, shape.fill)
        elif isinstance(shape, Line):
            draw.line((shape.x1, shape.y1, shape.x2, shape.y2), shape.colour, round(shape.width))
        else:
            anchor = {"l": "lm", "m": "mm", "r": "rm"}[shape.anchor]
            draw.text((shape.x, shape.y), shape.text, shape.fill, _font(shape.size), anchor)


def to_image(scene: Scene) -> Image.Image:
    image = Image.new("RGB", (scene.width, scene.height), scene.background)
    _paint(ImageDraw.Draw(image), scene.shapes)
    return image


def _svg(shape: Shape) -> str:
    if isinstance(shape, Group):
        attrs = "".join(f' {k}="{escape(v)}"' for k, v in shape.attrs.items())
        return f"<g{attrs}>" + "".join(_svg(s) for s in shape.shapes) + "</g>"
    if isinstance(shape, Rect):
        fill = shape.fill or "none"
        stroke = (
            f' stroke="{shape.outline}" stroke-width="{shape.width:g}"' if shape.outline else ""
        )
        return (
            f'<rect x="{shape.x:g}" y="{shape.y:g}" width="{shape.w:g}" height="{shape.h:g}" '
            f'rx="{shape.radius:g}" fill="{fill}"{stroke}/>'
        )
    if isinstance(shape, Circle):
        return f'<circle cx="{shape.cx:g}" cy="{shape.cy:g}" r="{shape.r:g}" fill="{shape.fill}"/>'
    if isinstance(shape, Polygon):
        points = " ".join(f"{x:g},{y:g}" for x, y in shape.points)
        return f'<polygon points="{points}" fill="{shape.fill}"/>'
    if isinstance(shape, Line):
        return (
            f'<line x1="{shape.x1:g}" y1="{shape.y1:g}" x2="{shape.x2:g}" y2="{shape.y2:g}" '
            f'stroke="{shape.colour}" stroke-width="{shape.width:g}"/>'
        )
    anchor = {"l": "start", "m": "middle", "r": "end"}[shape.anchor]
    return (
        f'<text x="{shape.x:g}" y="{shape.y:g}" font-size="{shape.size}" fill="{shape.fill}" '
        f'text-anchor="{anchor}" dominant-baseline="central">{escape(shape.text)}</text>'
    )


def to_svg(scene: Scene) -> str:
    """The scene as an SVG document scaled to its container (the web game's board)."""
    body = "".join(_svg(s) for s in scene.shapes)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {scene.width} {scene.height}" '
        f'font-family="sans-serif"><rect width="100%" height="100%" fill="{scene.background}"/>'
        f"{body}</svg>"
    )


def table_picture(state: MatchState, viewer: int | None) -> np.ndarray:
    """The table as an ``HEIGHT x WIDTH x 3`` uint8 array (``render_mode="rgb_array"``)."""
    return np.asarray(to_image(table_scene(state, viewer)), dtype=np.uint8)


__all__ = [
    "HEIGHT",
    "WIDTH",
    "Scene",
    "table_picture",
    "table_scene",
    "to_image",
    "to_svg",
]
