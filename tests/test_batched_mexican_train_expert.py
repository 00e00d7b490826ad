"""The compiled Mexican Train expert (spinner_env.games.mexican_train.batched_expert) against the
agent: the same value for every legal placement and the same decision, read from the
observation alone (M7), in positions of every kind."""

from __future__ import annotations

import numpy as np
import pytest
from spinner_env.agents import make_agent
from test_batched import play_side_by_side

from spinner_env.batched.core import BatchedEngine, BatchStep, sample_legal
from spinner_env.batched.vector import as_batched
from spinner_env.games.mexican_train.batched import BatchedMexicanTrain
from spinner_env.games.mexican_train.batched_expert import (
    MexicanTrainExpertPolicy,
    expert_actions,
    expert_terms,
    expert_values,
)
from spinner_env.games.mexican_train.encoding import NUM_TILES
from spinner_env.games.mexican_train.expert import (
    MexicanTrainExpertAgent,
    MexicanTrainExpertWeights,
)
from spinner_env.games.mexican_train.rules import ALL_TILES, MexicanTrainRules
from spinner_env.games.mexican_train.weights import EXPERT_WEIGHT_NAMES

DOUBLE_IDS = [tile.index for tile in ALL_TILES if tile.is_double]

WEIGHT_SETS = {
    "default": MexicanTrainExpertWeights(),
    "odd": MexicanTrainExpertWeights(
        orphan=3.0,
        stranded=9.0,
        points=1.1,
        late_points=0.2,
        late_hand_size=8,
        exposed=2.5,
        marked_train=-4.0,
        block_next=30.0,
    ),
}


def test_weight_names_are_the_expert_weights_fields() -> None:
    weights = WEIGHT_SETS["odd"]
    assert sorted(EXPERT_WEIGHT_NAMES) == sorted(weights.__dataclass_fields__)
    assert weights.as_array().tolist() == [getattr(weights, n) for n in EXPERT_WEIGHT_NAMES]


@pytest.mark.parametrize("weights", WEIGHT_SETS.values(), ids=WEIGHT_SETS.keys())
@pytest.mark.parametrize("num_players", [2, 3, 4, 8])
def test_compiled_expert_values_and_decides_as_the_agent(
    num_players: int, weights: MexicanTrainExpertWeights
) -> None:
    """Every decision of round episodes (all rounds, M2.2), played on by the expert itself
    with a random move one time in three, for positions of every kind (M3.3 markers, M5
    doubles and their extra placements, M7 voids, empty boneyards; ``0-0`` at 50 points
    with 4 players, M1.3): each legal placement's value within rounding (the next seat's
    chance of being stuck is a product here, an exact ratio there), and the same move."""
    rules = MexicanTrainRules(num_players=num_players, double_blank_50=num_players == 4)
    agent = MexicanTrainExpertAgent(weights=weights)
    w = weights.as_array()
    rng = np.random.default_rng(num_players)
    choices = 0

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        nonlocal choices
        values = expert_values(step.obs, step.mask, w, rules.double_blank_50)
        actions = expert_actions(step.obs, step.mask, w, rules.double_blank_50)
        for b, env in enumerate(envs):
            view = env.observe(env.agent_selection)
            legal = np.flatnonzero(view["action_mask"])
            assert actions[b] == agent.act(view["observation"], view["action_mask"], env)
            if legal.size > 1:
                choices += 1
                expected = agent.legal_scores(legal, env)
                np.testing.assert_allclose(values[b, legal], expected, rtol=1e-12, atol=1e-12)
            others = np.ones(values.shape[1], bool)
            others[legal] = False
            assert (values[b, others] == -np.inf).all()
        explore = rng.random(len(envs)) < 1 / 3
        return np.where(explore, sample_legal(step.mask, rng.random(len(envs))), actions)

    play_side_by_side(rules, "hand_score", "hand", 8, 600 * num_players, 200, choose=choose)
    assert choices > 200


@pytest.mark.parametrize("weights", WEIGHT_SETS.values(), ids=WEIGHT_SETS.keys())
def test_the_expert_value_is_its_terms_times_its_weights(weights) -> None:
    """What policy iteration fits: each legal placement's value is the dot product of its
    terms and the weights (all but ``late_hand_size``), through the best follow-up of a
    double (M5.2), and each term is the value's change when its weight moves a little
    (but where that moves the best follow-up: a tie)."""
    engine = BatchedMexicanTrain(32, MexicanTrainRules(num_players=4), episode="hand")
    w = weights.as_array()
    step = engine.reset(1200)
    seen = []
    for _ in range(150):
        seen.append((step.obs.copy(), step.mask.copy()))
        step = engine.step(expert_actions(step.obs, step.mask, w))
    obs, mask = (np.concatenate(column) for column in zip(*seen, strict=True))
    values = expert_values(obs, mask, w)
    scores, terms = expert_terms(obs, mask, w)
    rows, actions = np.nonzero(mask)
    np.testing.assert_array_equal(scores, values[rows, actions])
    finite = np.isfinite(scores)
    doubles = np.isin(actions % NUM_TILES, DOUBLE_IDS)
    assert finite.sum() > 1000 and (finite & doubles).sum() > 50
    assert not terms[~finite].any()
    linear = [i for i, name in enumerate(EXPERT_WEIGHT_NAMES) if name != "late_hand_size"]
    assert not terms[:, EXPERT_WEIGHT_NAMES.index("late_hand_size")].any()
    np.testing.assert_allclose(terms[finite][:, linear] @ w[linear], scores[finite], atol=1e-9)
    nudge = 1e-6
    for i in linear:
        shifted = w.copy()
        shifted[i] += nudge
        moved = (expert_values(obs, mask, shifted)[rows, actions][finite] - scores[finite]) / nudge
        agree = np.isclose(moved, terms[finite, i], atol=1e-3)
        assert agree.mean() > 0.999, EXPERT_WEIGHT_NAMES[i]


def test_the_batched_engine_plays_the_expert_compiled() -> None:
    """The expert (and a jittered one) meets the batched engine as its compiled twin, with
    its own weights and the rules' variant."""
    rules = MexicanTrainRules(num_players=4, double_blank_50=True)
    for spec in ("expert", "expert:jitter=0.5,seed=3"):
        agent = make_agent(spec)
        policy = as_batched(agent, rules)
        assert isinstance(policy, MexicanTrainExpertPolicy)
        assert policy.weights.tolist() == agent.weights["mexican_train"].as_array().tolist()
        assert policy.double_blank_50


def test_bad_arguments_raise_value_errors() -> None:
    obs = np.zeros((2, 10), np.float32)
    with pytest.raises(ValueError, match="observations must be rows"):
        expert_values(obs, np.zeros((2, 821)), MexicanTrainExpertWeights().as_array())
    with pytest.raises(ValueError, match="weights must have shape"):
        MexicanTrainExpertPolicy(np.zeros(3))
