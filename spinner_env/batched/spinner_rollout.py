"""Rollouts of reference Spinner positions on the batched engine (the search players' fast path).

A search player looks ahead on :class:`~spinner_env.spinner.SpinnerState` copies, but
playing a position out to the end with a Python policy costs milliseconds: most of a
search's time. :class:`SpinnerRollouts` copies positions into the compiled engine's
:data:`~spinner_env.batched.spinner.GAME` records (:func:`load_state`) and plays them all
to the end of the hand, or of the match, in one compiled call, every seat choosing as a
compiled opponent kind (``OPPONENT_RANDOM``, ``OPPONENT_GREEDY``, ``OPPONENT_HEURISTIC``
of :mod:`~spinner_env.batched.spinner_opponents`). Each seat's score is what
``spinner_env.aec`` would give it: ``hand_score_difference`` of the hand's points (S7) or
``zero_sum_outcome`` of the match totals (S7.2), computed by the engine's own hand end.

The engines agree decision by decision (``tests/test_batched.py``) and the compiled
heuristic decides as ``HeuristicAgent`` does (``tests/test_batched_heuristic.py``), so a
heuristic rollout here ends exactly as the same rollout on the reference engine
(``tests/test_search_rollouts.py`` checks it); random rollouts draw from the engine's own
splitmix64 stream, seeded by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from spinner_env.aec import hand_score_difference, zero_sum_outcome
from spinner_env.batched.core import BatchStep, _kth_legal, _legal_count
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.batched.spinner import (
    GAME,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_TILES,
    OBSERVATION_SIZE,
    Params,
    _finish_hand,
    _legal_mask,
    _play,
)
from spinner_env.batched.spinner_opponents import compiled_action
from spinner_env.spinner import SpinnerRules, SpinnerState


def load_state(game: np.void, state: SpinnerState) -> None:
    """Write the hand in play of ``state`` into the record ``game`` (hands, boneyard,
    layout, voids, totals, seed, whose turn): the engine goes on from there exactly as
    ``state`` would. The order of a hand does not matter to the engine."""
    n = state.num_players
    hands, sizes = game["hands"], game["hand_sizes"]
    sizes[:] = 0
    for seat, hand in enumerate(state.hands):
        hands[seat, : len(hand)] = [t.index for t in hand]
        sizes[seat] = len(hand)
    top = NUM_TILES - len(state.boneyard)
    game["deck"][top:] = [t.index for t in state.boneyard]  # S6.2 draws from the top
    game["top"] = top
    game["layout"][: len(state.layout)] = [placed.tile.index for placed in state.layout]
    game["layout_size"] = len(state.layout)
    game["free_ends"][:] = state.free_ends
    game["num_unfilled"] = len(state.unfilled)
    for i, double in enumerate(state.unfilled):
        game["unfilled_value"][i] = double.value
        game["unfilled_arms"][i] = double.arms_left
    voids = game["voids"]
    voids[:, :] = 0
    for seat in range(n):
        voids[seat, list(state.voids[seat])] = 1
    game["totals"][:n] = state.totals
    game["seed"] = state.seed
    game["hand_number"] = state.hand_number
    game["dealer"] = state.dealer
    game["current"] = state.current
    game["passes_in_row"] = state.passes_in_row
    game["drew"] = state.drew_this_turn
    game["learner"] = 0


@njit(cache=True)
def _play_out(
    games: np.ndarray,
    p: Params,
    kinds: np.ndarray,
    heuristic_weights: np.ndarray,
    seeds: np.ndarray,
    out: BatchStep,
) -> None:
    """Play every game to its episode's end (``p``: the hand or the match), seat s
    choosing as ``kinds[s]`` and random choices of game b drawn from the stream seeded by
    ``seeds[b]``; ``out.rewards[b]`` keeps every seat's score."""
    next_seed = np.zeros(1, np.uint64)  # the episode after the end is never looked at
    rng_state = np.zeros(1, np.uint64)
    for b in range(games.shape[0]):
        game = games[b]
        rng_state[0] = seeds[b]
        mask = out.mask[b]
        out.done[b] = False
        _legal_mask(game, p, mask)
        while True:
            legal = _legal_count(mask)
            if legal == 1:
                action = _kth_legal(mask, 0)
            else:
                action = compiled_action(
                    game, p, mask, legal, kinds[game.current], heuristic_weights, rng_state
                )
            out.rewards[b, :] = 0.0
            if _play(game, p, action):
                _finish_hand(game, p, next_seed, out, b)
                if out.done[b]:
                    break
            _legal_mask(game, p, mask)


