"""One scenario per numbered rule of ``shared/rules/mexican_train.md`` (M1-M6), plus the
page's worked checks, each from an explicit position or a seeded deal."""

from __future__ import annotations

import itertools
import random

import pytest

from spinner_env.core.match import DRAW, PASS
from spinner_env.core.tiles import parse_tiles
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    DEAL_SIZES,
    MEXICAN,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
    parse,
)


def tiles(text: str) -> list[MexicanTile]:
    return parse_tiles(MexicanTile, text)


def position(
    hands: list[str],
    *,
    top: str = "",
    trains: list[str] | None = None,
    rules: MexicanTrainRules | None = None,
    hand_number: int = 0,
    **kwargs,
) -> MexicanTrainState:
    """A position in which every tile not named lies in the boneyard under ``top``."""
    rules = rules or MexicanTrainRules(num_players=len(hands))
    engine = MexicanTile.of(12 - hand_number, 12 - hand_number)
    named = [*tiles(" ".join(hands)), *tiles(top), *tiles(" ".join(trains or []))]
    rest = [tile for tile in ALL_TILES if tile not in named and tile is not engine]
    return MexicanTrainState.from_position(
        hands,
        [*tiles(top), *rest],
        rules,
        trains=trains,
        hand_number=hand_number,
        **kwargs,
    )


def place(tile: str, train: int) -> Place:
    """A placement; ``train`` counts seats clockwise from the player placing."""
    return Place(parse(tile), train)


def play_randomly(state: MexicanTrainState, rng: random.Random) -> None:
    """Random legal moves until the current round is over."""
    while not state.hand_over:
        state.apply(rng.choice(state.legal_moves()))


# --------------------------------------------------------------------------- M1
def test_m1_1_double_twelve_set_of_91_tiles_without_wilds():
    assert len(ALL_TILES) == 91
    assert {(t.low, t.high) for t in ALL_TILES} == {(a, b) for b in range(13) for a in range(b + 1)}
    with pytest.raises(ValueError):
        MexicanTile.of(13, 0)


def test_m1_2_notation_lower_end_first():
    assert str(parse("12-9")) == "9-12"
    assert str(parse("0-0")) == "0-0"
    assert str(parse("12-12")) == "12-12"
    assert parse("10-3") is MexicanTile.of(3, 10)
    with pytest.raises(ValueError):
        parse("S-3")


def test_m1_3_points_are_pips_and_double_blank_50_variant():
    plain = position(["0-0 9-12", "1-2"])
    assert plain.tile_points(parse("9-12")) == 21
    assert plain.tile_points(parse("0-0")) == 0
    assert plain.hand_points(0) == 21
    variant = position(["0-0 9-12", "1-2"], rules=MexicanTrainRules(2, double_blank_50=True))
    assert variant.tile_points(parse("0-0")) == 50
    assert variant.hand_points(0) == 71


# --------------------------------------------------------------------------- M2
def test_m2_1_two_to_eight_players_and_clockwise_turns():
    for bad in (1, 9, 2.0):
        with pytest.raises(ValueError):
            MexicanTrainRules(num_players=bad)
    state = MexicanTrainState.new(MexicanTrainRules(num_players=3), seed=5)
    seats = []
    while len(seats) < 6:
        seat = state.current
        move = state.legal_moves()[0]
        state.apply(move)
        if state.current != seat:
            seats.append(state.current)
    assert all(b == (a + 1) % 3 for a, b in itertools.pairwise(seats))


def test_m2_2_thirteen_rounds_with_descending_engines_and_num_rounds_variant():
    rng = random.Random(0)
    state = MexicanTrainState.new(MexicanTrainRules(num_players=2), seed=1)
    engines = []
    while True:
        engines.append(state.engine_value)
        play_randomly(state, rng)
        if state.match_over:
            break
        state.start_next_hand()
    assert engines == list(range(12, -1, -1))
    assert len(state.results) == 13
    with pytest.raises(ValueError):
        state.start_next_hand()

    short = MexicanTrainState.new(MexicanTrainRules(num_players=2, num_rounds=2), seed=1)
    play_randomly(short, rng)
    short.start_next_hand()
    assert short.engine_value == 11
    play_randomly(short, rng)
    assert short.match_over
    for bad in (0, 14):
        with pytest.raises(ValueError):
            MexicanTrainRules(num_rounds=bad)


