"""What every game's text picture shares (each game draws its own in its ``text.py``),
kept apart from the rules and the environments."""

from __future__ import annotations

from collections.abc import Callable

from spinner_env.core.match import MatchState


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural but for one: ``1 tile``, ``3 tiles``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def tiles_text(tiles: list) -> str:
    return " ".join(str(t) for t in tiles) or "-"


def seat_lines(state: MatchState, symbol: Callable[[int], str]) -> list[str]:
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


def ending_lines(state: MatchState, hand_word: str) -> list[str]:
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
