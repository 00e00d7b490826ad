"""Rollouts on the batched engines (``spinner_env.games.spinner.rollout``,
``spinner_env.games.mexican_train.rollout``): a reference position loaded into a
compiled record goes on exactly as the reference engine would."""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import numpy as np
import pytest
from spinner_env.agents.baselines import GreedyAgent
from spinner_env.agents.heuristic import HeuristicAgent
from test_batched import assert_reads_back

from spinner_env.batched.core import (
    OPPONENT_GREEDY,
    OPPONENT_HEURISTIC,
    OPPONENT_RANDOM,
)
from spinner_env.belief import Belief
from spinner_env.core.agent import Agent, choose_move
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome
from spinner_env.core.match import MatchState
from spinner_env.games import game_spec
from spinner_env.games.mexican_train import batched as batched_mexican_train
from spinner_env.games.mexican_train.rollout import MexicanTrainRollouts
from spinner_env.games.mexican_train.rollout import load_state as load_mexican_train
from spinner_env.games.mexican_train.rules import ALL_TILES as MT_TILES
from spinner_env.games.mexican_train.rules import (
    MEXICAN,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    parse,
)
from spinner_env.games.spinner.batched import GAME, _legal_mask
from spinner_env.games.spinner.encoding import NUM_ACTIONS
from spinner_env.games.spinner.rollout import SpinnerRollouts, load_state
from spinner_env.games.spinner.rollout import state_of as spinner_state_of
from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState

ENCODING = game_spec("spinner").encoding
MT_ENCODING = game_spec("mexican_train").encoding
WEIGHTS = HeuristicAgent().weights["spinner"].as_array()
MT_WEIGHTS = HeuristicAgent().weights["mexican_train"].as_array()


def random_position(
    rules: Any, seed: int, go_on: float = 0.95, new: Any = SpinnerState.new
) -> MatchState:
    """A position of a seeded match after random moves, some hands in (draws, voids,
    unfilled doubles and later hands all occur); each move is played with probability
    ``go_on`` until one is not."""
    state = new(rules, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(rules.num_hands)):
        while not state.hand_over:
            state.play_legal(rng.choice(state.legal_moves()))
        if state.match_over:
            break
        state.start_next_hand()
    while not state.hand_over and rng.random() < go_on:
        state.play_legal(rng.choice(state.legal_moves()))
    return state


def agent_rollout(
    state: MatchState, to_match_end: bool, agent: Agent | None = None, encoding: Any = ENCODING
) -> list[float]:
    """The reference engine playing ``agent`` (the heuristic by default) for every seat."""
    agent = agent or HeuristicAgent()
    while True:
        while not state.hand_over:
            state.play_legal(choose_move(agent, state, encoding))
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


@pytest.mark.parametrize("num_players", [2, 3, 8])
@pytest.mark.parametrize(
    "variant",
    [{}, {"draw_until_playable": True}, {"shortened": True}, {"seeded_first_dealer": True}],
)
def test_a_loaded_position_reads_back_as_itself(num_players: int, variant: dict) -> None:
    """``state_of`` is ``load_state``'s inverse: layout (S3-S5: the set, every placement's
    seat, end and opening, the unfilled doubles), hands, boneyard, voids, totals, turn."""
    rules = SpinnerRules(num_players=num_players, **variant)
    game = np.zeros(1, GAME)[0]
    loaded = 0
    for seed in range(12):
        state = random_position(rules, seed)
        if not state.hand_over:
            load_state(game, state)
            assert_reads_back(game, state)
            loaded += 1
    assert loaded >= 6


def test_a_loaded_mexican_train_position_reads_back_as_itself() -> None:
    """Trains and their order (M3.2), markers (M3.4), unsatisfied doubles oldest first
    (M5.4), the extra placement (M5.2)."""
    game = np.zeros(1, batched_mexican_train.GAME)[0]
    states = [s for rules in MT_RULES.values() for s in mexican_train_positions(rules, 12)]
    for state in [*states, two_doubles_waiting(True), two_doubles_waiting(False)]:
        load_mexican_train(game, state)
        assert_reads_back(game, state)


def test_a_record_that_is_no_position_is_refused_when_read_back() -> None:
    state = random_position(SpinnerRules(num_players=2), 3)
    game = np.zeros(1, GAME)[0]
    load_state(game, state)
    game["hands"][0, 0] = game["hands"][1, 0]  # one tile held twice, another nowhere
    with pytest.raises(ValueError, match="appears more than once"):
        spinner_state_of(game, state.rules)
    spinner_state_of(game, state.rules, check=False)  # the caller's risk: not checked


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
    reference = [agent_rollout(s, to_match_end) for s in states]
    np.testing.assert_allclose(compiled, reference)