def test_m2_3_engine_is_in_the_hub_never_in_a_hand_or_the_boneyard():
    """Worked check: a round's engine never appears in any hand or the boneyard."""
    for n in (2, 5, 8):
        for r in (0, 6, 12):
            state = MexicanTrainState.new(MexicanTrainRules(num_players=n), seed=3, hand_number=r)
            engine = MexicanTile.of(12 - r, 12 - r)
            assert state.engine is engine
            assert all(engine not in hand for hand in state.hands)
            assert engine not in state.boneyard
            assert sum(map(len, state.hands)) + len(state.boneyard) == 90
    with pytest.raises(ValueError, match="12-12"):
        position(["12-12 0-1", "1-2"])


@pytest.mark.parametrize(("n", "each"), sorted(DEAL_SIZES.items()))
def test_m2_4_deal_sizes(n, each):
    expected = {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9}[n]
    assert each == expected
    state = MexicanTrainState.new(MexicanTrainRules(num_players=n), seed=11)
    assert [len(hand) for hand in state.hands] == [expected] * n
    assert len(state.boneyard) == 90 - n * expected


def test_m2_4_worked_check_four_and_eight_players():
    four = MexicanTrainState.new(MexicanTrainRules(num_players=4), seed=2)
    assert sum(map(len, four.hands)) == 60 and len(four.boneyard) == 30
    eight = MexicanTrainState.new(MexicanTrainRules(num_players=8), seed=2)
    assert sum(map(len, eight.hands)) == 72 and len(eight.boneyard) == 18


def test_m2_5_round_r_is_opened_by_seat_r_mod_n_whoever_won():
    rng = random.Random(4)
    state = MexicanTrainState.new(MexicanTrainRules(num_players=3), seed=9)
    openers = []
    for _ in range(5):
        openers.append(state.current)
        play_randomly(state, rng)
        state.start_next_hand()
    assert openers == [0, 1, 2, 0, 1]
    assert position(["0-1", "1-2", "2-3"], hand_number=4).current == 1


# --------------------------------------------------------------------------- M3
def test_m3_1_every_train_starts_empty_at_the_hub():
    state = MexicanTrainState.new(MexicanTrainRules(num_players=4), seed=0, hand_number=3)
    assert len(state.trains) == 5
    assert state.train_ids() == [0, 1, 2, 3, MEXICAN]
    for train in state.trains:
        assert train.tiles == [] and train.open_end == 9 and not train.marker


def test_m3_2_first_tile_has_the_engine_half_and_later_tiles_match_the_open_end():
    state = position(["12-5 5-3 3-4", "0-1"], top="0-2")
    assert set(state.legal_moves()) == {place("12-5", 0), place("12-5", MEXICAN)}
    state.apply(place("12-5", 0))
    assert state.trains[0].open_end == 5
    state.apply(DRAW)  # seat 1 has nothing for 12 and draws 0-2, nothing either
    state.apply(PASS)
    assert state.legal_moves() == [place("5-3", 0)]
    state.apply(place("5-3", 0))
    assert state.trains[0].tiles == tiles("12-5 5-3")
    assert state.trains[0].open_end == 3
    with pytest.raises(ValueError, match="cannot follow"):
        position(["0-1", "1-2"], trains=["12-5 3-4", "", ""])


def test_m3_3_worked_check_twelve_three_in_round_0():
    """Worked check: 12-3 with an empty own train in round 0 goes on the own train and
    the Mexican train, not on an unmarked opponent's train (but on a marked one)."""
    state = position(["12-3", "0-1", "1-2"])
    assert set(state.legal_moves()) == {place("12-3", 0), place("12-3", MEXICAN)}
    marked = position(["12-3", "0-1", "1-2"], markers=[2])
    assert set(marked.legal_moves()) == {
        place("12-3", 0),
        place("12-3", 2),
        place("12-3", MEXICAN),
    }
    assert state.open_to(1) == [1, MEXICAN]
    assert marked.open_to(1) == [1, 2, MEXICAN]


