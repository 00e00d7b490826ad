"""Rollouts of reference Mexican Train positions on the batched engine (the search players'
fast path).

:class:`MexicanTrainRollouts` is :class:`spinner_env.batched.rollout.BatchedRollouts` for
Mexican Train: :func:`load_state` copies a
:class:`~spinner_env.games.mexican_train.rules.MexicanTrainState` into the compiled engine's
:data:`~spinner_env.games.mexican_train.batched.GAME` record, and the compiled loop plays it out
with the compiled opponents of :mod:`~spinner_env.games.mexican_train.batched_players`.
:func:`state_of` reads a record back as the reference state (how the Mexican Train expert
and the search players see a batched game, ``spinner_env.batched.vector.AgentPolicy``).

The engines agree decision by decision and the compiled greedy and heuristic decide as
``GreedyAgent`` and ``MexicanTrainHeuristicAgent`` do
(``tests/test_batched_mexican_train.py``), so a greedy or heuristic rollout here ends
exactly as the same rollout on the reference engine (``tests/test_search_rollouts.py``
checks it); random rollouts draw from the engine's own splitmix64 stream, seeded by the
caller.
"""

from __future__ import annotations

import numpy as np

from spinner_env.batched.core import CompiledRules
from spinner_env.batched.rollout import BatchedRollouts, load_hands, match_fields
from spinner_env.games.mexican_train.batched import (
    MEXICAN_TRAIN,
    BatchedMexicanTrain,
    _finish_round,
    _legal_mask,
    _observe,
    _play,
    _start_episode,
)
from spinner_env.games.mexican_train.batched_players import compiled_action
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    MEXICAN,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    Train,
    chain_end,
)


def _train_id(train: int) -> int:
    """The record's id of a reference train id (the Mexican train is -1 there)."""
    return MEXICAN_TRAIN if train == MEXICAN else train


def _reference_train(train: int) -> int:
    """The reference id of a record's train id (:func:`_train_id`'s inverse)."""
    return MEXICAN if train == MEXICAN_TRAIN else int(train)


def load_state(game: np.void, state: MexicanTrainState) -> None:
    """Write the round in play of ``state`` into the record ``game`` (:func:`load_hands`,
    then the trains with their open ends and markers, unsatisfied doubles and the extra
    placement): the engine goes on from there exactly as ``state`` would. The order of
    the placement log does not matter (only observations show it, as a set)."""
    load_hands(game, state)
    game["open_ends"][:] = state.engine_value  # M3.1; trains past the seats stay so
    game["markers"][:] = 0
    placed = 0
    for train in state.train_ids():
        on_train = state.trains[train]
        tiles = [t.index for t in on_train.tiles]
        game["layout"][placed : placed + len(tiles)] = tiles
        game["layout_train"][placed : placed + len(tiles)] = _train_id(train)
        placed += len(tiles)
        game["open_ends"][_train_id(train)] = on_train.open_end
        game["markers"][_train_id(train)] = on_train.marker
    game["layout_size"] = placed
    game["unsatisfied"][: len(state.unsatisfied)] = [_train_id(t) for t in state.unsatisfied]
    game["num_unsatisfied"] = len(state.unsatisfied)
    game["extra_placement"] = state.extra_placement


def state_of(game: np.void, rules: MexicanTrainRules, check: bool = True) -> MexicanTrainState:
    """The reference state of the round in play in the record ``game`` under ``rules``
    (:func:`load_state`'s inverse; :func:`~spinner_env.batched.rollout.match_fields` says
    what differs: the hands' order and the earlier rounds' results). ``passes_in_row``,
    which no Mexican Train rule reads (M6.1 looks at the hands and trains), is 0: the
    record does not count it. With ``check``, ValueError (from ``validate``) if the record
    is not a round in play of these rules."""
    n = rules.num_players
    engine = MexicanTrainRules.engine_value(int(game["hand_number"]))
    size = int(game["layout_size"])
    ids = [*range(n), MEXICAN]
    on_train: dict[int, list[MexicanTile]] = {train: [] for train in ids}
    for tile, train in zip(game["layout"][:size], game["layout_train"][:size], strict=True):
        on_train[_reference_train(train)].append(ALL_TILES[tile])
    trains = [
        Train(on_train[t], chain_end(on_train[t], engine), bool(game["markers"][_train_id(t)]))
        for t in ids
    ]
    state = MexicanTrainState(
        **match_fields(game, n, ALL_TILES),
        rules=rules,
        trains=trains,
        unsatisfied=[_reference_train(t) for t in game["unsatisfied"][: game["num_unsatisfied"]]],
        extra_placement=bool(game["extra_placement"]),
    )
    if check:
        state.validate()
    return state


class MexicanTrainRollouts(BatchedRollouts):
    """Mexican Train positions played out together by a compiled policy
    (``BatchedRollouts``' arguments; ``heuristic_weights`` rows are
    ``MexicanTrainWeights.as_array()``)."""

    engine = BatchedMexicanTrain
    compiled = CompiledRules(
        _start_episode, _legal_mask, _play, _finish_round, _observe, compiled_action
    )
    load_state = staticmethod(load_state)
    state_of = staticmethod(state_of)


__all__ = ["MexicanTrainRollouts", "load_state", "state_of"]
