"""Spinner's text picture: what ``render_mode="ansi"`` and the terminal game show."""

from __future__ import annotations

from spinner_env.core.text import counted, ending_lines, seat_lines, tiles_text
from spinner_env.games.spinner.rules import SpinnerState, SpinnerTile


def render_spinner(state: SpinnerState, viewer: int | None = None) -> str:
    """The layout, open ends, unfilled doubles, hand and boneyard sizes, totals.

    ``viewer``'s hand is shown (the acting player's, in the environments); pass None to
    show no hand.
    """
    sym = SpinnerTile.symbol
    d = state.start_value
    lines = [
        f"Spinner, hand {state.hand_number + 1} of {state.num_hands} "
        f"(start double {sym(d)}-{sym(d)}), dealer player_{state.dealer}",
        "Layout, in order of play:",
    ]
    for placed in state.layout:
        where = "set" if placed.end is None else f"on {sym(placed.end)}"
        lines.append(f"  player_{placed.seat}: {placed.tile} {where}, opens {sym(placed.opens)}")
    ends = [f"{sym(v)} x{c}" for v, c in enumerate(state.free_ends) if c]
    lines.append("Open ends: " + (", ".join(ends) or "-"))
    if state.unfilled:
        waits = [
            f"{u.tile} ({counted(u.arms_left, 'arm')} of {sym(u.value)} to fill)"
            for u in state.unfilled
        ]
        lines.append("Unfilled doubles, oldest first: " + ", ".join(waits))
        lines.append(f"  so only {sym(state.unfilled[0].value)} arms are playable")
    lines.append(f"Boneyard: {counted(len(state.boneyard), 'tile')}")
    lines += seat_lines(state, sym)
    if viewer is not None:
        lines.append(f"player_{viewer}'s hand: {tiles_text(state.hands[viewer])}")
    lines += ending_lines(state, "Hand")
    return "\n".join(lines)
