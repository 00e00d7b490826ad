"""Pictures of game states: the table drawn as shapes, then as pixels or as SVG.

:func:`table_scene` lays a state out as a :class:`Scene`, a list of plain shapes
(rectangles, circles, polygons, lines, text) on a fixed canvas, as seen from one seat:
its own hand face up, the others' as counts and tile backs, the boneyard as a count.
The scene is a pure function of the state and the seat, so a picture is deterministic.
Two painters read a scene: :func:`to_image` (Pillow; ``render_mode="rgb_array"`` of the
environments is ``np.asarray`` of it) and :func:`to_svg` (the web game's board), so the
pictures and the page look the same. Groups carry data attributes (the tile a hand tile
is, the end or train a target is) that only the SVG keeps, for the page to click on.

What is drawn, for every game: a header (the game's title, whose turn or how the hand
ended), a side panel (every seat's tile count, match total, and the seat to act outlined;
the boneyard count), and the viewer's hand along the bottom. The board between them is
the game's own: its ``board.py`` (:mod:`spinner_env.games.spinner.board`), reached
through its record (``GameSpec.board()``), draws it from the shapes and tiles here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from html import escape

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from spinner_env.core.match import MatchState
from spinner_env.core.text import counted
from spinner_env.games import game_of

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
WILD_HALF = "#ffe3a3"
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


def half_shapes(
    value: int, x: float, y: float, side: float, wild: int | None
) -> list[Shape]:
    """One half of a tile: a ``side`` x ``side`` square at (x, y) showing ``value``.

    The game's wild value ``wild`` (Spinner's S, S1.3; None where a game has none) is a
    gold half with a star, never pips.
    """
    if value == wild:
        cx, cy = x + side / 2, y + side / 2
        return [
            Rect(x + 1, y + 1, side - 2, side - 2, WILD_HALF, radius=side * 0.12),
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
    wild: int | None,
    upright: bool = False,
    outline: str = TILE_EDGE,
    attrs: dict[str, str] | None = None,
) -> Group:
    """A face-up tile with ``first`` on the left (or top, when ``upright``)."""
    w, h = (side, 2 * side) if upright else (2 * side, side)
    group = Group(attrs or {}, [Rect(x, y, w, h, IVORY, outline, max(1, side / 14), side * 0.15)])
    dx, dy = (0, side) if upright else (side, 0)
    group.shapes += half_shapes(first, x, y, side, wild)
    group.shapes += half_shapes(second, x + dx, y + dy, side, wild)
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
    board = game_of(state).board()
    scene = Scene(WIDTH, HEIGHT, FELT)
    board.draw_board(scene, state)
    _header(scene, state, board.title(state))
    _side_panel(scene, state, viewer if you else None)
    _hand(scene, state, viewer, board.WILD_VALUE)
    return scene


def _header(scene: Scene, state: MatchState, title: str) -> None:
    scene.add(Rect(0, 0, WIDTH, HEADER_H, PANEL))
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


def _hand(scene: Scene, state: MatchState, viewer: int | None, wild: int | None) -> None:
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
        scene.add(tile_group(tile.low, tile.high, x, y, side, wild, attrs=attrs))


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
