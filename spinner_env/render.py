"""Text pictures of game states, kept apart from the rules and the environments."""

from __future__ import annotations

from spinner_env.spinner import SpinnerState, SpinnerTile


def _tiles(tiles: list) -> str:
    return " ".join(str(t) for t in tiles) or "-"


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
        waits = [f"{u.tile} ({u.arms_left} arms of {sym(u.value)} to fill)" for u in state.unfilled]
        lines.append("Unfilled doubles, oldest first: " + ", ".join(waits))
        lines.append(f"  so only {sym(state.unfilled[0].value)} arms are playable")
    lines.append(f"Boneyard: {len(state.boneyard)} tiles")
    for seat in range(state.num_players):
        marks = []
        if seat == state.current and not state.hand_over:
            marks.append("to act")
        if state.voids[seat]:
            marks.append("shown void in " + " ".join(sym(v) for v in sorted(state.voids[seat])))
        extra = f"  ({'; '.join(marks)})" if marks else ""
        lines.append(
            f"  player_{seat}: {len(state.hands[seat])} tiles, total {state.totals[seat]}{extra}"
        )
    if viewer is not None:
        lines.append(f"player_{viewer}'s hand: {_tiles(state.hands[viewer])}")
    if state.hand_over:
        result = state.results[-1]
        how = "blocked" if result.blocked else "went out"
        lines.append(
            f"Hand over: player_{result.winner} wins ({how}); points added {list(result.points)}"
        )
    if state.match_over:
        winners = ", ".join(f"player_{s}" for s in state.match_winners())
        lines.append(f"Match over: {winners} with the lowest total {min(state.totals)}")
    return "\n".join(lines)
