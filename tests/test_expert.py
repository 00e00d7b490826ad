"""The expert Spinner player: its considerations on explicit positions (S1-S8)."""

from __future__ import annotations

import math
from dataclasses import fields, replace

import pytest
from spinner_env.agents import ExpertAgent, make_agent
from spinner_env.train.evaluate import tournament
from test_agents import SETTER, deal, decide, play, shown_void_in_3_8_and_s

from spinner_env.games.spinner.expert import Outlook, SpinnerExpertAgent, SpinnerExpertWeights
from spinner_env.games.spinner.heuristic import SpinnerHeuristicAgent, SpinnerWeights
from spinner_env.games.spinner.rules import ALL_TILES, S


def test_the_expert_keeps_its_spinner_tile_while_a_plain_tile_fits():
    """S1.2, S4.2: 5-S fits any end, so it is kept for a turn when nothing else will;
    2-9 goes on the set's 9 arm instead. The heuristic dumps the heavier 5-S."""
    view = deal(SETTER, "2-9 5-S 2-2 4-4 5-5 6-6 7-7 2-4 2-5 2-6 4-5 4-6 4-7 5-6")
    assert decide(SpinnerHeuristicAgent(), view).startswith("5-S")
    assert decide(SpinnerExpertAgent(), view) == "2-9 on 9 (opens 2)"


def test_the_next_seat_chance_to_be_stuck_counts_only_tiles_it_may_hold():
    """S8: the next seat may hold only unseen tiles (not ours, not on the layout) without a
    value it was shown void in; its hand is a uniform draw of its size from them."""
    game = shown_void_in_3_8_and_s().game
    outlook = Outlook(game)
    seen = {*game.hands[1], *(placed.tile for placed in game.layout)}
    possible = [t for t in ALL_TILES if t not in seen and not (t.has(3) or t.has(8) or t.has(S))]
    held = len(game.hands[0])
    assert outlook.possible == len(possible) and outlook.next_hand_size == held
    with_2 = sum(1 for t in possible if t.has(2))
    assert outlook.next_stuck_chance([2]) == pytest.approx(
        math.comb(len(possible) - with_2, held) / math.comb(len(possible), held)
    )
    assert outlook.next_stuck_chance([3, 8]) == 1.0  # only void values: it must draw (S6.2)
    assert outlook.next_stuck_chance([2, S]) == 0.0  # a wild end takes any tile (S4.2)


def test_the_expert_fills_the_ends_the_next_seat_is_void_in():
    """S5.1, S8: after 3-3 the next three placements go on its 3 arms, and seat 0 was shown
    void in 3 and in spinners, so it must draw (S6.2); seat 1 keeps 3-4 to follow. The
    heuristic's double bonuses are off in the expert: the blocking chance decides."""
    view = shown_void_in_3_8_and_s()
    assert decide(SpinnerExpertAgent(), view) == "3-3 on 3 (opens 3)"
    never_blocking = SpinnerExpertAgent(weights=replace(SpinnerExpertWeights(), block_next=0.0))
    assert decide(never_blocking, view) == "7-8 on 8 (opens 7)"  # the heavier tile


@pytest.mark.parametrize(
    "follow_up, expected",
    [("0-8", "0-8 on 0 (opens 8)"), ("0-3", "3-3 on 3 (opens 3)")],
)
def test_the_expert_keeps_a_tile_for_the_ends_it_leaves(follow_up, expected):
    """S5.1: after 3-3 the next three placements must go on 3s. Holding no other 3 or
    spinner tile, seat 1 would have to draw next turn, so it places 0-8 and keeps 3-3 for
    the 3 end; holding 0-3 to follow, it plays the double."""
    view = deal(SETTER, f"7-9 3-9 3-3 {follow_up} 2-4 2-5 2-6 4-5 4-6 5-6 2-2 4-4 5-5 6-6")
    game = view.game
    play(game, "7-9")
    play(game)  # seat 0: no 9 or S, draws and passes
    play(game, "3-9")
    play(game, "0-7")
    assert game.current == 1 and game.playable_ends() == [0, 3]
    assert decide(SpinnerExpertAgent(), view) == expected
    never_stuck = SpinnerExpertAgent(weights=replace(SpinnerExpertWeights(), own_stuck=0.0))
    assert decide(never_stuck, view) == "3-3 on 3 (opens 3)"


def test_the_expert_weights_extend_the_heuristic_weights():
    """Every heuristic weight is an expert weight, so one scoring serves both players; with
    the expert's own considerations off and the heuristic's weights it decides as the
    heuristic does."""
    own = {f.name for f in fields(SpinnerExpertWeights)} - {f.name for f in fields(SpinnerWeights)}
    assert own == {"block_next", "keep_wild", "own_stuck"}
    heuristic_like = SpinnerExpertWeights(
        **{f.name: getattr(SpinnerWeights(), f.name) for f in fields(SpinnerWeights)},
        **dict.fromkeys(own, 0.0),
    )
    agents = [SpinnerExpertAgent(weights=heuristic_like), SpinnerHeuristicAgent()]
    report = tournament(agents, 2, matches=4, rules={"num_hands": 2}, progress=False)
    assert report.agents["expert"]["points"].mean == report.agents["heuristic"]["points"].mean


@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_the_expert_is_a_deterministic_baseline_at_any_player_count(num_players):
    """S2.1: make_agent("expert") plays 2-8 players; it has no randomness, so a rerun of
    the same deals gives the same totals."""
    agent = make_agent("expert", seed=0)
    assert isinstance(agent, ExpertAgent) and agent.name == "expert"

    lineup = ["expert", "greedy", *["heuristic"] * (num_players - 2)]

    def totals():
        report = tournament(
            lineup, num_players, matches=num_players, rules={"num_hands": 1}, progress=False
        )
        return report.agents["expert"]["points"].mean

    assert totals() == totals()
