"""Mexican Train's board in pictures and on the web page: the engine, then one row per
train from the hub outward, its marker as a red flag, the Mexican train in red, the open
end of every train as a target, an unsatisfied double outlined in orange (M5.3).
:mod:`spinner_env.picture` draws the rest of the table.
"""

from __future__ import annotations

import math

from spinner_env.games.mexican_train.rules import (
    MEXICAN,
    MexicanTrainState,
    Place,
    train_name,
)
from spinner_env.picture import (
    ACTIVE,
    HAND_TOP,
    HEADER_H,
    MAIN_W,
    MAIN_X,
    MARKER,
    MUTED,
    TEXT,
    TILE_EDGE,
    WAITING,
    Group,
    Line,
    Polygon,
    Rect,
    Scene,
    Text,
    half_shapes,
    tile_group,
)

WILD_VALUE = None
"""No value is wild: 10-12 are pips on a 3 x 4 grid."""


def title(state: MexicanTrainState) -> str:
    e = state.engine_value
    return (
        f"Mexican Train  ·  round {state.hand_number + 1} of {state.num_hands}"
        f"  ·  engine {e}-{e}"
    )


def move_target(state: MexicanTrainState, move: Place) -> dict[str, str]:
    """The train a placement goes on, as the board's ``data-train`` targets name it (the
    seat, or -1 for the Mexican train)."""
    return {"target": str(state.absolute_train(move.train))}


def draw_board(scene: Scene, state: MexicanTrainState) -> None:
    """The engine, then one row per train from the hub outward (M3)."""
    top = HEADER_H + 12
    e = state.engine_value
    scene.add(Text(MAIN_X, top + 10, "Trains, from the hub", 16, MUTED))
    engine = tile_group(e, e, MAIN_X, top + 24, 26, WILD_VALUE, True, ACTIVE, {"class": "engine"})
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
            tile_shapes = tile_group(attached, opens, tx, ty, side, WILD_VALUE, False, edge, attrs)
            scene.add(tile_shapes)
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
        target.shapes += half_shapes(end, end_x, y + line * (side + 8), side, WILD_VALUE)
        scene.add(target)
        y += (line + 1) * (side + 8)
    if state.unsatisfied:
        waits = ", ".join(train_name(t) for t in state.unsatisfied)
        scene.add(
            Text(MAIN_X + MAIN_W, top + 10, f"Unsatisfied double on {waits}", 14, WAITING, "r")
        )
