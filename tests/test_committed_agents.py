"""The committed policies: each loads by name, is a policy file of its game, and plays
legal moves in it (the evaluator refuses an illegal one)."""

from __future__ import annotations

import pytest
from spinner_env.agents import CHECKPOINTS, COMMITTED, make_agent
from spinner_env.agents.policy import PolicyAgent, load_policy
from spinner_env.train.evaluate import tournament

from spinner_env.games import game_spec

ONE_HAND = {"spinner": {"num_hands": 1}, "mexican_train": {"num_rounds": 1}}


@pytest.mark.parametrize("name", sorted(COMMITTED))
def test_a_committed_policy_loads_by_name_and_plays_legal_moves_in_its_game(name):
    game = game_spec(COMMITTED[name])
    agent = make_agent(name, seed=0, encoding=game.encoding)
    assert isinstance(agent, PolicyAgent) and agent.name == name
    header = load_policy(CHECKPOINTS / f"{name}.safetensors")[1]
    assert header.game == game.encoding.game_name
    report = tournament(  # a policy plays any seat of any player count
        [agent, "random", "random"],
        3,
        1,
        seed=3,
        game=game.name,
        rules=ONE_HAND[game.name],
        progress=False,
        first_only=True,
    )
    assert report.matches >= 1


def test_checkpoint_is_the_committed_2_player_policy():
    assert make_agent("checkpoint").name == "spinner_2p"
