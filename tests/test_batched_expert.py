"""The compiled expert decides as ``SpinnerExpertAgent`` does, decision by decision.

The compiled heuristic (``spinner_env.games.spinner.batched_heuristic``) plays the expert when its
weights are ``SpinnerExpertWeights``. Batched games are shadowed by ``spinner_v0.raw_env`` games
dealt from the same seeds (``play_side_by_side`` of ``tests/test_batched.py``); at every
decision the compiled choice, read from the game record and from the observation, must
be the agent's on the reference engine: the heuristic's scores plus the chance that the
next seat is stuck on the ends a placement leaves (S4.2, S5.1-S5.4 for which ends, S8 for
the tiles it may hold), the wild tile kept (S1.2) and the own follow-up. The adapters play
expert opponents, mixed with heuristics, as ``SingleAgentEnv`` does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spinner_env.agents import ExpertAgent, HeuristicAgent
from spinner_env.train.config import TrainConfig
from spinner_env.train.ppo import make_pool, make_training_env
from test_batched import check_learner_batch_against_single_agent_env
from test_batched_heuristic import check_compiled_chooses_as
from test_train import tiny_config

from spinner_env.batched.vector import as_batched
from spinner_env.games.mexican_train.batched_expert import MexicanTrainExpertPolicy
from spinner_env.games.mexican_train.expert import MexicanTrainExpertWeights
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.batched_players import HeuristicPolicy
from spinner_env.games.spinner.expert import SpinnerExpertAgent, SpinnerExpertWeights
from spinner_env.games.spinner.heuristic import SpinnerHeuristicAgent
from spinner_env.games.spinner.rules import SpinnerRules
from spinner_env.games.spinner.weights import COMPILED_WEIGHT_NAMES, EXPERT_WEIGHT_NAMES

WEIGHT_SETS = {
    "default": SpinnerExpertWeights(),
    # Whole numbers: equal scores wherever the blocking chance is 0 or 1 (first maximum wins).
    "ties": SpinnerExpertWeights(
        *([1.0, 1.0, 2] + [1.0] * 7), block_next=3.0, keep_wild=2.0, own_stuck=1.0
    ),
    # The heuristic's terms back on, the expert's at other strengths and a negative one.
    "odd": SpinnerExpertWeights(
        0.3, 2.7, 7, -1.25, 3.1, 0.45, 5.5, 0.1, 9.0, -2.0, 33.0, 11.5, -4.0
    ),
}
EXPERT_WEIGHTS = [COMPILED_WEIGHT_NAMES.index(name) for name in EXPERT_WEIGHT_NAMES]
"""Where the expert's own weights sit in a compiled weight array."""


def check_expert(
    rules: SpinnerRules, weights: SpinnerExpertWeights, seed: int, games: int, decisions: int
) -> int:
    """The compiled expert chooses as ``SpinnerExpertAgent`` (``check_compiled_chooses_as``);
    return the decisions where its own terms changed the heuristic's scores' choice."""
    agent = SpinnerExpertAgent(weights=weights)
    without_own = agent.compiled_weights()
    without_own[EXPERT_WEIGHTS] = 0.0  # the heuristic's scores alone
    _, changed = check_compiled_chooses_as(agent, rules, seed, games, decisions, without_own)
    return changed


@pytest.mark.parametrize(
    ("num_players", "weights"),
    [(2, "default"), (3, "default"), (4, "default"), (8, "default"), (2, "ties"), (6, "odd")],
)
def test_compiled_expert_chooses_as_the_agent(num_players: int, weights: str) -> None:
    """Every decision of hand episodes (all hand numbers, S2.2), and the expert's own
    considerations decide some of them."""
    rules = SpinnerRules(num_players=num_players, draw_until_playable=num_players == 4)
    changed = check_expert(rules, WEIGHT_SETS[weights], 1000 * num_players, 8, 120)
    assert changed > 20


