"""The batched Mexican Train engine against the reference: same deals, same decisions.

Each batched game is shadowed by a ``mexican_train_v0.raw_env`` dealt from the same seed
(``play_side_by_side`` of ``tests/test_batched.py``); at every decision both must show
the same player to act, observation and action mask, and after it the same rewards; at
the end of an episode the same final totals and final observation (M1-M7 as implemented
by ``spinner_env.mexican_train``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_batched import SeededMexicanTrainEnv, play_side_by_side

from spinner_env import mexican_train_v0
from spinner_env.batched_core import BatchedEngine, BatchStep, sample_legal
from spinner_env.batched_mexican_train import GAME, BatchedMexicanTrain
from spinner_env.mexican_train import MexicanTrainRules, MexicanTrainState


@pytest.mark.parametrize("num_players", range(2, 9))
def test_full_matches_agree_for_every_player_count(num_players: int) -> None:
    """M2.1-M6.3: whole 13-round matches, every player count, match reward."""
    rules = MexicanTrainRules(num_players=num_players)
    finished = play_side_by_side(rules, "match", "match", 2, 100 * num_players, 0, None, 2)
    assert finished >= 2


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 8),
    num_rounds=st.integers(1, 13),
    double_blank_50=st.booleans(),
    reward=st.sampled_from(["match", "hand_score"]),
    episode=st.sampled_from(["match", "hand"]),
    learner=st.integers(-1, 7),
    seed=st.integers(0, 2**62),
)
def test_random_games_agree_decision_by_decision(
    num_players: int,
    num_rounds: int,
    double_blank_50: bool,
    reward: str,
    episode: str,
    learner: int,
    seed: int,
) -> None:
    """Both variants (M1.3 ``double_blank_50``, M2.2 ``num_rounds``), both reward schemes
    and episode modes, any learner seat."""
    rules = MexicanTrainRules(
        num_players=num_players, num_rounds=num_rounds, double_blank_50=double_blank_50
    )
    learner_seat = None if learner < 0 else learner % num_players
    play_side_by_side(rules, reward, episode, 4, seed, 150, learner_seat)


@pytest.mark.parametrize("num_players", [2, 4])
def test_blocked_rounds_and_rounds_that_go_on_after_everyone_passed_agree(
    num_players: int,
) -> None:
    """M6.1 as revised: a round with an empty boneyard goes on after every seat passed in
    turn while a seat could place on a train the passes marked (M4.3), and ends blocked
    once none could. Both happen in these games, and both engines agree on them."""
    blocked: set[tuple[int, int]] = set()
    went_on: set[tuple[int, int]] = set()
    rng = np.random.default_rng(0)

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        for env in envs:
            game = env.game
            blocked.update((game.seed, r.hand_number) for r in game.results if r.blocked)
            if not game.boneyard and game.passes_in_row >= num_players:
                went_on.add((game.seed, game.hand_number))
        return sample_legal(step.mask, rng.random(len(envs)))

    rules = MexicanTrainRules(num_players=num_players)
    play_side_by_side(rules, "hand_score", "match", 8, 3, 400, choose=choose)
    assert blocked
    assert went_on


def test_double_blank_50_scores_agree_when_it_is_left_in_hand() -> None:
    """M1.3 variant: games in which 0-0 is left in a hand at a round's end, so that its
    50 points decide the rewards of both engines."""
    rules = MexicanTrainRules(num_players=3, num_rounds=13, double_blank_50=True)
    left_in_hand = 0
    rng = np.random.default_rng(0)

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        nonlocal left_in_hand
        for env in envs:
            last = env.game.results[-1:] if env.game.results else []
            if last and any(p >= 50 for p in last[0].points):
                left_in_hand += 1
        return sample_legal(step.mask, rng.random(len(envs)))

    play_side_by_side(rules, "hand_score", "match", 8, 11, 300, choose=choose)
    assert left_in_hand > 0


def test_deal_is_the_reference_shuffle() -> None:
    """M2.3, M2.4: round r of seed s deals ``shuffled`` of the 90 tiles other than the
    engine, hands by seat in order, the rest the boneyard top first."""
    rules = MexicanTrainRules(num_players=5)
    engine = BatchedMexicanTrain(6, rules, episode="hand")
    engine.reset(2**62 - 3)
    k = rules.hand_size
    for b in range(6):
        game = engine.games[b]
        reference = MexicanTrainState.new(rules, int(game["seed"]), int(game["hand_number"]))
        for seat in range(5):
            assert game["hands"][seat, :k].tolist() == [t.index for t in reference.hands[seat]]
        assert game["deck"][game["top"] :].tolist() == [t.index for t in reference.boneyard]
        assert reference.engine.index not in game["deck"].tolist()


def test_illegal_action_raises_and_changes_nothing() -> None:
    engine = BatchedMexicanTrain(3, MexicanTrainRules(num_players=4))
    step = engine.reset(0)
    before = engine.games.copy()
    actions = sample_legal(step.mask, np.zeros(3))
    for illegal in (int(np.flatnonzero(step.mask[1] == 0)[0]), mexican_train_v0.NUM_ACTIONS, -1):
        actions[1] = illegal
        with pytest.raises(ValueError, match="illegal in game 1"):
            engine.step(actions)
    for name in GAME.names:
        np.testing.assert_array_equal(before[name], engine.games[name])


def test_observe_any_seat_matches_the_encoding() -> None:
    """M7: every seat's view, not only the player to act's."""
    n = 6
    engine = BatchedMexicanTrain(2, MexicanTrainRules(num_players=n))
    step = engine.reset(11)
    envs = []
    for b in range(2):
        env = SeededMexicanTrainEnv(num_players=n)
        env.start(11 + b, 0)
        envs.append(env)
    rng = np.random.default_rng(1)
    for _ in range(80):
        actions = sample_legal(step.mask, rng.random(2))
        step = engine.step(actions)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
    seats = np.array([2, 5])
    got = engine.observe(seats)
    for b, env in enumerate(envs):
        np.testing.assert_array_equal(got[b], env.encoding.observation(env.game, int(seats[b])))
    with pytest.raises(ValueError, match="seats must be"):
        engine.observe(np.full_like(seats, n))


def test_bad_arguments_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="num_games"):
        BatchedMexicanTrain(0)
    with pytest.raises(ValueError, match="learner_seat"):
        BatchedMexicanTrain(2, MexicanTrainRules(num_players=3), learner_seat=3)
    with pytest.raises(ValueError, match="reward"):
        BatchedMexicanTrain(2, reward="points")
    with pytest.raises(ValueError, match="seed"):
        BatchedMexicanTrain(2).reset(-1)
