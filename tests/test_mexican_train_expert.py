"""The expert Mexican Train player: its considerations on explicit positions (M1-M7)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from spinner_env.agents import ExpertAgent, HeuristicAgent, make_agent
from test_agents import decide, mexican_view, play_checking_legality

from spinner_env import mexican_train_v0
from spinner_env.core.agent import GameView
from spinner_env.games.mexican_train.expert import (
    MexicanTrainExpertAgent,
    MexicanTrainExpertWeights,
    NextSeat,
    longest_chain,
)
from spinner_env.games.mexican_train.rules import ALL_TILES, parse

OTHERS = ["1-3 1-8 1-9 3-8 3-9 8-9", "1-10 3-10 8-10 9-10 1-11 1-12"]
"""Hands of six for seats 1 and 2: no opponent is close to going out."""


def tiles(text: str) -> tuple:
    return tuple(parse(t) for t in text.split())


def place(view: GameView, move: str) -> None:
    game = view.game
    game.play_legal(next(m for m in game.legal_moves() if str(m) == move))


def test_the_plan_is_the_longest_then_heaviest_chain_from_the_open_end():
    """M3.2: each tile matches the open end it follows; a double keeps the end (M5.1)."""
    hand = tiles("3-5 1-3 5-7 7-7 2-7 2-9 0-4")
    assert longest_chain(hand, 5) == tiles("5-7 7-7 2-7 2-9")
    assert longest_chain(tiles("1-5 5-9"), 5) == tiles("5-9")  # equal length: heavier
    assert longest_chain(hand, 11) == ()


def test_the_expert_plays_a_tile_off_its_plan_rather_than_break_it():
    """M3.3: 5-7 and 2-7 chain from the own train's 5 end; 0-4 is off the plan and goes
    on seat 1's marked train. The heuristic places the heavier 5-7 on the Mexican train,
    which leaves it 2-7 and 0-4, neither of which follows its own train's 5."""
    view = mexican_view(["5-7 2-7 0-4", *OTHERS], ["12-5", "12-4", "", "12-6 5-6"], markers=[1])
    assert decide(MexicanTrainExpertAgent(), view) == "0-4 on the train 1 seat(s) on"
    assert decide(HeuristicAgent(), view) == "5-7 on the Mexican train"


def test_the_expert_dumps_its_heaviest_tile_when_an_opponent_is_close_to_going_out():
    """M6.2: early, 0-9 (off the plan 12-2 2-3) goes on the Mexican train; with seat 1
    down to one tile the points kept weigh most, and the 14-point 2-12 goes."""
    trains = ["", "", "", "12-0"]
    early = mexican_view(["2-12 2-3 0-9", *OTHERS], trains)
    late = mexican_view(["2-12 2-3 0-9", "1-3", OTHERS[1]], trains)
    assert decide(MexicanTrainExpertAgent(), early) == "0-9 on the Mexican train"
    assert decide(MexicanTrainExpertAgent(), late) == "2-12 on own train"


def test_the_expert_goes_out_through_two_doubles_in_one_turn():
    """M5.2, M6.1: 3-3 on the own train earns a placement, 5-5 on the Mexican train another,
    and 3-11 on the 3-3 empties the hand (M5.5: the 5-5 may stay unsatisfied). The
    heuristic places the heavier 3-11 after 3-3 and keeps 5-5."""

    def play_the_turn(agent) -> list:
        view = mexican_view(["3-3 5-5 3-11", *OTHERS], ["12-3", "", "", "12-5"])
        while view.game.current == 0 and not view.game.hand_over:
            place(view, decide(agent, view))
        return view.game.hands[0]

    assert play_the_turn(MexicanTrainExpertAgent()) == []
    assert play_the_turn(HeuristicAgent()) == [parse("5-5")]


