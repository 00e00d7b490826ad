"""The committed policies: each loads by name, is a policy file of its game, and plays
legal moves in it (the evaluator refuses an illegal one)."""

from __future__ import annotations

import pytest
from spinner_env.agents import CHECKPOINTS, COMMITTED, make_agent
from spinner_env.agents.policy import PolicyAgent, load_policy, read_header
from spinner_env.train.evaluate import tournament

from spinner_env.games import game_named_in_files


@pytest.mark.parametrize("name", sorted(COMMITTED))
def test_a_committed_policy_loads_by_name_and_plays_legal_moves_in_its_game(name):
    game = game_named_in_files(read_header(CHECKPOINTS / f"{name}.safetensors").game)
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
        rules={game.hands_argument: 1},
        progress=False,
        first_only=True,
    )
    assert report.matches >= 1


def test_checkpoint_is_the_committed_2_player_policy():
    assert make_agent("checkpoint").name == "spinner_2p"
