"""Reference positions played out on a batched engine by a batched policy: a policy
network's rollouts for the search players.

:class:`~spinner_env.batched.rollout.BatchedRollouts` plays positions out in one compiled
call, which only compiled players can decide in. A policy network decides in Python, but
it decides for many games at once (``act_batch(observations, masks)``: one forward pass
of ``spinner_env.agents.PolicyAgent`` over the batch). :class:`PolicyRollouts` loads the
positions into the game's batched records (the game's ``BatchedRollouts.load``), then,
while any game is unfinished, takes the observations and masks of the seat to act in
every unfinished game from the engine (the same ``spinner_v0`` / ``mexican_train_v0``
observations the vector envs give a trained policy), asks the policy once for all the
games whose seat has a choice (a forced move is played without asking), and steps those
games with the engine's compiled step. A hand or match end scores every seat as the
compiled rollouts do: ``hand_score_difference`` of the hand's points or
``zero_sum_outcome`` of the match totals (S7, S7.2; M6.2, M6.3).

The engines agree decision by decision and a loaded record shows the reference
observation (``tests/test_search_rollouts.py``), so a deterministic policy's rollout here
ends as the same policy's rollout on the reference engine (``tests/test_search.py``
checks it with the committed networks). This module loads numba but not torch: the policy
is anything with ``act_batch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from spinner_env.batched.core import (
    BatchStep,
    _kth_legal,
    _legal_count,
    finish_hand,
    legal_mask,
    observe_all,
    play,
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.batched.rollout import BatchedRollouts
from spinner_env.core.match import MatchState
from spinner_env.games import CompiledPlayer

if TYPE_CHECKING:  # the vector envs load gymnasium, which rollouts do not need
    from spinner_env.batched.vector import BatchedPolicy


@njit(cache=True)
def _advance(
    games: np.ndarray,
    p: Any,
    actions: np.ndarray,
    active: np.ndarray,
    out: BatchStep,
    scores: np.ndarray,
    started: bool,
) -> None:
    """In every ``active`` game, play ``actions[b]`` (where ``started``; else nothing yet)
    and then every forced move, until the seat to act has a choice (``out.mask[b]``
    holds it) or the episode ends (every seat's score in ``scores[b]``, and the game is
    no longer active)."""
    next_seed = np.zeros(1, np.uint64)  # the episode after the end is never looked at
    for b in range(games.shape[0]):
        if not active[b]:
            continue
        game = games[b]
        mask = out.mask[b]
        # One legal_mask call site: numba's IR checks reject the stub inlined twice here.
        action = actions[b] if started else -1
        while True:
            if action >= 0:
                out.rewards[b, :] = 0.0
                out.done[b] = False
                if play(game, p, action):
                    finish_hand(game, p, next_seed, out, b)
                    if out.done[b]:
                        scores[b, :] = out.rewards[b, : scores.shape[1]]
                        active[b] = False
                        break
            legal_mask(game, p, mask)
            if _legal_count(mask) > 1:
                break
            action = _kth_legal(mask, 0)


class PolicyRollouts:
    """Positions of one game played out together, every seat choosing by ``policy``.

    Args:
        rollouts: the game's :class:`BatchedRollouts` class (its ``GameSpec``'s
            ``rollouts()``), whose records and rules the positions are played in.
        rules: the positions' rules (``state.rules``; one set for all).
        policy: chooses one legal action per row, ``act_batch(observations, masks)``
            (a sampling policy draws from its own generator: seed it as you need).
        to_match_end: score the match outcome at the end of the match rather than the
            hand's points at the end of the hand.
        cutoff: after this many decisions (with a choice) in a game, score it for every
            seat by ``policy.value`` of that seat's observation (a value head that
            predicts the score) instead of playing on; None: play to the end.
    """

    def __init__(
        self,
        rollouts: type[BatchedRollouts],
        rules: Any,
        policy: BatchedPolicy,
        *,
        to_match_end: bool = False,
        cutoff: int | None = None,
    ) -> None:
        self.records = rollouts.playing_as(
            CompiledPlayer("random"), rules, to_match_end=to_match_end
        )
        """The records the positions are loaded into (its compiled players never play)."""
        self.policy = policy
        self.cutoff = cutoff

    def play_out(self, states: Sequence[MatchState], seed: int) -> np.ndarray:
        """Every seat's score (rows: ``states``; columns: seats) once each state is played
        to the end by the policy. ``seed`` is not read (the play-out signature of the
        search players, whose compiled rollouts draw from it)."""
        scores, in_play = self.records.load(states)
        count = len(in_play)
        if count:
            scores[in_play] = self._play_loaded(count)
        return scores

    def _play_loaded(self, count: int) -> np.ndarray:
        """Every seat's score once the first ``count`` records are played to the end."""
        records = self.records
        return play_out_records(
            records.games[:count],
            records.params,
            self.policy,
            BatchStep(*(field[:count] for field in records.out)),
            records.num_players,
            self.cutoff,
        )


def play_out_records(
    games: np.ndarray,
    params: Any,
    policy: BatchedPolicy,
    out: BatchStep,
    num_players: int,
    cutoff: int | None = None,
) -> np.ndarray:
    """Every seat's score (rows: ``games``, a batched engine's records, played in place
    under ``params``; ``out``: a step buffer of as many rows) once each is played to its
    episode's end with every seat choosing by ``policy``, or after ``cutoff`` decisions
    scored by its value head (:class:`PolicyRollouts`)."""
    count = games.shape[0]
    scores = np.zeros((count, num_players))
    active = np.ones(count, np.bool_)
    actions = np.zeros(count, np.int64)
    _advance(games, params, actions, active, out, scores, False)
    decisions = 0
    while active.any():
        # Every active game's seat has a choice: observe them all, ask the policy once.
        rows = np.flatnonzero(active)
        if decisions == cutoff:
            for seat in range(num_players):
                observe_all(games, params, np.full(count, seat), out.obs)
                scores[rows, seat] = policy.value(out.obs[rows])  # type: ignore[attr-defined]
            break
        observe_all(games, params, games["current"].astype(np.int64), out.obs)
        actions[rows] = policy.act_batch(out.obs[rows], out.mask[rows])
        _advance(games, params, actions, active, out, scores, True)
        decisions += 1
    return scores


drop_stale_cache(_advance)  # before anything compiled is loaded (see numba_cache)

__all__ = ["PolicyRollouts", "play_out_records"]
