"""Text pictures of game states, kept apart from the rules and the environments."""

from __future__ import annotations

from collections.abc import Callable

from spinner_env.core.match import MatchState
from spinner_env.mexican_train import MexicanTrainState, train_name
from spinner_env.spinner import SpinnerState, SpinnerTile


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural but for one: ``1 tile``, ``3 tiles``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


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
        waits = [
            f"{u.tile} ({counted(u.arms_left, 'arm')} of {sym(u.value)} to fill)"
            for u in state.unfilled
        ]
        lines.append("Unfilled doubles, oldest first: " + ", ".join(waits))
        lines.append(f"  so only {sym(state.unfilled[0].value)} arms are playable")
    lines.append(f"Boneyard: {counted(len(state.boneyard), 'tile')}")
    lines += _seat_lines(state, sym)
    if viewer is not None:
        lines.append(f"player_{viewer}'s hand: {_tiles(state.hands[viewer])}")
    lines += _ending_lines(state, "Hand")
    return "\n".join(lines)


def render_mexican_train(state: MexicanTrainState, viewer: int | None = None) -> str:
    """The trains with their open ends and markers, unsatisfied doubles, hand and boneyard
    sizes, totals; ``viewer``'s hand is shown (None: no hand)."""
    e = state.engine_value
    lines = [
        f"Mexican Train, round {state.hand_number + 1} of {state.num_hands} (engine {e}-{e})",
        "Trains, from the hub:",
    ]
    for train_id in state.train_ids():
        train = state.trains[train_id]
        marker = ", marker" if train.marker else ""
        lines.append(
            f"  {train_name(train_id)}: {_tiles(train.tiles)} (open {train.open_end}{marker})"
        )
    if state.unsatisfied:
        waits = ", ".join(train_name(t) for t in state.unsatisfied)
        lines.append(f"Unsatisfied doubles, oldest first, on: {waits}")
    if state.extra_placement and not state.hand_over:
        lines.append(f"player_{state.current} takes the extra placement of a double")
    lines.append(f"Boneyard: {counted(len(state.boneyard), 'tile')}")
    lines += _seat_lines(state, str)
    if viewer is not None:
        lines.append(f"player_{viewer}'s hand: {_tiles(state.hands[viewer])}")
    lines += _ending_lines(state, "Round")
    return "\n".join(lines)


def _seat_lines(state: MatchState, symbol: Callable[[int], str]) -> list[str]:
    """Per seat: hand size, match total, whether it acts, the values it was shown void in."""
    lines = []
    for seat in range(state.num_players):
        marks = []
        if seat == state.current and not state.hand_over:
            marks.append("to act")
        if state.voids[seat]:
            marks.append("shown void in " + " ".join(symbol(v) for v in sorted(state.voids[seat])))
        extra = f"  ({'; '.join(marks)})" if marks else ""
        hand = counted(len(state.hands[seat]), "tile")
        lines.append(f"  player_{seat}: {hand}, total {state.totals[seat]}{extra}")
    return lines


def _ending_lines(state: MatchState, hand_word: str) -> list[str]:
    """How the hand (a round, in Mexican Train) and the match ended, once they have."""
    lines = []
    if state.hand_over:
        result = state.results[-1]
        how = "blocked" if result.blocked else "went out"
        lines.append(
            f"{hand_word} over: player_{result.winner} wins ({how}); "
            f"points added {list(result.points)}"
        )
    if state.match_over:
        winners = ", ".join(f"player_{s}" for s in state.match_winners())
        lines.append(f"Match over: {winners} with the lowest total {min(state.totals)}")
    return lines
