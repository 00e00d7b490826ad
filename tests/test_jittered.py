"""Jittered hand-written players as agent specs: ``heuristic:jitter=J,seed=S``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from spinner_env.agents import ExpertAgent, HeuristicAgent, make_agent
from spinner_env.agents.jittered import jittered_player


def floats(weights) -> dict[str, float]:
    return {
        f.name: getattr(weights, f.name)
        for f in dataclasses.fields(weights)
        if isinstance(getattr(weights, f.name), float)
    }


def test_a_spec_is_the_same_player_every_time_and_named_by_it():
    a = make_agent("expert:jitter=0.3,seed=5")
    b = make_agent("expert:jitter=0.3,seed=5")
    assert isinstance(a, ExpertAgent) and a.name == "expert:jitter=0.3,seed=5"
    assert a.weights == b.weights and list(a.weights) == ["spinner", "mexican_train"]
    assert a.weights != ExpertAgent().weights
    assert make_agent("heuristic:jitter=0.3,seed=6").weights != make_agent(
        "heuristic:jitter=0.3,seed=5"
    ).weights


def test_the_spec_draws_the_weights_as_jittered_player_does_and_keeps_signs():
    agent = make_agent("heuristic:jitter=0.5,seed=2")
    drawn = jittered_player(HeuristicAgent, np.random.default_rng(2), 0.5)
    assert agent.weights == drawn.weights
    for game, defaults in HeuristicAgent().weights.items():
        for name, value in floats(defaults).items():
            assert np.sign(floats(agent.weights[game])[name]) == np.sign(value)
    assert make_agent("heuristic:jitter=0").weights == HeuristicAgent().weights


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("heuristic:", "needs jitter"),
        ("heuristic:seed=1", "needs jitter"),
        ("expert:jitter=-1", "finite number >= 0"),
        ("expert:jitter=inf", "finite number >= 0"),
        ("expert:jitter=big", "is not a number"),
        ("expert:jitter=0.1,seed=-2", "whole number"),
        ("expert:jitter=0.1,depth=2", "unknown option 'depth'"),
        ("heuristic:jitter", "is not key=value"),
    ],
)
def test_bad_specs_are_one_value_error(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)
