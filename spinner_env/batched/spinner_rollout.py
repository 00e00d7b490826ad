"""Rollouts of reference Spinner positions on the batched engine (the search players' fast path).

:class:`SpinnerRollouts` is :class:`spinner_env.batched.rollout.BatchedRollouts` for
Spinner: :func:`load_state` copies a :class:`~spinner_env.spinner.SpinnerState` into the
compiled engine's :data:`~spinner_env.batched.spinner.GAME` record, and the compiled loop
plays it out with the compiled opponents of :mod:`~spinner_env.batched.spinner_opponents`.

The engines agree decision by decision (``tests/test_batched.py``) and the compiled
heuristic decides as ``HeuristicAgent`` and ``ExpertAgent`` do
(``tests/test_batched_heuristic.py``, ``tests/test_batched_expert.py``), so a heuristic or
expert rollout here ends exactly as the same rollout on the reference engine
(``tests/test_search_rollouts.py`` checks it); random rollouts draw from the engine's own
splitmix64 stream, seeded by the caller.
"""

from __future__ import annotations

import numpy as np

from spinner_env.batched.rollout import BatchedRollouts, CompiledRules, load_hands
from spinner_env.batched.spinner import (
    BatchedSpinner,
    Params,
    _finish_hand,
    _legal_mask,
    _play,
)
from spinner_env.batched.spinner_opponents import compiled_action
from spinner_env.spinner import SpinnerRules, SpinnerState


def load_state(game: np.void, state: SpinnerState) -> None:
    """Write the hand in play of ``state`` into the record ``game`` (:func:`load_hands`,
    then the layout, open ends, unfilled doubles, dealer and passes in a row): the
    engine goes on from there exactly as ``state`` would."""
    load_hands(game, state)
    game["layout"][: len(state.layout)] = [placed.tile.index for placed in state.layout]
    game["layout_size"] = len(state.layout)
    game["free_ends"][:] = state.free_ends
    game["num_unfilled"] = len(state.unfilled)
    for i, double in enumerate(state.unfilled):
        game["unfilled_value"][i] = double.value
        game["unfilled_arms"][i] = double.arms_left
    game["dealer"] = state.dealer
    game["passes_in_row"] = state.passes_in_row


class SpinnerRollouts(BatchedRollouts):
    """Spinner positions played out together by a compiled policy (``BatchedRollouts``'
    arguments; ``heuristic_weights`` rows are ``HeuristicAgent.compiled_weights()`` or
    ``ExpertAgent.compiled_weights()``)."""

    engine = BatchedSpinner
    rules_class = SpinnerRules
    params_class = Params
    compiled = CompiledRules(_legal_mask, _play, _finish_hand, compiled_action)
    load_state = staticmethod(load_state)


__all__ = ["SpinnerRollouts", "load_state"]
