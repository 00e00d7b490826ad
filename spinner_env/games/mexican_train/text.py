"""Mexican Train's text picture: what ``render_mode="ansi"`` and the terminal game show."""

from __future__ import annotations

from spinner_env.core.text import counted, ending_lines, seat_lines, tiles_text
from spinner_env.games.mexican_train.rules import MexicanTrainState, train_name


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
            f"  {train_name(train_id)}: {tiles_text(train.tiles)} (open {train.open_end}{marker})"
        )
    if state.unsatisfied:
        waits = ", ".join(train_name(t) for t in state.unsatisfied)
        lines.append(f"Unsatisfied doubles, oldest first, on: {waits}")
    if state.extra_placement and not state.hand_over:
        lines.append(f"player_{state.current} takes the extra placement of a double")
    lines.append(f"Boneyard: {counted(len(state.boneyard), 'tile')}")
    lines += seat_lines(state, str)
    if viewer is not None:
        lines.append(f"player_{viewer}'s hand: {tiles_text(state.hands[viewer])}")
    lines += ending_lines(state, "Round")
    return "\n".join(lines)