def test_m3_4_marker_goes_out_on_a_pass_and_off_when_the_owner_plays_own_train():
    state = position(["0-1 3-8", "0-2 7-8"], top="5-6", trains=["", "12-3", ""], current=1)
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    state.apply(PASS)
    assert state.trains[1].marker
    # Seat 0 may now use seat 1's train, and playing on it leaves the marker there.
    assert state.legal_moves() == [place("3-8", 1)]
    state.apply(place("3-8", 1))
    assert state.trains[1].marker
    assert state.legal_moves() == [place("7-8", 0)]
    state.apply(place("7-8", 0))  # the owner plays on its own train
    assert not state.trains[1].marker


def test_m3_4_a_marked_train_is_open_to_others_until_its_owner_plays_on_it():
    state = position(["3-9 0-1", "12-7 3-5"], trains=["", "12-3", ""], markers=[1])
    assert place("3-9", 1) in state.legal_moves()
    state.apply(place("3-9", 1))
    assert state.trains[1].marker and state.trains[1].open_end == 9


# --------------------------------------------------------------------------- M4
def test_m4_1_no_voluntary_draw_or_pass_while_a_placement_is_legal():
    state = position(["12-1 0-2", "0-3"])
    assert DRAW not in state.legal_moves() and PASS not in state.legal_moves()
    for move in (DRAW, PASS):
        with pytest.raises(ValueError):
            state.apply(move)


def test_m4_2_draw_one_and_place_it_at_once_if_it_fits():
    state = position(["0-1 0-2", "0-3"], top="12-5")
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert state.hands[0][-1] == parse("12-5")
    assert set(state.legal_moves()) == {place("12-5", 0), place("12-5", MEXICAN)}


def test_m4_2_a_drawn_tile_that_does_not_fit_ends_the_turn_without_a_second_draw():
    state = position(["0-1 0-2", "0-3"], top="4-5")
    state.apply(DRAW)
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.current == 1


def test_m4_3_a_turn_without_placement_marks_the_own_train_empty_boneyard_included():
    state = position(["0-1", "0-2"], top="4-5")
    state.apply(DRAW)
    state.apply(PASS)
    assert state.trains[0].marker
    # With an empty boneyard there is nothing to draw: pass at once, and mark.
    empty = dead_position()
    assert empty.legal_moves() == [PASS]
    empty.apply(PASS)
    assert empty.trains[0].marker
    assert empty.hand_over  # nobody could place even with every train marked (M6.1)


DEAD_TRAINS = [
    "12-0 0-1 1-12 12-2 2-3 3-12",
    "12-4 4-5 5-12 12-6 6-7 7-12",
    "12-8 8-9 9-12 12-10 10-11 11-12",
]
"""Three trains that end in 12 and hold every tile with a 12: nothing can follow them."""


def dead_position(**kwargs) -> MexicanTrainState:
    """Two players, empty boneyard, every tile off the trains in a hand: nobody can place."""
    on_trains = tiles(" ".join(DEAD_TRAINS))
    rest = [t for t in ALL_TILES if t not in on_trains and t is not parse("12-12")]
    hands = [[t for t in rest if t.index % 2 == seat] for seat in range(2)]
    return MexicanTrainState.from_position(hands, [], trains=DEAD_TRAINS, **kwargs)


# --------------------------------------------------------------------------- M5
def test_m5_1_a_double_goes_on_a_matching_end_and_leaves_its_own_value_open():
    state = position(["5-5 0-1", "0-2"], trains=["12-5", "", ""])
    assert place("5-5", 0) in state.legal_moves()
    state.apply(place("5-5", 0))
    assert state.trains[0].tiles[-1] == parse("5-5")
    assert state.trains[0].open_end == 5


