"""Rollouts of reference Spinner positions on the batched engine (the search players' fast path).

:class:`SpinnerRollouts` is :class:`spinner_env.batched.rollout.BatchedRollouts` for
Spinner: :func:`load_state` copies a :class:`~spinner_env.games.spinner.rules.SpinnerState` into the
compiled engine's :data:`~spinner_env.games.spinner.batched.GAME` record, and the compiled loop
plays it out with the compiled opponents of :mod:`~spinner_env.games.spinner.batched_players`.
:func:`state_of` reads a record back as the reference state (a search player's view of a
batched game, ``spinner_env.batched.vector.AgentPolicy``).

The engines agree decision by decision (``tests/test_batched.py``) and the compiled
heuristic decides as ``HeuristicAgent`` and ``ExpertAgent`` do
(``tests/test_batched_heuristic.py``, ``tests/test_batched_expert.py``), so a heuristic or
expert rollout here ends exactly as the same rollout on the reference engine
(``tests/test_search_rollouts.py`` checks it); random rollouts draw from the engine's own
splitmix64 stream, seeded by the caller.
"""

from __future__ import annotations

import numpy as np

from spinner_env.batched.core import CompiledRules
from spinner_env.batched.rollout import BatchedRollouts, load_hands, match_fields
from spinner_env.games.spinner.batched import (
    NO_END,
    BatchedSpinner,
    _finish_hand,
    _legal_mask,
    _observe,
    _play,
    _start_episode,
)
from spinner_env.games.spinner.batched_players import compiled_action
from spinner_env.games.spinner.rules import (
    ALL_TILES,
    Placed,
    SpinnerRules,
    SpinnerState,
    UnfilledDouble,
)


def load_state(game: np.void, state: SpinnerState) -> None:
    """Write the hand in play of ``state`` into the record ``game`` (:func:`load_hands`,
    then the layout, open ends, unfilled doubles, dealer and passes in a row): the
    engine goes on from there exactly as ``state`` would."""
    load_hands(game, state)
    placed = len(state.layout)
    game["layout"][:placed] = [p.tile.index for p in state.layout]
    game["layout_seat"][:placed] = [p.seat for p in state.layout]
    game["layout_end"][:placed] = [NO_END if p.end is None else p.end for p in state.layout]
    game["layout_opens"][:placed] = [p.opens for p in state.layout]
    game["layout_size"] = placed
    game["free_ends"][:] = state.free_ends
    game["num_unfilled"] = len(state.unfilled)
    for i, double in enumerate(state.unfilled):
        game["unfilled_value"][i] = double.value
        game["unfilled_arms"][i] = double.arms_left
    game["dealer"] = state.dealer
    game["passes_in_row"] = state.passes_in_row


def state_of(game: np.void, rules: SpinnerRules, check: bool = True) -> SpinnerState:
    """The reference state of the hand in play in the record ``game`` under ``rules``
    (:func:`load_state`'s inverse; :func:`~spinner_env.batched.rollout.match_fields` says
    what differs: the hands' order and the earlier hands' results). With ``check``,
    ValueError (from ``validate``, most of the cost) if the record is not a hand in play
    of these rules."""
    size = int(game["layout_size"])
    layout = [
        Placed(int(seat), ALL_TILES[tile], None if end == NO_END else int(end), int(opens))
        for tile, seat, end, opens in zip(
            game["layout"][:size],
            game["layout_seat"][:size],
            game["layout_end"][:size],
            game["layout_opens"][:size],
            strict=True,
        )
    ]
    # Doubles are filled oldest first (S5.2), so the unfilled ones are the last placed.
    count = int(game["num_unfilled"])
    doubles = [p.tile for p in layout if p.tile.is_double]
    unfilled = [
        UnfilledDouble(tile, int(value), int(arms))
        for tile, value, arms in zip(
            doubles[len(doubles) - count :],
            game["unfilled_value"][:count],
            game["unfilled_arms"][:count],
            strict=True,
        )
    ]
    state = SpinnerState(
        **match_fields(game, rules.num_players, ALL_TILES),
        passes_in_row=int(game["passes_in_row"]),
        rules=rules,
        dealer=int(game["dealer"]),
        layout=layout,
        free_ends=[int(ends) for ends in game["free_ends"]],
        unfilled=unfilled,
    )
    if check:
        state.validate()
    return state


class SpinnerRollouts(BatchedRollouts):
    """Spinner positions played out together by a compiled policy (``BatchedRollouts``'
    arguments; ``heuristic_weights`` rows are ``HeuristicAgent.compiled_weights()`` or
    ``ExpertAgent.compiled_weights()``)."""

    engine = BatchedSpinner
    compiled = CompiledRules(
        _start_episode, _legal_mask, _play, _finish_hand, _observe, compiled_action
    )
    load_state = staticmethod(load_state)
    state_of = staticmethod(state_of)


__all__ = ["SpinnerRollouts", "load_state", "state_of"]
