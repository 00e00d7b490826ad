"""Rollouts on the batched engine (``spinner_env.batched.spinner_rollout``): a reference
position loaded into a compiled record goes on exactly as the reference engine would."""

from __future__ import annotations

import random

import numpy as np
import pytest
from spinner_env.agents.base import choose_move
from spinner_env.agents.heuristic import HeuristicAgent

from spinner_env.aec import hand_score_difference, zero_sum_outcome
from spinner_env.batched.spinner import GAME, _legal_mask
from spinner_env.batched.spinner_opponents import OPPONENT_HEURISTIC, OPPONENT_RANDOM
from spinner_env.batched.spinner_rollout import SpinnerRollouts, load_state
from spinner_env.belief import Belief
from spinner_env.games import game_spec
from spinner_env.spinner import SpinnerRules, SpinnerState
from spinner_env.spinner_v0 import NUM_ACTIONS

ENCODING = game_spec("spinner").encoding
WEIGHTS = HeuristicAgent().weights.as_array()


def random_position(rules: SpinnerRules, seed: int) -> SpinnerState:
    """A position of a seeded match after random moves, some hands in (draws, voids,
    unfilled doubles and later hands all occur)."""
    state = SpinnerState.new(rules, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(rules.num_hands)):
        while not state.hand_over:
            state.play_legal(rng.choice(state.legal_moves()))
        if state.match_over:
            break
        state.start_next_hand()
    while not state.hand_over and rng.random() < 0.95:
        state.play_legal(rng.choice(state.legal_moves()))
    return state


def heuristic_rollout(state: SpinnerState, to_match_end: bool) -> list[float]:
    """The reference engine playing ``HeuristicAgent`` for every seat."""
    agent = HeuristicAgent()
    while True:
        while not state.hand_over:
            state.play_legal(choose_move(agent, state, ENCODING))
        if not to_match_end:
            return hand_score_difference(state.results[-1].points)
        if state.match_over:
            return zero_sum_outcome(state.totals)
        state.start_next_hand()


@pytest.mark.parametrize("num_players", [2, 3, 5, 8])
@pytest.mark.parametrize("variant", [{}, {"draw_until_playable": True}, {"num_hands": 3}])
def test_a_loaded_position_has_the_reference_legal_moves(num_players: int, variant: dict) -> None:
    rules = SpinnerRules(num_players=num_players, **variant)
    game = np.zeros(1, GAME)[0]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(10):
        state = random_position(rules, seed)
        if state.hand_over:
            continue
        load_state(game, state)
        rollouts = SpinnerRollouts(rules, OPPONENT_RANDOM, WEIGHTS)
        _legal_mask(game, rollouts.params, mask)
        assert np.flatnonzero(mask).tolist() == sorted(
            ENCODING.action_of(m) for m in state.legal_moves()
        )


@pytest.mark.parametrize("num_players", [2, 4, 8])
@pytest.mark.parametrize("to_match_end", [False, True])
def test_heuristic_rollouts_end_as_on_the_reference_engine(
    num_players: int, to_match_end: bool
) -> None:
    """S6.4 hand ends and S7 scores (and S2.3 later hands for the match score): the same
    numbers, position after position, hidden tiles redealt by the belief as search does."""
    rules = SpinnerRules(num_players=num_players, num_hands=4)
    rollouts = SpinnerRollouts(rules, OPPONENT_HEURISTIC, WEIGHTS, to_match_end=to_match_end)
    states = []
    for seed in range(12):
        state = random_position(rules, seed)
        if not state.hand_over:
            states.append(Belief(state).determinize(random.Random(seed)))
    compiled = rollouts.play_out([s.copy() for s in states], seed=0)
    reference = [heuristic_rollout(s, to_match_end) for s in states]
    np.testing.assert_allclose(compiled, reference)


@pytest.mark.parametrize("to_match_end", [False, True])
def test_a_hand_that_just_ended_is_scored_as_it_ended(to_match_end: bool) -> None:
    """A search that plays the last tile (S6.4) or the last pass of a blocked hand rolls out
    a finished hand: its score as it stands, or (match score) the match from the next deal."""
    rules = SpinnerRules(num_players=3, num_hands=3)
    rollouts = SpinnerRollouts(rules, OPPONENT_HEURISTIC, WEIGHTS, to_match_end=to_match_end)
    ended = []
    for seed in range(6):
        state = SpinnerState.new(rules, seed)
        rng = random.Random(seed)
        while not state.hand_over:
            state.play_legal(rng.choice(state.legal_moves()))
        ended.append(state)
    compiled = rollouts.play_out([s.copy() for s in ended], seed=0)
    reference = [heuristic_rollout(s, to_match_end) for s in ended]
    np.testing.assert_allclose(compiled, reference)


def test_random_rollouts_replay_from_their_seed_and_are_zero_sum() -> None:
    rules = SpinnerRules(num_players=3)
    rollouts = SpinnerRollouts(rules, OPPONENT_RANDOM, WEIGHTS)
    states = [random_position(rules, seed) for seed in range(30)]
    states = [s for s in states if not s.hand_over]
    first = rollouts.play_out([s.copy() for s in states], seed=11)
    np.testing.assert_array_equal(first, rollouts.play_out([s.copy() for s in states], seed=11))
    assert not np.array_equal(first, rollouts.play_out([s.copy() for s in states], seed=12))
    np.testing.assert_allclose(first.sum(axis=1), 0.0, atol=1e-12)
    one = rollouts.play_out([states[0].copy()] * 3, seed=4)
    assert (one == one[0]).all()  # one seed per call: every position draws the same stream


def test_rollouts_refuse_other_rules() -> None:
    with pytest.raises(ValueError, match="rules must be SpinnerRules"):
        SpinnerRollouts(game_spec("mexican_train").new_state(2, 0).rules, OPPONENT_RANDOM, WEIGHTS)