def test_the_expert_lifts_its_marker_to_keep_its_plan():
    """M3.3, M3.4: while its train is marked anyone may place on it and break the plan
    5-7 7-2 2-9, so 5-7 goes on it, though 0-4 (off the plan) fits the Mexican train."""
    view = mexican_view(["5-7 2-7 2-9 0-4", *OTHERS], ["12-5", "", "", "12-4"], markers=[0])
    assert decide(MexicanTrainExpertAgent(), view) == "5-7 on own train"
    careless = MexicanTrainExpertAgent(weights=replace(MexicanTrainExpertWeights(), exposed=0.0))
    assert decide(careless, view) == "0-4 on the Mexican train"


def test_the_expert_follows_its_own_double_to_keep_its_plan():
    """M5.2, M5.3: after 6-6 on the own train, 6-9 satisfies it and the plan 6-9 9-4 goes
    on; 0-2 on the Mexican train would leave the double for the next players to satisfy
    on our train, which breaks the plan."""
    view = mexican_view(["6-6 6-9 4-9 0-2", *OTHERS], ["12-6", "", "", "12-0"])
    place(view, "6-6 on own train")
    assert decide(MexicanTrainExpertAgent(), view) == "6-9 on own train"


def test_the_expert_leaves_a_double_unsatisfied_when_the_next_seat_is_void_in_it():
    """M5.2, M5.3: after 8-8 on the Mexican train the extra placement may satisfy it with
    the heavier 4-8, or place 2-4 on the own train (4-8 then follows it there). Once
    seat 1 (15 tiles, so likely to hold an 8) was shown void in 8, the unsatisfied double
    binds it to draw and pass; the heuristic satisfies it either way."""
    seat1 = "1-7 1-9 2-2 7-9 1-6 6-9 0-1 0-3 0-5 0-6 0-7 1-4 3-4 3-5 3-6"
    view = mexican_view(["8-8 2-4 4-8", seat1, OTHERS[1]], ["12-2", "", "", "12-8"])
    place(view, "8-8 on the Mexican train")
    assert decide(MexicanTrainExpertAgent(), view) == "4-8 on the Mexican train"
    view.game.voids[1] = {8}
    assert decide(MexicanTrainExpertAgent(), view) == "2-4 on own train"
    assert decide(HeuristicAgent(), view) == "4-8 on the Mexican train"


def test_the_next_seat_chance_to_be_stuck_counts_only_tiles_it_may_hold():
    """M7: the next seat may hold only unseen tiles (not ours, not on a train, not the
    engine) without a value it was shown void in; its hand is a uniform draw of its size."""
    view = mexican_view(["5-7 2-7 0-4", *OTHERS], ["12-5", "12-4", "", "12-6 5-6"])
    game = view.game
    game.voids[1] = {3}
    seen = {*game.hands[0], game.engine, *tiles("12-5 12-4 12-6 5-6")}
    possible = [t for t in ALL_TILES if t not in seen and not t.has(3)]
    held = len(game.hands[1])
    with_2 = sum(1 for t in possible if t.has(2))
    outlook = NextSeat(game)
    assert outlook.stuck_chance({2}) == pytest.approx(
        math.comb(len(possible) - with_2, held) / math.comb(len(possible), held)
    )
    assert outlook.stuck_chance({3}) == 1.0  # shown void: it must draw (M4.2)


def test_make_agent_expert_plays_the_mexican_train_expert():
    """The name ``expert`` serves both games: in Mexican Train it decides as the
    Mexican Train expert, not as the heuristic."""
    view = mexican_view(["5-7 2-7 0-4", *OTHERS], ["12-5", "12-4", "", "12-6 5-6"], markers=[1])
    agent = make_agent("expert")
    assert isinstance(agent, ExpertAgent)
    assert decide(agent, view) == decide(MexicanTrainExpertAgent(), view)


@pytest.mark.parametrize("num_players", range(2, 9))
def test_the_expert_places_only_legal_tiles_at_every_player_count(num_players):
    """M2.1: from every seat, 2 to 8 players, next to heuristics; the env raises on an
    illegal action id."""
    env = mexican_train_v0.raw_env(num_players=num_players, num_rounds=3)
    env.reset(seed=num_players)
    pool = [make_agent("expert"), HeuristicAgent()]
    seats = {agent: pool[i % 2] for i, agent in enumerate(env.agents)}
    assert play_checking_legality(env, seats) > 0