def doubled() -> MexicanTrainState:
    """Seat 0 has just placed 5-5 on its own train and takes the extra placement."""
    state = position(["5-5 5-1 12-7 0-2", "5-9 12-3", "0-4"], trains=["12-5", "", "", ""])
    state.apply(place("5-5", 0))
    return state


def test_m5_2_a_double_earns_one_more_placement_on_it_or_elsewhere():
    state = doubled()
    assert state.current == 0 and state.extra_placement and state.unsatisfied == [0]
    assert set(state.legal_moves()) == {place("5-1", 0), place("12-7", MEXICAN)}
    on_it = state.copy()
    on_it.apply(place("5-1", 0))
    assert on_it.unsatisfied == [] and on_it.current == 1 and not on_it.extra_placement


def test_m5_2_placing_elsewhere_leaves_the_double_unsatisfied():
    state = doubled()
    state.apply(place("12-7", MEXICAN))
    assert state.unsatisfied == [0] and state.current == 1 and not state.extra_placement


def test_m5_2_with_nothing_to_place_the_doubler_draws_and_places_the_drawn_tile():
    state = position(["5-5 0-2", "0-3"], top="5-3", trains=["12-5", "", ""])
    state.apply(place("5-5", 0))
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert state.legal_moves() == [place("5-3", 0)]
    state.apply(place("5-3", 0))
    assert state.unsatisfied == [] and state.current == 1


def test_m5_2_when_the_drawn_tile_does_not_fit_the_turn_ends_with_a_marker():
    state = position(["5-5 0-2", "0-3"], top="0-4", trains=["12-5", "", ""])
    state.apply(place("5-5", 0))
    state.apply(DRAW)
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.trains[0].marker and state.unsatisfied == [0] and state.current == 1


def test_m5_2_a_drawn_double_earns_its_extra_placement_with_a_fresh_draw():
    state = position(["0-2 0-3", "0-4"], top="5-5 5-4", trains=["12-5", "", ""])
    state.apply(DRAW)
    state.apply(place("5-5", 0))
    assert state.current == 0 and state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert state.legal_moves() == [place("5-4", 0)]


def test_m5_2_a_double_placed_as_the_extra_placement_earns_another():
    state = position(["5-5 6-6 5-1 6-2 0-3", "0-4"], trains=["12-5", "", "12-6"], top="0-7")
    state.apply(place("5-5", 0))
    state.apply(place("6-6", MEXICAN))
    assert state.current == 0 and state.extra_placement
    assert state.unsatisfied == [0, MEXICAN]
    # M5.4 binds the doubler too: 6-2 would satisfy the younger double first.
    assert state.legal_moves() == [place("5-1", 0)]


def test_m5_3_following_players_may_only_place_on_the_unsatisfied_double():
    state = doubled()
    state.apply(place("12-7", MEXICAN))
    # Seat 1's 12-3 fits its own empty train, but the double on seat 0's unmarked
    # train binds every following player.
    assert state.legal_moves() == [place("5-9", 2)]  # seat 0's train, 2 seats on from 1
    state.apply(place("5-9", 2))
    assert state.unsatisfied == [] and not state.trains[0].marker


def test_m5_3_a_player_who_cannot_satisfy_even_after_drawing_marks_and_passes():
    state = position(
        ["5-5 12-7 7-8 0-9", "0-3 12-3", "0-4 7-1"], top="1-2 1-3 1-4", trains=["12-5", "", "", ""]
    )
    state.apply(place("5-5", 0))
    state.apply(place("12-7", MEXICAN))
    for seat in (1, 2):
        assert state.current == seat and state.legal_moves() == [DRAW]
        state.apply(DRAW)
        assert state.legal_moves() == [PASS]
        state.apply(PASS)
        assert state.trains[seat].marker
    # The doubler's own next turn is bound too: 7-8 fits the Mexican train, but no.
    assert state.current == 0 and state.legal_moves() == [DRAW]