@settings(max_examples=6, deadline=None)
@given(
    num_players=st.integers(2, 8),
    draw_until_playable=st.booleans(),
    shortened=st.booleans(),
    seeded_first_dealer=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_compiled_expert_chooses_as_the_agent_in_every_variant(
    num_players: int,
    draw_until_playable: bool,
    shortened: bool,
    seeded_first_dealer: bool,
    seed: int,
) -> None:
    """S6.2 drawing until playable, S7.3 shortened sets, S2.3 seeded dealers."""
    rules = SpinnerRules(
        num_players=num_players,
        draw_until_playable=draw_until_playable,
        shortened=shortened,
        seeded_first_dealer=seeded_first_dealer,
    )
    check_expert(rules, SpinnerExpertWeights(), seed, 4, 60)


def test_the_expert_maps_to_its_compiled_weights() -> None:
    """By name and as an agent (its weights); a heuristic holding expert weights reads
    none of the expert's own; in Mexican Train the expert plays as its own compiled twin
    (its Mexican Train weights), never as the compiled heuristic."""
    default = as_batched("expert")
    assert isinstance(default, HeuristicPolicy) and default.name == "expert"
    np.testing.assert_array_equal(default.weights, SpinnerExpertWeights().as_array())
    odd = as_batched(SpinnerExpertAgent(weights=WEIGHT_SETS["odd"]))
    np.testing.assert_array_equal(odd.weights, WEIGHT_SETS["odd"].as_array())
    assert odd.weights[COMPILED_WEIGHT_NAMES.index("own_stuck")] == -4.0
    heuristic = as_batched(SpinnerHeuristicAgent(weights=WEIGHT_SETS["odd"]))
    assert heuristic.name == "heuristic"
    assert not heuristic.weights[EXPERT_WEIGHTS].any()
    for expert in ("expert", ExpertAgent()):
        policy = as_batched(expert, MexicanTrainRules())
        assert isinstance(policy, MexicanTrainExpertPolicy)
        np.testing.assert_array_equal(policy.weights, MexicanTrainExpertWeights().as_array())


@pytest.mark.parametrize(("num_players", "episode"), [(2, "match"), (4, "hand")])
def test_the_mexican_train_expert_plays_in_the_batch_as_on_the_reference_engine(
    num_players: int, episode: str
) -> None:
    """Its seats in a ``LearnerBatch`` (its compiled twin, reading the observations) make
    the moves it makes in ``SingleAgentEnv``, game for game."""
    rules = MexicanTrainRules(num_players=num_players, num_rounds=2)
    check_learner_batch_against_single_agent_env(
        rules, "hand_score", episode, None, [ExpertAgent(), HeuristicAgent()]
    )


@pytest.mark.parametrize(("num_players", "episode"), [(3, "match"), (4, "hand")])
def test_learner_batch_plays_experts_and_heuristics_as_single_agent_env(
    num_players: int, episode: str
) -> None:
    """One pool, the expert and a heuristic at alternate seats: two compiled weight rows."""
    agents = [
        SpinnerExpertAgent(),
        SpinnerHeuristicAgent(),
        SpinnerExpertAgent(weights=replace(SpinnerExpertWeights(), keep_wild=9.0)),
    ]
    rules = SpinnerRules(num_players=num_players, num_hands=2)
    check_learner_batch_against_single_agent_env(rules, "hand_score", episode, None, agents)


def test_a_batched_training_pool_seats_the_expert_compiled() -> None:
    """``backend: batched`` with ``opponents.baselines`` naming the expert: it plays in
    the compiled loop, next to the heuristic, each with its own weight row."""
    config = TrainConfig.from_dict(
        tiny_config(
            backend="batched",
            num_players=3,
            n_envs=16,
            opponents={"baselines": {"expert": 1, "heuristic": 1}},
        )
    )
    env = make_training_env(config, make_pool(config, 0))
    env.seed(0)
    env.reset()
    for _ in range(20):
        env.step(np.argmax(env.action_masks(), axis=1))
    # A weight row is a compiled kind's: neither is left to Python.
    expected = {
        tuple(SpinnerExpertWeights().as_array()),
        tuple(SpinnerHeuristicAgent().compiled_weights()),
    }
    assert {tuple(row) for row in env.batch.heuristic_weights} == expected