MT_RULES = {
    "2p 3 rounds": MexicanTrainRules(num_players=2, num_rounds=3),
    "3p 0-0 at 50": MexicanTrainRules(num_players=3, num_rounds=2, double_blank_50=True),
    "5p": MexicanTrainRules(num_players=5, num_rounds=2),
    "8p 0-0 at 50": MexicanTrainRules(num_players=8, num_rounds=2, double_blank_50=True),
}


def mexican_train_positions(rules: MexicanTrainRules, count: int) -> list[MexicanTrainState]:
    """Rounds in play after random moves: one in four at its round's start (M2.5), the
    others mid-round, with doubles waiting (M5), markers out (M4.3), voids (M7)."""
    states = []
    for seed in range(count):
        go_on = 0.0 if seed % 4 == 0 else 0.97
        state = random_position(rules, seed, go_on, MexicanTrainState.new)
        if not state.hand_over:
            states.append(state)
    return states


def test_the_mexican_train_positions_have_every_kind_of_state() -> None:
    """What the exactness tests below rely on meeting: an unsatisfied double (M5.3) and
    an extra placement pending (M5.2), markers (M3.4), a tile drawn this turn (M4.2),
    voids (M7), round starts (M2.5) and later rounds (M2.2). Random play seldom leaves two
    doubles waiting: :func:`two_doubles_waiting` builds that."""
    states = [s for rules in MT_RULES.values() for s in mexican_train_positions(rules, 12)]
    assert any(s.unsatisfied for s in states)
    assert any(s.extra_placement for s in states)
    assert any(t.marker for s in states for t in s.trains)
    assert any(s.drew_this_turn for s in states)
    assert any(v for s in states for v in s.voids)
    assert any(not any(t.tiles for t in s.trains) for s in states)
    assert any(s.hand_number > 0 for s in states)


@pytest.mark.parametrize("rules", MT_RULES.values(), ids=MT_RULES.keys())
def test_a_loaded_mexican_train_position_shows_what_the_reference_shows(
    rules: MexicanTrainRules,
) -> None:
    """Every seat's observation (trains, open ends, markers, unsatisfied doubles, voids,
    totals, round, boneyard, the extra placement) and the legal moves (M3.3, M4, M5)."""
    for state in mexican_train_positions(rules, 12):
        assert_loads_as_the_reference(state)


def assert_loads_as_the_reference(state: MexicanTrainState) -> None:
    game = np.zeros(1, batched_mexican_train.GAME)[0]
    params = MexicanTrainRollouts(state.rules, OPPONENT_RANDOM, MT_WEIGHTS).params
    mask = np.zeros(MT_ENCODING.num_actions, np.int8)
    obs = np.zeros(batched_mexican_train.OBSERVATION_SIZE, np.float32)
    load_mexican_train(game, state)
    batched_mexican_train._legal_mask(game, params, mask)
    assert np.flatnonzero(mask).tolist() == sorted(
        MT_ENCODING.action_of(m) for m in state.legal_moves()
    )
    for seat in range(state.num_players):
        batched_mexican_train._observe(game, params, seat, True, obs)
        np.testing.assert_array_equal(obs, MT_ENCODING.observation(state, seat))


def two_doubles_waiting(extra_placement: bool) -> MexicanTrainState:
    """Seat 0's train and then the Mexican train end in unsatisfied doubles (M5.4: the
    older first); with ``extra_placement`` seat 0 still has the placement its second
    double earned (M5.2: any open train but the younger double's), else seat 1 must
    satisfy seat 0's double (M5.3)."""
    trains = ["12-5 5-5", "12-3", "12-7 7-7"]  # seat 0, seat 1, the Mexican train
    hands = ["5-1 7-2 3-9 0-0", "3-4 5-6 7-8 11-11 2-2"]
    placed = {parse(t) for t in " ".join(trains + hands).split()}
    rules = MexicanTrainRules(num_players=2, num_rounds=2, double_blank_50=True)
    engine = MexicanTile.of(12, 12)
    state = MexicanTrainState.from_position(
        hands,
        [t for t in MT_TILES if t not in placed and t is not engine],
        rules,
        trains=trains,
        unsatisfied=[0, MEXICAN],
        current=0 if extra_placement else 1,
    )
    state.extra_placement = extra_placement
    state.validate()
    return state