def test_m5_4_unsatisfied_doubles_are_satisfied_oldest_first():
    state = position(
        ["5-5 6-6 0-9 0-8", "5-2 6-1", "6-3 0-4"], top="0-7", trains=["12-5", "", "", "12-6"]
    )
    state.apply(place("5-5", 0))
    state.apply(place("6-6", MEXICAN))
    state.apply(DRAW)
    state.apply(PASS)
    assert state.unsatisfied == [0, MEXICAN]
    assert state.legal_moves() == [place("5-2", 2)]
    state.apply(place("5-2", 2))
    assert state.unsatisfied == [MEXICAN]
    assert state.legal_moves() == [place("6-3", MEXICAN)]


def test_m5_5_a_double_as_last_tile_ends_the_round_at_once():
    state = position(["5-5", "0-1"], trains=["12-5", "", ""])
    state.apply(place("5-5", 0))
    assert state.hand_over and state.legal_moves() == []
    result = state.results[-1]
    assert result.winner == 0 and not result.blocked and result.points == (0, 1)
    state.start_next_hand()
    assert not state.extra_placement  # the next round starts with no extra placement


# --------------------------------------------------------------------------- M6
def test_m6_1_the_round_ends_when_a_player_places_the_last_tile():
    state = position(["12-3", "0-1 2-2"])
    state.apply(place("12-3", MEXICAN))
    assert state.hand_over
    assert state.results[-1].winner == 0 and not state.results[-1].blocked
    with pytest.raises(ValueError, match="after the hand ended"):
        state.apply(PASS)


def test_m6_1_a_round_nobody_could_play_even_with_every_train_marked_is_blocked_at_once():
    state = dead_position()
    state.apply(PASS)
    # The pass ends a turn, and no seat could place even with every train marked.
    assert state.hand_over and state.results[-1].blocked


def test_m6_1_a_pass_that_opens_a_train_to_a_seat_that_passed_does_not_block_the_round():
    """The issue's example (seed 53300): seat 1 holds 9-9 and 4-9 and passes; seat 0's
    train ends in 9 and is unmarked until seat 0 passes too, which opens it (M3.3, M4.3)."""
    mexican = "12-4 4-11 11-9 9-5 5-11 11-6 6-9 9-7 7-11 11-8 8-9 9-10 10-11"
    trains = ["12-9", "12-11 11-11 11-0 0-9 9-1 1-11 11-2 2-9 9-3 3-11", mexican]
    seat1 = "9-9 4-9"
    taken = tiles(" ".join([*trains, seat1]))
    seat0 = [t for t in ALL_TILES if t not in taken and t is not parse("12-12")]
    state = MexicanTrainState.from_position([seat0, seat1], [], trains=trains, current=1)
    state.apply(PASS)
    assert not state.hand_over and state.current == 0
    assert state.legal_moves() == [PASS]
    state.apply(PASS)  # the earlier reading ended the round here: both seats had passed
    assert not state.hand_over and state.trains[0].marker
    assert set(state.legal_moves()) == {place("9-9", 1), place("4-9", 1)}
    state.apply(place("4-9", 1))
    assert not state.hand_over and state.current == 0 and state.trains[0].open_end == 4


def test_m6_1_a_round_is_blocked_right_after_a_placement_that_leaves_nothing_playable():
    mexican = "12-8 8-9 9-12 12-10 10-11"
    trains = [*DEAD_TRAINS[:2], mexican]
    on_trains = tiles(" ".join(trains))
    rest = [t for t in ALL_TILES if t not in on_trains and t is not parse("12-12")]
    elevens = [t for t in rest if t.has(11)]
    others = [t for t in rest if not t.has(11)]
    state = MexicanTrainState.from_position(
        [others[::2], elevens + others[1::2]], [], trains=trains
    )
    state.apply(PASS)
    assert not state.hand_over  # seat 1 can follow the Mexican train's 11
    state.apply(place("11-12", MEXICAN))
    # Every 12 is on a train now: the next seat would only pass, so the turn that
    # placed 11-12 ends the round, scored as it stands (M6.2).
    assert state.hand_over
    result = state.results[-1]
    assert result.blocked and result.hand_number == 0
    assert list(result.points) == [state.hand_points(0), state.hand_points(1)]
    assert state.totals == list(result.points)
    assert result.winner == min((0, 1), key=lambda seat: (result.points[seat], seat))