class SpinnerRollouts:
    """Spinner positions played out together by a compiled policy.

    Args:
        rules: the positions' rules (``state.rules``; one set for all).
        kind: the ``OPPONENT_*`` kind every seat plays (not ``OPPONENT_EXTERNAL``).
        heuristic_weights: the weights of the heuristic kinds, one row each
            (``HeuristicWeights.as_array()``).
        to_match_end: score the match outcome at the end of the match rather than the
            hand's points at the end of the hand.
    """

    def __init__(
        self,
        rules: SpinnerRules,
        kind: int,
        heuristic_weights: np.ndarray,
        *,
        to_match_end: bool = False,
    ) -> None:
        if not isinstance(rules, SpinnerRules):
            raise ValueError(f"rules must be SpinnerRules, got {rules!r}")
        self.num_players = rules.num_players
        self.to_match_end = to_match_end
        self.games = np.zeros(0, GAME)
        self.out = BatchStep.zeros(0, OBSERVATION_SIZE, NUM_ACTIONS, MAX_PLAYERS)
        self.kinds = np.full(MAX_PLAYERS, kind, np.int64)
        self.heuristic_weights = np.atleast_2d(np.asarray(heuristic_weights, np.float64))
        self.seeds = np.zeros(0, np.uint64)
        self.params = Params(
            num_players=rules.num_players,
            hand_size=rules.hand_size,
            num_hands=rules.num_hands,
            draw_until_playable=rules.draw_until_playable,
            shortened=rules.shortened,
            seeded_first_dealer=rules.seeded_first_dealer,
            hand_score_reward=not to_match_end,
            hand_episode=not to_match_end,
            random_learner=False,
            learner_seat=0,
        )

    def play_out(self, states: Sequence[SpinnerState], seed: int) -> np.ndarray:
        """Every seat's score (rows: ``states``; columns: seats) once each state is played
        to the end; ``seed`` starts the random stream of every state's random seats."""
        count = len(states)
        if count > len(self.games):  # grown, never shrunk: the next call reuses the records
            self.games = np.zeros(count, GAME)
            self.out = BatchStep.zeros(count, OBSERVATION_SIZE, NUM_ACTIONS, MAX_PLAYERS)
            self.seeds = np.zeros(count, np.uint64)
        scores = np.zeros((count, self.num_players))
        in_play: list[int] = []
        for b, state in enumerate(states):
            if state.hand_over and self.to_match_end and not state.match_over:
                state = state.copy()
                state.start_next_hand()  # S2.3
            if state.hand_over:  # the search's own move ended it (S6.4): nothing to play
                scores[b] = (
                    zero_sum_outcome(state.totals)
                    if self.to_match_end
                    else hand_score_difference(state.results[-1].points)
                )
            else:
                load_state(self.games[len(in_play)], state)
                in_play.append(b)
        self.seeds[: len(in_play)] = seed
        _play_out(
            self.games[: len(in_play)],
            self.params,
            self.kinds,
            self.heuristic_weights,
            self.seeds,
            self.out,
        )
        scores[in_play] = self.out.rewards[: len(in_play), : self.num_players]
        return scores


drop_stale_cache(_play_out)  # before anything compiled is loaded (see numba_cache)

__all__ = ["SpinnerRollouts", "load_state"]
