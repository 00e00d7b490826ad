"""Compiled opponents for the batched Spinner engine: a learner's table in one call.

:func:`advance_to_learner` plays every game of a
:class:`~spinner_env.batched.spinner.BatchedSpinner` on until its learner seat has a decision,
choosing the other seats' moves in compiled code by each seat's kind: uniformly at random,
greedy (``spinner_env.agents.GreedyAgent``), or the heuristic or the expert
(``spinner_env.agents.HeuristicAgent``, ``ExpertAgent``, by
:mod:`spinner_env.batched.spinner_heuristic`); Python steps in only for seats of kind
``OPPONENT_EXTERNAL``. ``spinner_env.batched.vector`` builds its adapters on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spinner_env.batched.core import BatchStep, _kth_legal, _legal_count, next_uniform
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.batched.spinner import (
    ACTION_TILE,
    TILE_POINTS,
    Params,
    _finish_hand,
    _legal_mask,
    _observe,
    _play,
)
from spinner_env.batched.spinner_heuristic import (
    NUM_WEIGHTS,
    heuristic_action,
    heuristic_actions_from_obs,
)
from spinner_env.games import CompiledPlayer
from spinner_env.spinner import SpinnerRules
from spinner_env.spinner_v0 import NUM_ACTIONS

OPPONENT_RANDOM = 0
OPPONENT_GREEDY = 1
OPPONENT_EXTERNAL = 2
OPPONENT_HEURISTIC = 3
"""How a seat's moves are chosen in :func:`advance_to_learner`: uniformly at random, the
heaviest tile (``spinner_env.agents.GreedyAgent``), by Python code (the call stops there), or the
heuristic: kind ``OPPONENT_HEURISTIC + k`` plays it with the weights of row k (the expert
where the row holds ``ExpertWeights``, :mod:`spinner_env.batched.spinner_heuristic`)."""
KIND_OF = {"random": OPPONENT_RANDOM, "greedy": OPPONENT_GREEDY, "heuristic": OPPONENT_HEURISTIC}
"""The kind of each ``CompiledPlayer.kind`` (a heuristic's kind adds its weights' row), in
both games."""

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
    (:mod:`spinner_env.batched.spinner_heuristic`); ``name`` says which it plays."""

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


@njit(cache=True)
def advance_to_learner(
    games: np.ndarray,
    p: Params,
    next_seed: np.ndarray,
    out: BatchStep,
    seat_kind: np.ndarray,
    heuristic_weights: np.ndarray,
    rng_state: np.ndarray,
    skip_forced: bool,
    learner_reward: np.ndarray,
    ended: np.ndarray,
    final_obs: np.ndarray,
) -> None:
    """Play every game on until its learner seat has a decision, with compiled opponents.

    ``seat_kind[b, seat]`` is the ``OPPONENT_*`` kind of each seat; ``heuristic_weights``
    (k, ``NUM_WEIGHTS``) holds the weight sets of the heuristic kinds; random seats draw
    from the generator state ``rng_state`` (:func:`next_uniform`). A game stops early
    where a seat of kind ``OPPONENT_EXTERNAL`` is to choose, or where an episode ended
    (its next one needs opponents). Single-option turns are played for anyone (the
    learner's only with ``skip_forced``). Until a game's ``ended`` is set the learner
    seat's rewards add to ``learner_reward``; the first episode end sets it and keeps the
    learner's view of that end in ``final_obs``.
    """
    out.done[:] = False
    for b in range(games.shape[0]):
        game = games[b]
        mask = out.mask[b]
        while True:
            seat = game.current
            kind = seat_kind[b, seat]
            legal = _legal_count(mask)
            if legal == 1 and (seat != game.learner or skip_forced):
                action = _kth_legal(mask, 0)
            elif seat == game.learner:
                break
            else:
                action = compiled_action(game, p, mask, legal, kind, heuristic_weights, rng_state)
                if action < 0:
                    break
            learner = game.learner
            out.rewards[b, :] = 0.0
            if _play(game, p, action):
                _finish_hand(game, p, next_seed, out, b)
            if not ended[b]:
                learner_reward[b] += out.rewards[b, learner]
            _observe(game, p, game.current, True, out.obs[b])
            _legal_mask(game, p, mask)
            if out.done[b]:
                if not ended[b]:
                    ended[b] = True
                    final_obs[b, :] = out.final_obs[b]
                break


drop_stale_cache(advance_to_learner)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "ACTION_POINTS",
    "KIND_OF",
    "NUM_WEIGHTS",
    "OPPONENT_EXTERNAL",
    "OPPONENT_GREEDY",
    "OPPONENT_HEURISTIC",
    "OPPONENT_RANDOM",
    "HeuristicPolicy",
    "advance_to_learner",
    "compiled_action",
    "greedy_points",
    "heuristic_policy",
]