def test_m6_1_a_pass_on_an_unsatisfied_double_nobody_can_satisfy_blocks_the_round():
    """Seat 1 could start its own empty train with a 12, but the unsatisfied 5-5 binds
    every seat (M5.3) and every other 5 is on the Mexican train."""
    mexican = "12-0 0-5 5-1 1-3 3-5 5-2 2-4 4-5 5-6 6-7 7-5 5-8 8-9 9-5 5-10 10-11 11-5"
    trains = ["12-5 5-5", "", mexican]
    on_trains = tiles(" ".join(trains))
    rest = [t for t in ALL_TILES if t not in on_trains and t is not parse("12-12")]
    state = MexicanTrainState.from_position([rest[::2], rest[1::2]], [], trains=trains, current=1)
    assert state.unsatisfied == [0] and state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.hand_over and state.results[-1].blocked
    assert state.trains[1].marker  # the pass still marked seat 1's train (M4.3)
    assert state.totals == [state.hand_points(0), state.hand_points(1)]


def test_m6_2_points_left_in_hand_are_added_to_the_match_totals():
    state = dead_position(totals=[10, 20])
    expected = [sum(t.pips for t in hand) for hand in state.hands]
    state.apply(PASS)
    assert list(state.results[-1].points) == expected
    assert state.totals == [10 + expected[0], 20 + expected[1]]
    assert state.results[-1].winner == min((0, 1), key=lambda s: expected[s])


def test_m6_2_double_blank_50_variant_scores_a_left_over_0_0_as_50():
    rules = MexicanTrainRules(num_players=2, double_blank_50=True)
    state = position(["12-3", "0-0 1-2"], rules=rules)
    state.apply(place("12-3", 0))
    assert state.results[-1].points == (0, 53)


def test_m6_3_lowest_total_wins_and_equal_lowest_totals_share():
    rules = MexicanTrainRules(num_players=3, num_rounds=1)
    state = position(["12-3", "0-1", "0-2"], rules=rules, totals=[5, 2, 1])
    state.apply(place("12-3", 0))
    assert state.match_over
    assert state.totals == [5, 3, 3]
    assert state.match_winners() == [1, 2]


# ------------------------------------------------------------- positions
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(hands=["0-1 0-1", "0-2"]), "more than once"),
        (dict(hands=["0-1", ""]), "holds no tile"),
        (dict(hands=["0-1", "0-2"], trains=["12-3"]), "trains given"),
        (dict(hands=["0-1", "0-2"], markers=[5]), "marker"),
        (dict(hands=["0-1", "0-2"], current=2), "current"),
        (dict(hands=["0-1", "0-2"], trains=["12-3 3-3", "", ""], unsatisfied=[]), "unsatisfied"),
    ],
)
def test_from_position_rejects_inconsistent_positions(kwargs, message):
    with pytest.raises(ValueError, match=message):
        position(**kwargs)


def test_from_position_rejects_a_missing_tile_and_a_round_out_of_range():
    with pytest.raises(ValueError, match="missing"):
        MexicanTrainState.from_position(["0-1", "0-2"], ["0-3"])
    with pytest.raises(ValueError, match="hand_number"):
        MexicanTrainState.from_position(["0-1", "0-2"], ["0-3"], hand_number=13)


def test_a_placement_names_its_train_from_the_seat_of_the_player_placing():
    state = position(["0-1", "12-3 0-2", "0-4"], current=1, markers=[0, 2])
    assert set(state.legal_moves()) == {
        place("12-3", 0),  # seat 1's own train
        place("12-3", 1),  # seat 2's
        place("12-3", 2),  # seat 0's
        place("12-3", MEXICAN),
    }
    assert [state.absolute_train(p.train) for p in state.legal_moves()] == [0, 1, 2, MEXICAN]
    state.apply(place("12-3", 2))
    assert state.trains[0].tiles == tiles("12-3") and state.trains[0].marker
    assert str(place("12-3", 2)) == "3-12 on the train 2 seat(s) on"
