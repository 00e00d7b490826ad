"""Compiled opponents for the batched Spinner engine.

:func:`compiled_action` chooses a seat's move in compiled code by the seat's kind:
uniformly at random, greedy (``spinner_env.agents.GreedyAgent``), or the heuristic or the
expert (``spinner_env.agents.HeuristicAgent``, ``ExpertAgent``, by
:mod:`spinner_env.games.spinner.batched_heuristic`); for seats of kind ``OPPONENT_EXTERNAL``
Python chooses. The shared loop :func:`spinner_env.batched.core.advance_to_learner` plays
every game of a :class:`~spinner_env.games.spinner.batched.BatchedSpinner` on with it until its
learner seat has a decision: a learner's table in one call, on which
``spinner_env.batched.vector`` builds its adapters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spinner_env.batched.core import (
    OPPONENT_GREEDY,
    OPPONENT_HEURISTIC,
    OPPONENT_RANDOM,
    _kth_legal,
    next_uniform,
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.games import CompiledPlayer
from spinner_env.games.spinner.batched import (
    ACTION_TILE,
    TILE_POINTS,
    Params,
)
from spinner_env.games.spinner.batched_heuristic import (
    NUM_WEIGHTS,
    heuristic_action,
    heuristic_actions_from_obs,
)
from spinner_env.games.spinner.encoding import NUM_ACTIONS
from spinner_env.games.spinner.rules import SpinnerRules

ACTION_POINTS = np.full(NUM_ACTIONS, -1, np.int64)
"""S1.4 points of each placement's tile; -1 for draw and pass."""
ACTION_POINTS[ACTION_TILE >= 0] = TILE_POINTS[ACTION_TILE[ACTION_TILE >= 0]]


def greedy_points(rules: SpinnerRules) -> np.ndarray:
    """What the compiled greedy maximises under ``rules``: :data:`ACTION_POINTS` (no
    variant changes a tile's points)."""
    return ACTION_POINTS


class HeuristicPolicy:
    """``spinner_env.agents.HeuristicAgent``'s Spinner play, or ``ExpertAgent``'s, compiled,
    with its weights as the array the agent's ``compiled_weights()`` gives
    (:mod:`spinner_env.games.spinner.batched_heuristic`); ``name`` says which it plays."""

    def __init__(self, weights: np.ndarray, name: str = "heuristic") -> None:
        weights = np.asarray(weights, np.float64)
        if weights.shape != (NUM_WEIGHTS,):
            raise ValueError(f"weights must have shape ({NUM_WEIGHTS},), got {weights.shape}")
        self.weights = weights
        self.name = name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return heuristic_actions_from_obs(obs, mask, self.weights)

    def compiled_twin(self, rules: object) -> CompiledPlayer | None:
        """The compiled heuristic with these weights, in Spinner."""
        return (
            CompiledPlayer("heuristic", self.weights) if isinstance(rules, SpinnerRules) else None
        )


def heuristic_policy(weights: np.ndarray, name: str, rules: SpinnerRules) -> HeuristicPolicy:
    """The batched policy of the compiled heuristic with ``weights``, playing as ``name``."""
    return HeuristicPolicy(weights, name)


@njit(cache=True, inline="always")
def compiled_action(
    game: np.record,
    p: Params,
    mask: np.ndarray,
    legal: int,
    kind: int,
    heuristic_weights: np.ndarray,
    rng_state: np.ndarray,
) -> int:
    """The action a seat of ``kind`` chooses among ``legal`` (two or more) legal actions of
    ``mask``; -1 for ``OPPONENT_EXTERNAL`` (Python chooses)."""
    if kind == OPPONENT_RANDOM:
        return _kth_legal(mask, int(next_uniform(rng_state) * legal))
    if kind == OPPONENT_GREEDY:
        action = -1
        for a in range(NUM_ACTIONS):
            if mask[a] and (action < 0 or ACTION_POINTS[a] > ACTION_POINTS[action]):
                action = a
        return action
    if kind >= OPPONENT_HEURISTIC:
        weights = heuristic_weights[kind - OPPONENT_HEURISTIC]
        return heuristic_action(game, p.num_players, mask, weights)
    return -1


drop_stale_cache(compiled_action)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "ACTION_POINTS",
    "NUM_WEIGHTS",
    "OPPONENT_GREEDY",
    "OPPONENT_HEURISTIC",
    "OPPONENT_RANDOM",
    "HeuristicPolicy",
    "compiled_action",
    "greedy_points",
    "heuristic_policy",
]