@pytest.mark.parametrize("extra_placement", [True, False])
@pytest.mark.parametrize("to_match_end", [False, True])
def test_two_doubles_waiting_load_and_roll_out_as_on_the_reference_engine(
    extra_placement: bool, to_match_end: bool
) -> None:
    state = two_doubles_waiting(extra_placement)
    assert_loads_as_the_reference(state)
    rollouts = MexicanTrainRollouts(
        state.rules, OPPONENT_HEURISTIC, MT_WEIGHTS, to_match_end=to_match_end
    )
    states = [Belief(state).determinize(random.Random(seed)) for seed in range(4)]
    compiled = rollouts.play_out([s.copy() for s in states], seed=0)
    reference = [agent_rollout(s, to_match_end, encoding=MT_ENCODING) for s in states]
    np.testing.assert_allclose(compiled, reference)


@pytest.mark.parametrize("rules", MT_RULES.values(), ids=MT_RULES.keys())
@pytest.mark.parametrize("to_match_end", [False, True])
@pytest.mark.parametrize(
    ("kind", "agent"),
    [(OPPONENT_HEURISTIC, HeuristicAgent), (OPPONENT_GREEDY, GreedyAgent)],
    ids=["heuristic", "greedy"],
)
def test_mexican_train_rollouts_end_as_on_the_reference_engine(
    rules: MexicanTrainRules, to_match_end: bool, kind: int, agent: type[Agent]
) -> None:
    """M6.1 round ends (going out or blocked), M6.2 points (``0-0`` at 50 under M1.3's
    variant) and, for the match score, M2.2 later rounds and M6.3: the same numbers,
    position after position, hidden tiles redealt by the belief as search does."""
    rollouts = MexicanTrainRollouts(rules, kind, MT_WEIGHTS, to_match_end=to_match_end)
    states = [
        Belief(state).determinize(random.Random(i))
        for i, state in enumerate(mexican_train_positions(rules, 8))
    ]
    compiled = rollouts.play_out([s.copy() for s in states], seed=0)
    reference = [agent_rollout(s, to_match_end, agent(), MT_ENCODING) for s in states]
    np.testing.assert_allclose(compiled, reference)


class Game(NamedTuple):
    rules: Any
    new: Any
    rollouts: Any
    weights: np.ndarray
    encoding: Any


GAMES = {
    "spinner": Game(
        SpinnerRules(num_players=3, num_hands=3),
        SpinnerState.new,
        SpinnerRollouts,
        WEIGHTS,
        ENCODING,
    ),
    "mexican_train": Game(
        MexicanTrainRules(num_players=3, num_rounds=3),
        MexicanTrainState.new,
        MexicanTrainRollouts,
        MT_WEIGHTS,
        MT_ENCODING,
    ),
}


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
@pytest.mark.parametrize("to_match_end", [False, True])
def test_a_hand_that_just_ended_is_scored_as_it_ended(game: Game, to_match_end: bool) -> None:
    """A search that plays the last tile (S6.4, M6.1) or the last pass of a blocked hand
    rolls out a finished hand: its score as it stands, or (match score) the match from
    the next deal."""
    rollouts = game.rollouts(
        game.rules, OPPONENT_HEURISTIC, game.weights, to_match_end=to_match_end
    )
    ended = []
    for seed in range(6):
        state = game.new(game.rules, seed)
        rng = random.Random(seed)
        while not state.hand_over:
            state.play_legal(rng.choice(state.legal_moves()))
        ended.append(state)
    compiled = rollouts.play_out([s.copy() for s in ended], seed=0)
    reference = [agent_rollout(s, to_match_end, encoding=game.encoding) for s in ended]
    np.testing.assert_allclose(compiled, reference)


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_random_rollouts_replay_from_their_seed_and_are_zero_sum(game: Game) -> None:
    rollouts = game.rollouts(game.rules, OPPONENT_RANDOM, game.weights)
    states = [random_position(game.rules, seed, new=game.new) for seed in range(30)]
    states = [s for s in states if not s.hand_over]
    first = rollouts.play_out([s.copy() for s in states], seed=11)
    np.testing.assert_array_equal(first, rollouts.play_out([s.copy() for s in states], seed=11))
    assert not np.array_equal(first, rollouts.play_out([s.copy() for s in states], seed=12))
    np.testing.assert_allclose(first.sum(axis=1), 0.0, atol=1e-12)
    one = rollouts.play_out([states[0].copy()] * 3, seed=4)
    assert (one == one[0]).all()  # one seed per call: every position draws the same stream


def test_rollouts_refuse_other_rules() -> None:
    with pytest.raises(ValueError, match="rules must be SpinnerRules"):
        SpinnerRollouts(MexicanTrainRules(), OPPONENT_RANDOM, WEIGHTS)
    with pytest.raises(ValueError, match="rules must be MexicanTrainRules"):
        MexicanTrainRollouts(SpinnerRules(), OPPONENT_RANDOM, MT_WEIGHTS)
