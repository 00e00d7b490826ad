"""The compiled heuristic decides as ``SpinnerHeuristicAgent`` does, decision by decision.

Batched games are shadowed by ``spinner_v0.raw_env`` games dealt from the same seeds
(``play_side_by_side`` of ``tests/test_batched.py``); at every decision the compiled
choice, read from the game record and from the observation, must be the agent's on the
reference engine (its scores: S1.4 points, S4.4 doubles, S5.1 arms, S4.2 wild ends, S8
voids). The adapters play heuristic opponents as ``SingleAgentEnv`` does
(``test_learner_batch_matches_single_agent_env``).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from test_batched import play_side_by_side

from spinner_env.batched.vector import as_batched
from spinner_env.games.spinner.batched import BatchedSpinner, BatchStep, sample_legal
from spinner_env.games.spinner.batched_heuristic import (
    HEURISTIC_WEIGHT_NAMES,
    WEIGHT_NAMES,
    heuristic_actions,
    heuristic_actions_from_obs,
)
from spinner_env.games.spinner.batched_players import HeuristicPolicy
from spinner_env.games.spinner.expert import SpinnerExpertWeights
from spinner_env.games.spinner.heuristic import SpinnerHeuristicAgent, SpinnerWeights
from spinner_env.games.spinner.rules import SpinnerRules
from spinner_env.games.spinner.weights import (
    COMPILED_WEIGHT_NAMES,
    EXPERT_WEIGHT_NAMES,
    PHASE_WEIGHT_NAMES,
)

WEIGHT_SETS = {
    "default": SpinnerWeights(),
    # Whole numbers everywhere: many equal scores, so the first-maximum rule is exercised.
    "ties": SpinnerWeights(*([1.0, 1.0, 2] + [1.0] * 7)),
    "odd": SpinnerWeights(0.3, 2.7, 7, -1.25, 3.1, 0.45, 5.5, 0.1, 9.0, -2.0),
}


def test_weight_names_are_the_heuristic_weights_fields_then_the_experts() -> None:
    """The heuristic's array holds its weights, then the expert's own and the phase
    weights at 0 (off)."""
    assert tuple(f.name for f in fields(SpinnerWeights)) == HEURISTIC_WEIGHT_NAMES
    assert tuple(f.name for f in fields(SpinnerExpertWeights)) == WEIGHT_NAMES
    assert COMPILED_WEIGHT_NAMES == WEIGHT_NAMES + PHASE_WEIGHT_NAMES
    weights = WEIGHT_SETS["odd"]
    expected = [getattr(weights, n) for n in HEURISTIC_WEIGHT_NAMES]
    expected += [0.0] * (len(EXPERT_WEIGHT_NAMES) + len(PHASE_WEIGHT_NAMES))
    assert weights.as_array().tolist() == expected


@pytest.mark.parametrize("weights", WEIGHT_SETS.values(), ids=WEIGHT_SETS.keys())
@pytest.mark.parametrize("num_players", [2, 3, 4, 8])
def test_compiled_heuristic_chooses_as_the_agent(
    num_players: int, weights: SpinnerWeights
) -> None:
    """Every decision of hand episodes (all hand numbers, S2.2), for positions of every kind."""
    rules = SpinnerRules(num_players=num_players, draw_until_playable=num_players == 4)
    agent = SpinnerHeuristicAgent(weights=weights)
    choices, _ = check_compiled_chooses_as(agent, rules, 1000 * num_players, 8, 120)
    assert choices > 200


def check_compiled_chooses_as(
    agent: SpinnerHeuristicAgent,
    rules: SpinnerRules,
    seed: int,
    num_games: int,
    decisions: int,
    baseline: np.ndarray | None = None,
) -> tuple[int, int]:
    """Play hand episodes side by side from ``seed``, the game played on by the agent's
    compiled twin with a random move one time in three, and require at every decision the
    compiled choice, read from the record and from the observation, to be the agent's.
    Return the decisions with two or more legal actions, and how many of those the
    compiled code with the ``baseline`` weights decides otherwise (0 without one)."""
    n = rules.num_players
    w = agent.compiled_weights()
    rng = np.random.default_rng(seed)
    choices = changed = 0

    def choose(engine: BatchedSpinner, step: BatchStep, envs: list) -> np.ndarray:
        nonlocal choices, changed
        compiled = heuristic_actions(engine.games, n, step.mask, w)
        from_obs = heuristic_actions_from_obs(step.obs, step.mask, w)
        for b, env in enumerate(envs):
            view = env.observe(env.agent_selection)
            expected = agent.act(view["observation"], view["action_mask"], env)
            assert (compiled[b], from_obs[b]) == (expected, expected)
            choices += int(view["action_mask"].sum() > 1)
        if baseline is not None:
            changed += int(
                (compiled != heuristic_actions(engine.games, n, step.mask, baseline)).sum()
            )
        explore = rng.random(len(envs)) < 1 / 3
        return np.where(explore, sample_legal(step.mask, rng.random(len(envs))), compiled)

    play_side_by_side(rules, "hand_score", "hand", num_games, seed, decisions, choose=choose)
    return choices, changed


def test_heuristic_agents_and_the_name_map_to_compiled_weights() -> None:
    default = as_batched("heuristic")
    assert isinstance(default, HeuristicPolicy)
    np.testing.assert_array_equal(default.weights, SpinnerWeights().as_array())
    odd = as_batched(SpinnerHeuristicAgent(weights=WEIGHT_SETS["odd"]))
    np.testing.assert_array_equal(odd.weights, WEIGHT_SETS["odd"].as_array())
    with pytest.raises(ValueError, match="shape"):
        HeuristicPolicy(np.zeros(3))


def test_compiled_heuristic_refuses_wrong_shapes() -> None:
    """The compiled loops have no bounds checks, so their entry points check shapes."""
    engine = BatchedSpinner(3, SpinnerRules(num_players=2))
    step = engine.reset(0)
    w = SpinnerWeights().as_array()
    with pytest.raises(ValueError, match="mask"):
        heuristic_actions(engine.games, 2, step.mask[:2], w)
    with pytest.raises(ValueError, match="weights"):
        heuristic_actions(engine.games, 2, step.mask, w[:3])
    with pytest.raises(ValueError, match="num_players"):
        heuristic_actions(engine.games, 9, step.mask, w)
    with pytest.raises(ValueError, match="obs"):
        heuristic_actions_from_obs(step.obs[:, :10], step.mask, w)
