# ruff: noqa: N802 (test names cite rules: test_S5_2_...)
"""Scenario tests of the Spinner engine, one per rule of ``shared/rules/spinner.md``.

Each test starts from an explicit deal (``SpinnerState.from_position``) and checks what
the rules page says through the engine's public behaviour: ``legal_moves()``,
``apply()``, hands, boneyard, open ends, totals, results. Tests are named after the
rule they check (``test_S5_2_...``); the page's "Worked checks" have their own tests.
"""

from __future__ import annotations

import pytest

from spinner_env.core.match import DRAW, PASS
from spinner_env.games.spinner.encoding import SpinnerEncoding
from spinner_env.games.spinner.rules import (
    ALL_TILES,
    Place,
    Placed,
    SpinnerRules,
    SpinnerState,
    SpinnerTile,
    parse,
)

# ---------------------------------------------------------------------- helpers


def deal(
    hands: list[str], top: str = "", rules: SpinnerRules | None = None, **kwargs: object
) -> SpinnerState:
    """A hand dealt as written: ``hands[p]`` is seat p's hand; the boneyard is ``top``
    (drawn first) followed by every other tile in set order."""
    named = {parse(t) for text in [*hands, top] for t in text.split()}
    rest = [str(t) for t in ALL_TILES if t not in named]
    boneyard = " ".join([*top.split(), *rest])
    return SpinnerState.from_position(hands, boneyard, rules, **kwargs)  # type: ignore[arg-type]


def late(
    hands: list[str],
    boneyard: str,
    free: dict[str, int],
    *,
    current: int,
    rules: SpinnerRules | None = None,
    totals: list[int] | None = None,
) -> SpinnerState:
    """A position late in a hand, its fields set directly on a state.

    Reaching a bare boneyard or a one-tile hand from a deal takes dozens of moves, so
    these positions are written directly: every tile not in a hand or the boneyard lies
    on the layout, and ``free`` gives the open ends by value (S4.5: only counts matter).
    Such a layout is a record of the tiles, not a sequence of legal placements, so the
    position skips ``validate()`` (which ``from_dict`` runs).
    """
    rules = rules or SpinnerRules(num_players=len(hands))
    held = {parse(t) for text in [*hands, boneyard] for t in text.split()}
    placed = [t for t in ALL_TILES if t not in held]
    state = SpinnerState.new(rules)
    state.hands = [[parse(t) for t in hand.split()] for hand in hands]
    state.boneyard = [parse(t) for t in boneyard.split()]
    state.current = current
    state.layout = [Placed(0, t, None if i == 0 else t.low, t.high) for i, t in enumerate(placed)]
    state.free_ends = [0] * 11
    for symbol, count in free.items():
        state.free_ends[SpinnerTile.value_of(symbol)] = count
    state.unfilled = []
    state.totals = totals or [0] * rules.num_players
    return state


def pl(tile: str, end: str, opens: str) -> Place:
    """The placement of ``tile`` on an end of value ``end``, leaving ``opens`` open."""
    return Place(parse(tile), SpinnerTile.value_of(end), SpinnerTile.value_of(opens))


def play(state: SpinnerState, *moves: object) -> SpinnerState:
    for move in moves:
        state.apply(move)
    return state


def ends(state: SpinnerState) -> dict[str, int]:
    """Every open end (unfilled doubles' arms included), counted by value symbol."""
    return {
        SpinnerTile.symbol(value): count
        for value, count in enumerate(state.open_end_counts())
        if count
    }


def hand(state: SpinnerState, seat: int) -> list[str]:
    return sorted(str(t) for t in state.hands[seat])


def every_tile_name() -> list[str]:
    """S1.1 written out: 0-0 ... 9-9, then 0-S ... 9-S and S-S."""
    numbered = [f"{a}-{b}" for b in range(10) for a in range(b + 1)]
    spinners = [f"{a}-S" for a in range(10)] + ["S-S"]
    return sorted(numbered + spinners)


def tiles_in_play(state: SpinnerState) -> list[str]:
    data = state.to_dict()
    names = [t for h in data["hands"] for t in h] + data["boneyard"]
    return sorted(names + [p["tile"] for p in data["layout"]])


def assert_rejected(state: SpinnerState, move: object) -> None:
    """An illegal move raises ValueError and leaves the state exactly as it was."""
    before = state.to_dict()
    with pytest.raises(ValueError):
        state.apply(move)
    assert state.to_dict() == before


# Three players, hand 0. Seat 0 sets 9-9; seats 1 and 2 then fill its arms with 2-9
# and 5-9; seat 0 places 5-5. No seat but seat 2 holds a spinner (S-S).
FIVES = [
    "9-9 5-5 0-1 0-2 1-2 0-3 1-3",
    "2-9 2-4 0-4 1-4 3-4 4-4 0-6",
    "5-9 S-S 6-7 7-7 6-6 1-6 2-6",
]


def fives_just_placed(top: str = "1-7 0-5 5-6") -> SpinnerState:
    """The worked check's position: 5-5 just placed, open ends {5, 5, 5, 2}."""
    state = deal(FIVES, top)
    return play(state, pl("2-9", "9", "2"), pl("5-9", "9", "5"), pl("5-5", "5", "5"))


# Three players, hand 0: 9-9 set by seat 0; seat 1 holds 3-9 and 5-S; seat 2 holds no 9
# and no spinner, so it must draw (the boneyard starts with 9-S).
ARMS = [
    "9-9 0-1 0-2 1-2 0-3 1-3 2-3",
    "3-9 5-S 4-4 0-4 1-4 2-4 3-4",
    "3-5 0-5 1-5 2-5 5-5 6-7 7-7",
]

# Three players, hand 0: nobody holds 9-9 or S-S (nor any 9, spinner or double above 5).
NO_SET_TILE_HELD = [
    "0-1 0-2 1-2 0-3 1-3 2-3 3-3",
    "0-4 1-4 2-4 3-4 4-4 0-5 1-5",
    "2-5 3-5 4-5 5-5 0-6 1-6 2-6",
]

# Eight players, hand 0: seats 0, 3, 4 hold all 21 tiles with a 9 or an S; the other
# seats and the 10-tile boneyard hold only the double-eight tiles.
EIGHT = [
    "9-9 0-9 1-9 2-9 3-9 4-9 5-9",
    "0-0 0-1 1-1 0-2 1-2 2-2 0-3",
    "1-3 2-3 3-3 0-4 1-4 2-4 3-4",
    "6-9 7-9 8-9 9-S 0-S 1-S 2-S",
    "3-S 4-S 5-S 6-S 7-S 8-S S-S",
    "4-4 0-5 1-5 2-5 3-5 4-5 5-5",
    "0-6 1-6 2-6 3-6 4-6 5-6 6-6",
    "0-7 1-7 2-7 3-7 4-7 5-7 6-7",
]
EIGHT_BONEYARD = "7-7 0-8 1-8 2-8 3-8 4-8 5-8 6-8 7-8 8-8"


# ------------------------------------------------------------------- S1 tiles


def test_S1_1_sixty_six_tiles_double_nine_plus_spinners() -> None:
    assert len(every_tile_name()) == 66
    for players in range(2, 9):
        state = SpinnerState.new(SpinnerRules(num_players=players), seed=players)
        assert tiles_in_play(state) == every_tile_name()


def test_S1_1_no_tile_outside_the_set() -> None:
    for name in ("10-10", "0-10", "S-T", "9-11"):
        with pytest.raises(ValueError):
            parse(name)


def test_S1_2_spinner_half_fits_a_number_end() -> None:
    state = deal(ARMS)
    # Seat 1: 3-9 on a 9 arm; 5-S only with its S on the 9 (its 5 fits nothing there).
    assert set(state.legal_moves()) == {pl("3-9", "9", "3"), pl("5-S", "9", "5")}


def test_S1_2_every_half_fits_an_S_end() -> None:
    state = play(deal(ARMS, "9-S"), pl("3-9", "9", "3"), DRAW, pl("9-S", "9", "S"))
    assert ends(state) == {"3": 1, "S": 1}
    # Seat 0 holds no 9 and no S: on the 3 end only its 3s fit; on the S end everything.
    assert set(state.legal_moves()) == {
        pl("0-3", "3", "0"),
        pl("1-3", "3", "1"),
        pl("2-3", "3", "2"),
        pl("0-1", "S", "0"),
        pl("0-1", "S", "1"),
        pl("0-2", "S", "0"),
        pl("0-2", "S", "2"),
        pl("1-2", "S", "1"),
        pl("1-2", "S", "2"),
        pl("0-3", "S", "0"),
        pl("0-3", "S", "3"),
        pl("1-3", "S", "1"),
        pl("1-3", "S", "3"),
        pl("2-3", "S", "2"),
        pl("2-3", "S", "3"),
    }


def test_S1_2_S_matches_S() -> None:
    state = fives_just_placed()
    play(state, DRAW, PASS)  # seat 1 has no 5 and no spinner
    # Seat 2's S-S goes on a 5 arm (its S fits the 5) and opens three S arms.
    assert state.legal_moves() == [pl("S-S", "5", "S")]
    state.apply(pl("S-S", "5", "S"))
    assert ends(state) == {"2": 1, "5": 2, "S": 3}


def test_S1_3_notation_lower_end_first_S_above_nine() -> None:
    assert str(parse("S-7")) == "7-S"
    assert str(parse("7-3")) == "3-7"
    assert str(parse("S-S")) == "S-S"
    assert parse("s-7") is parse("7-S")
    hands = [
        "9-9 S-5 7-0 S-S 4-2 8-1 3-6",
        "9-0 9-1 9-2 9-3 9-4 9-5 9-6",
        "S-0 S-1 S-2 S-3 S-4 S-6 S-7",
    ]
    data = deal(hands).to_dict()
    assert data["hands"][0] == ["5-S", "0-7", "S-S", "2-4", "1-8", "3-6"]
    assert data["layout"][0]["tile"] == "9-9"


def test_S1_4_points_are_pips_with_S_counting_ten() -> None:
    # Seat 1 goes out; seat 0 scores 9-9 (18) + 9-S (19); seat 2 scores 0-0 (0) + S-S (20).
    state = late(["9-9 9-S", "3-4", "0-0 S-S"], "", {"3": 1}, current=1)
    state.apply(pl("3-4", "3", "4"))
    assert state.results[-1].points == (37, 0, 20)


def test_S1_5_S_S_is_a_double() -> None:
    state = fives_just_placed()
    play(state, DRAW, PASS, pl("S-S", "5", "S"))
    # Like every double, S-S waits for three placements on its arms (S4.4, S5.1).
    assert [u.tile for u in state.unfilled] == [parse("5-5"), parse("S-S")]
    assert [u.arms_left for u in state.unfilled] == [2, 3]


def test_S1_5_a_spinner_with_a_number_is_not_a_double() -> None:
    state = play(deal(ARMS, "9-S"), pl("3-9", "9", "3"), DRAW)
    state.apply(pl("9-S", "9", "S"))
    assert state.unfilled == []
    assert ends(state) == {"3": 1, "S": 1}


# ------------------------------------------------------ S2 players, match, deal


def test_S2_1_two_to_eight_players() -> None:
    for players in range(2, 9):
        assert SpinnerState.new(SpinnerRules(num_players=players)).num_players == players
    for players in (0, 1, 9):
        with pytest.raises(ValueError):
            SpinnerRules(num_players=players)


def test_S2_1_next_seat_wraps_to_seat_zero() -> None:
    # Seat 2 of 3 sets, so seat 0 acts first; after seat 0 passes, seat 1 acts.
    state = deal(
        [
            "0-1 0-2 1-2 0-3 1-3 2-3 3-3",
            "0-4 1-4 2-4 3-4 4-4 0-5 1-5",
            "9-9 3-9 4-9 5-9 6-9 7-9 8-9",
        ]
    )
    assert state.current == 0
    play(state, DRAW, PASS)
    assert state.current == 1


def test_S2_2_hand_h_opens_with_double_nine_minus_h() -> None:
    hands = [
        "5-5 0-1 0-2 1-2 0-3 1-3 2-3",
        "9-9 6-6 7-7 8-8 S-S 0-0 1-1",
        "0-4 1-4 2-4 3-4 4-4 0-5 1-5",
    ]
    state = deal(hands, hand_number=4)
    assert state.layout[0].tile == parse("5-5")
    assert state.layout[0].seat == 0
    assert ends(state) == {"5": 2}


def test_S2_2_a_match_is_ten_hands_each_one_double_lower() -> None:
    state = SpinnerState.new(SpinnerRules(num_players=4), seed=3)
    set_tiles = []
    while True:
        set_tiles.append(str(state.layout[0].tile))
        while not state.hand_over:
            state.apply(state.legal_moves()[0])
        if state.match_over:
            break
        state.start_next_hand()
    assert [r.hand_number for r in state.results] == list(range(10))
    for h, set_tile in enumerate(set_tiles):
        assert set_tile in (f"{9 - h}-{9 - h}", "S-S")
    with pytest.raises(ValueError):
        state.start_next_hand()


def test_S2_2_variant_num_hands_plays_the_first_k() -> None:
    state = SpinnerState.new(SpinnerRules(num_players=3, num_hands=2), seed=5)
    while not state.match_over:
        if state.hand_over:
            state.start_next_hand()
        state.apply(state.legal_moves()[0])
    assert [r.hand_number for r in state.results] == [0, 1]
    assert str(state.layout[0].tile) in ("8-8", "S-S")


def test_S2_3_dealer_of_hand_zero_is_seat_zero() -> None:
    for seed in range(20):
        assert SpinnerState.new(SpinnerRules(num_players=5), seed=seed).dealer == 0


def test_S2_3_variant_seeded_first_dealer() -> None:
    rules = SpinnerRules(num_players=5, seeded_first_dealer=True)
    dealers = [SpinnerState.new(rules, seed=seed).dealer for seed in range(40)]
    assert set(dealers) == set(range(5))
    assert dealers == [SpinnerState.new(rules, seed=seed).dealer for seed in range(40)]


def test_S2_3_winner_of_a_hand_deals_the_next() -> None:
    state = late(["1-2 0-3", "3-4", "4-5"], "", {"3": 1}, current=1)
    state.apply(pl("3-4", "3", "4"))
    assert state.results[-1].winner == 1
    state.start_next_hand()
    assert state.dealer == 1
    assert state.hand_number == 1
    assert str(state.layout[0].tile) in ("8-8", "S-S")


def test_S2_3_dealer_draws_first_for_the_set() -> None:
    state = deal(NO_SET_TILE_HELD, "7-7 8-8 9-9", dealer=2)
    # Seat 2 draws 7-7, seat 0 draws 8-8, seat 1 draws 9-9 and sets it.
    assert state.layout[0].seat == 1
    assert "7-7" in hand(state, 2)
    assert "8-8" in hand(state, 0)


def test_S2_4_two_players_take_fourteen_each() -> None:
    state = deal(
        [
            "9-9 0-1 0-2 1-2 0-3 1-3 2-3 3-3 0-4 1-4 2-4 3-4 4-4 0-5",
            "1-5 2-5 3-5 4-5 5-5 0-6 1-6 2-6 3-6 4-6 5-6 6-6 0-7 1-7",
        ]
    )
    assert [len(h) for h in state.hands] == [13, 14]
    assert len(state.boneyard) == 38
    for wrong in (7, 13, 15):
        hands = [" ".join(every_tile_name()[:wrong]), " ".join(every_tile_name()[20 : 20 + wrong])]
        with pytest.raises(ValueError):
            deal(hands)


def test_S2_4_three_to_eight_players_take_seven_each() -> None:
    for players in range(3, 9):
        for seed in range(5):
            state = SpinnerState.new(SpinnerRules(num_players=players), seed=seed)
            drawn_for_set = 66 - 7 * players - len(state.boneyard)
            assert drawn_for_set >= 0
            assert sum(map(len, state.hands)) == 7 * players - 1 + drawn_for_set
            setter = state.layout[0].seat
            assert all(len(h) >= 7 for seat, h in enumerate(state.hands) if seat != setter)


def test_S2_4_draws_take_the_top_of_the_boneyard() -> None:
    state = deal(ARMS, "9-S 4-6 0-8")
    play(state, pl("3-9", "9", "3"), DRAW)
    assert "9-S" in hand(state, 2)
    assert [str(t) for t in state.boneyard[:2]] == ["4-6", "0-8"]


def test_S2_5_a_seat_sees_neither_other_hands_nor_the_boneyard() -> None:
    seen = ARMS[:2]
    one = deal([*seen, "3-5 0-5 1-5 2-5 5-5 6-7 7-7"], "0-8 1-8 2-8")
    other = deal([*seen, "0-8 1-8 2-8 4-6 5-6 6-6 7-8"], "7-7 6-7 2-5")
    encoding = SpinnerEncoding()
    for seat in (0, 1):
        assert (encoding.observation(one, seat) == encoding.observation(other, seat)).all()
    assert not (encoding.observation(one, 2) == encoding.observation(other, 2)).all()


# ------------------------------------------------------------------- S3 the set


def test_S3_1_holder_of_the_start_double_sets_it() -> None:
    hands = [
        "S-S 0-1 0-2 1-2 0-3 1-3 2-3",
        "0-4 1-4 2-4 3-4 4-4 0-5 1-5",
        "9-9 2-5 3-5 4-5 5-5 0-6 1-6",
    ]
    state = deal(hands)
    assert state.layout[0].tile == parse("9-9")
    assert state.layout[0].seat == 2
    assert "9-9" not in hand(state, 2)
    assert "S-S" in hand(state, 0)


def test_S3_1_else_the_holder_of_S_S_sets_it() -> None:
    hands = [
        "0-1 0-2 1-2 0-3 1-3 2-3 3-3",
        "S-S 0-4 1-4 2-4 3-4 4-4 0-5",
        "1-5 2-5 3-5 4-5 5-5 0-6 1-6",
    ]
    state = deal(hands, "9-9")
    assert state.layout[0].tile == parse("S-S")
    assert state.layout[0].seat == 1
    assert len(state.boneyard) == 66 - 21


def test_S3_2_draw_for_the_set_from_the_dealer_clockwise() -> None:
    state = deal(NO_SET_TILE_HELD, "7-7 8-8 0-7 6-6 9-9 S-S")
    # Seat 0 (the dealer) draws 7-7, seat 1 8-8, seat 2 0-7, seat 0 6-6, seat 1 9-9.
    assert state.layout[0].tile == parse("9-9")
    assert state.layout[0].seat == 1
    assert [len(h) for h in state.hands] == [9, 8, 8]
    assert {"7-7", "6-6"} <= set(hand(state, 0))
    assert "8-8" in hand(state, 1)
    assert "0-7" in hand(state, 2)
    assert str(state.boneyard[0]) == "S-S"
    assert state.current == 2


def test_S3_2_drawing_S_S_sets_it() -> None:
    state = deal(NO_SET_TILE_HELD, "7-7 S-S 9-9")
    assert state.layout[0].tile == parse("S-S")
    assert state.layout[0].seat == 1
    assert ends(state) == {"9": 2}


def test_S3_3_setting_is_forced_not_a_move() -> None:
    state = deal(ARMS)
    # The set is on the layout before any move; the first decision is seat 1's.
    assert [str(p.tile) for p in state.layout] == ["9-9"]
    assert state.current == 1
    assert all(isinstance(m, Place) and m.tile != parse("9-9") for m in state.legal_moves())


def test_S3_4_set_opens_two_arms_that_are_the_only_open_ends() -> None:
    state = deal(ARMS, "9-S")
    assert ends(state) == {"9": 2}
    state.apply(pl("3-9", "9", "3"))
    # Seat 2 holds 3-5, which fits the new 3 end, but the 3rd placement must go on the
    # set's second arm: seat 2 has no 9 and no S, so it draws.
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert set(state.legal_moves()) == {pl("9-S", "9", "S"), pl("9-S", "9", "9")}
    state.apply(pl("9-S", "9", "S"))
    assert ends(state) == {"3": 1, "S": 1}
    assert state.unfilled == []


def test_S3_4_set_S_S_has_arms_of_the_start_value() -> None:
    hands = [
        "0-1 0-2 1-2 0-3 1-3 2-3 3-3",
        "S-S 0-4 1-4 2-4 3-4 4-4 0-5",
        "1-5 2-5 3-5 4-5 5-5 0-6 9-9",
    ]
    state = deal(hands, "", hand_number=1)
    # Hand 1 starts with 8-8, which is in the boneyard: S-S stands in, with two 8 arms.
    assert state.layout[0].tile == parse("S-S")
    assert ends(state) == {"8": 2}
    assert state.legal_moves() == [DRAW]  # seat 2 holds neither an 8 nor an S


def test_S3_5_player_after_the_setter_acts_first() -> None:
    assert deal(ARMS).current == 1
    hands = [
        "0-1 0-2 1-2 0-3 1-3 2-3 3-3",
        "0-4 1-4 2-4 3-4 4-4 0-5 1-5",
        "9-9 2-5 3-5 4-5 5-5 0-6 1-6",
    ]
    assert deal(hands).current == 0


# ---------------------------------------------------------------- S4 the layout


def test_S4_1_layout_is_a_tree_of_valued_ends() -> None:
    state = fives_just_placed()
    play(state, DRAW, PASS, pl("S-S", "5", "S"))
    # The set opens 2 ends; a plain tile closes one and opens one; a double closes one
    # and opens three. Two doubles after the set: 2 + 2 * 2 = 6 open ends.
    assert ends(state) == {"2": 1, "5": 2, "S": 3}
    assert [(str(p.tile), p.end, p.opens) for p in state.layout] == [
        ("9-9", None, 9),
        ("2-9", 9, 2),
        ("5-9", 9, 5),
        ("5-5", 5, 5),
        ("S-S", 5, 10),
    ]


def test_S4_2_placement_closes_the_end_and_opens_the_other_half() -> None:
    state = play(deal(ARMS, "9-S"), pl("3-9", "9", "3"), DRAW, pl("9-S", "9", "S"))
    play(state, pl("0-3", "3", "0"))
    assert ends(state) == {"0": 1, "S": 1}
    # Seat 1 (5-S 4-4 0-4 1-4 2-4 3-4): on the 0 end 0-4; on S anything.
    legal = set(state.legal_moves())
    assert pl("0-4", "0", "4") in legal
    assert pl("1-4", "0", "4") not in legal
    assert all(m.end in (0, 10) for m in legal)


def test_S4_3_any_tile_on_an_S_end_leaves_the_half_the_player_chooses() -> None:
    state = play(deal(ARMS, "9-S"), pl("3-9", "9", "3"), DRAW, pl("9-S", "9", "S"))
    # Seat 0's 1-2 on the S end: both halves fit, so either may stay open.
    assert {m for m in state.legal_moves() if m.tile == parse("1-2")} == {
        pl("1-2", "S", "1"),
        pl("1-2", "S", "2"),
    }
    assert ends(play(state.copy(), pl("1-2", "S", "1"))) == {"3": 1, "1": 1}
    assert ends(play(state.copy(), pl("1-2", "S", "2"))) == {"3": 1, "2": 1}


def test_S4_3_5_S_on_a_5_end_leaves_either_half_open() -> None:
    hands = [
        "9-9 5-S 0-2 1-2 0-3 1-3 2-3",
        "5-9 0-4 1-4 2-4 3-4 4-4 6-6",
        "9-S 0-6 1-6 2-6 3-6 4-6 6-7",
    ]
    state = play(deal(hands), pl("5-9", "9", "5"), pl("9-S", "9", "9"))
    assert ends(state) == {"5": 1, "9": 1}
    on_five = {m for m in state.legal_moves() if m.end == 5}
    assert on_five == {pl("5-S", "5", "S"), pl("5-S", "5", "5")}
    # On the 9 end only its S fits, so there is no choice: 5 stays open.
    assert {m for m in state.legal_moves() if m.tile == parse("5-S") and m.end == 9} == {
        pl("5-S", "9", "5")
    }
    assert ends(play(state.copy(), pl("5-S", "5", "S"))) == {"9": 1, "S": 1}
    assert ends(play(state.copy(), pl("5-S", "5", "5"))) == {"9": 1, "5": 1}


def test_S4_4_double_opens_three_arms_and_closes_its_end() -> None:
    state = play(deal(FIVES), pl("2-9", "9", "2"), pl("5-9", "9", "5"))
    assert ends(state) == {"2": 1, "5": 1}
    state.apply(pl("5-5", "5", "5"))
    assert ends(state) == {"2": 1, "5": 3}


def test_S4_4_S_S_opens_three_S_arms() -> None:
    hands = [
        "9-9 0-1 0-2 1-2 0-3 1-3 2-3",
        "S-S 0-4 1-4 2-4 3-4 4-4 6-6",
        "0-5 1-5 2-5 3-5 4-5 5-5 6-7",
    ]
    state = play(deal(hands, "3-9"), pl("S-S", "9", "S"))
    assert ends(state) == {"9": 1, "S": 3}


# Three players, hand 0: after 9-9, 5-9 and 9-S, seat 0's 5-S makes two free 5 ends.
TWO_FIVES = [
    "9-9 5-S 1-5 0-1 0-2 1-2 0-3",
    "5-9 5-5 2-5 1-3 2-3 3-3 0-4",
    "9-S 0-5 3-5 1-4 2-4 3-4 4-4",
]


def two_free_fives() -> SpinnerState:
    state = deal(TWO_FIVES)
    return play(state, pl("5-9", "9", "5"), pl("9-S", "9", "S"), pl("5-S", "S", "5"))


def test_S4_5_equal_value_ends_are_interchangeable() -> None:
    state = two_free_fives()
    assert ends(state) == {"5": 2}
    legal = state.legal_moves()
    # One move per tile and choice, not one per 5 end.
    assert sorted(legal, key=str) == sorted([pl("5-5", "5", "5"), pl("2-5", "5", "2")], key=str)
    assert len(legal) == len(set(legal))


def test_S4_5_a_free_end_is_not_an_arm_of_an_equal_double() -> None:
    state = play(two_free_fives(), pl("5-5", "5", "5"))
    assert ends(state) == {"5": 4}
    play(state, pl("0-5", "5", "0"), pl("1-5", "5", "1"), pl("2-5", "5", "2"))
    # The three placements filled 5-5's arms; the other free 5 end is still open.
    assert state.unfilled == []
    assert ends(state) == {"0": 1, "1": 1, "2": 1, "5": 1}


# ------------------------------------------------------- S5 doubles must be filled


def test_S5_1_next_three_placements_go_on_the_new_double() -> None:
    state = fives_just_placed("3-5 1-7")
    assert ends(state) == {"2": 1, "5": 3}
    # Seat 1 holds 2-4, which fits the 2 end, but must draw; the drawn 3-5 must go on 5.
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert state.legal_moves() == [pl("3-5", "5", "3")]
    state.apply(pl("3-5", "5", "3"))
    assert state.unfilled[0].arms_left == 2


def test_S5_1_S_S_arms_take_the_next_three_placements() -> None:
    state = play(fives_just_placed(), DRAW, PASS, pl("S-S", "5", "S"))
    play(state, DRAW, pl("0-5", "5", "0"), DRAW, pl("5-6", "5", "6"))
    assert [u.tile for u in state.unfilled] == [parse("S-S")]
    assert ends(state) == {"0": 1, "2": 1, "6": 1, "S": 3}
    # Seat 2 holds 6-7 7-7 6-6 1-6 2-6: every placement goes on an S arm, none on 2 or 6.
    legal = set(state.legal_moves())
    assert legal == {
        pl("6-7", "S", "6"),
        pl("6-7", "S", "7"),
        pl("7-7", "S", "7"),
        pl("6-6", "S", "6"),
        pl("1-6", "S", "1"),
        pl("1-6", "S", "6"),
        pl("2-6", "S", "2"),
        pl("2-6", "S", "6"),
    }


def test_S5_2_oldest_unfilled_double_first() -> None:
    state = play(fives_just_placed(), DRAW, PASS, pl("S-S", "5", "S"))
    play(state, DRAW, pl("0-5", "5", "0"), DRAW, pl("5-6", "5", "6"))
    play(state, pl("6-6", "S", "6"))
    assert [(str(u.tile), u.arms_left) for u in state.unfilled] == [("S-S", 2), ("6-6", 3)]
    # Seat 0 (0-1 0-2 1-2 0-3 1-3) plays on S-S's arms, not on the free 0 end.
    assert all(m.end == 10 for m in state.legal_moves())
    play(state, pl("0-1", "S", "1"))
    # Seat 1 holds 0-6, which fits 6-6's arms, but S-S is older and still has an arm.
    assert pl("0-6", "6", "0") not in state.legal_moves()
    assert all(m.end == 10 for m in state.legal_moves())
    play(state, pl("4-4", "S", "4"))
    assert [(str(u.tile), u.arms_left) for u in state.unfilled] == [("6-6", 3), ("4-4", 3)]
    # Now 6-6 is the oldest: seat 2 may play only on 6 arms, not on 4-4's.
    assert set(state.legal_moves()) == {
        pl("6-7", "6", "7"),
        pl("1-6", "6", "1"),
        pl("2-6", "6", "2"),
    }


def test_S5_3_a_double_on_an_arm_counts_for_that_arm() -> None:
    hands = [
        "9-9 0-1 0-2 1-2 0-3 1-3 2-3",
        "S-S 0-4 1-4 2-4 3-4 4-4 6-6",
        "3-9 0-5 1-5 2-5 3-5 4-5 5-5",
    ]
    state = play(deal(hands), pl("S-S", "9", "S"))
    # S-S counted as the 2nd placement on the set: one 9 arm left, and it comes first.
    assert [(str(u.tile), u.arms_left) for u in state.unfilled] == [("9-9", 1), ("S-S", 3)]
    assert state.legal_moves() == [pl("3-9", "9", "3")]
    state.apply(pl("3-9", "9", "3"))
    assert [(str(u.tile), u.arms_left) for u in state.unfilled] == [("S-S", 3)]
    assert ends(state) == {"3": 1, "S": 3}


def test_S5_4_a_filled_double_no_longer_constrains() -> None:
    state = play(two_free_fives(), pl("5-5", "5", "5"))
    play(state, pl("0-5", "5", "0"), pl("1-5", "5", "1"), pl("2-5", "5", "2"))
    # Seat 2 (3-5 1-4 2-4 3-4 4-4): the free 5, 1 and 2 ends are all open to it now.
    assert set(state.legal_moves()) == {
        pl("3-5", "5", "3"),
        pl("1-4", "1", "4"),
        pl("2-4", "2", "4"),
    }


# ----------------------------------------------------------------- S6 a turn


def test_S6_1_must_place_when_a_placement_is_legal() -> None:
    state = deal(ARMS)
    assert DRAW not in state.legal_moves()
    assert PASS not in state.legal_moves()
    assert_rejected(state, DRAW)
    assert_rejected(state, PASS)


def test_S6_2_drawn_tile_that_fits_must_be_placed_in_the_same_turn() -> None:
    state = play(deal(ARMS, "9-S"), pl("3-9", "9", "3"))
    state.apply(DRAW)
    assert state.current == 2
    assert hand(state, 2).count("9-S") == 1
    assert_rejected(state, PASS)
    assert_rejected(state, DRAW)
    state.apply(pl("9-S", "9", "S"))
    assert state.current == 0


def test_S6_2_drawn_tile_that_does_not_fit_then_pass() -> None:
    state = play(deal(ARMS, "0-8 9-S"), pl("3-9", "9", "3"))
    state.apply(DRAW)
    assert state.legal_moves() == [PASS]
    assert_rejected(state, DRAW)
    state.apply(PASS)
    assert state.current == 0
    assert "0-8" in hand(state, 2)
    assert [str(t) for t in state.boneyard[:1]] == ["9-S"]


def test_S6_2_variant_draw_until_playable() -> None:
    rules = SpinnerRules(num_players=3, draw_until_playable=True)
    state = play(deal(ARMS, "0-8 1-8 6-6 9-S", rules), pl("3-9", "9", "3"))
    for _ in range(3):
        assert state.legal_moves() == [DRAW]
        state.apply(DRAW)
        assert state.current == 2
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert set(state.legal_moves()) == {pl("9-S", "9", "S"), pl("9-S", "9", "9")}
    assert len(state.hands[2]) == 11


def test_S6_2_variant_draw_until_playable_stops_at_an_empty_boneyard() -> None:
    rules = SpinnerRules(num_players=8, draw_until_playable=True)
    state = SpinnerState.from_position(EIGHT, EIGHT_BONEYARD, rules)
    for _ in range(10):
        assert state.legal_moves() == [DRAW]
        state.apply(DRAW)
    assert state.boneyard == []
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert len(state.hands[1]) == 17
    assert state.current == 2


def test_S6_3_empty_boneyard_and_nothing_to_place_means_pass() -> None:
    rules = SpinnerRules(num_players=8, draw_until_playable=True)
    state = SpinnerState.from_position(EIGHT, EIGHT_BONEYARD, rules)
    play(state, *[DRAW] * 10, PASS)
    # Seat 2 starts its turn with no 9, no spinner and an empty boneyard.
    assert state.current == 2
    assert state.legal_moves() == [PASS]
    assert_rejected(state, DRAW)
    state.apply(PASS)
    assert state.current == 3
    assert not state.hand_over


def test_S6_4_last_tile_placed_wins_the_hand() -> None:
    state = late(["1-2 0-3", "3-4", "4-5 5-5"], "6-6", {"3": 1}, current=1)
    state.apply(pl("3-4", "3", "4"))
    assert state.hand_over
    result = state.results[-1]
    assert (result.winner, result.blocked) == (1, False)
    assert state.legal_moves() == []
    assert_rejected(state, pl("4-5", "4", "5"))


def test_S6_4_blocked_hand_fewest_points_wins() -> None:
    state = late(["1-2 0-3", "0-7", "4-5"], "", {"8": 2}, current=0)
    play(state, PASS, PASS)
    assert not state.hand_over
    state.apply(PASS)
    result = state.results[-1]
    assert result.blocked
    assert result.points == (6, 7, 9)
    assert result.winner == 0


def test_S6_4_blocked_hand_tie_goes_to_the_lowest_seat() -> None:
    state = late(["4-5", "0-7 1-1", "1-8"], "", {"6": 1}, current=2)
    play(state, PASS, PASS, PASS)
    result = state.results[-1]
    assert result.points == (9, 9, 9)
    assert result.winner == 0


def test_S6_4_a_placement_restarts_the_count_of_passes() -> None:
    # Seat 0 passes, seat 1 places 8-6, then seats 2 and 0 pass: not yet every player.
    state = late(["1-2", "6-8 0-0", "4-5"], "", {"8": 1}, current=0)
    play(state, PASS, pl("6-8", "8", "6"), PASS, PASS)
    assert not state.hand_over
    state.apply(PASS)
    assert state.results[-1].blocked
    assert state.results[-1].winner == 1


def test_S6_4_blocked_once_the_last_tile_drawn_cannot_be_placed() -> None:
    # Seat 0 draws the last tile, 1-1, passes; seat 1 passes: both passed since the
    # last placement and the boneyard is empty.
    state = late(["2-3", "0-4"], "1-1", {"8": 1}, current=0)
    play(state, DRAW, PASS)
    assert not state.hand_over
    state.apply(PASS)
    assert state.results[-1].blocked
    assert state.results[-1].points == (7, 4)
    assert state.results[-1].winner == 1


# ------------------------------------------------------ S7 scoring and the match


def test_S7_1_tiles_left_in_hand_add_to_the_total_and_going_out_adds_zero() -> None:
    state = late(["9-S 0-0", "3-4", "4-5 S-S"], "", {"3": 1}, current=1, totals=[10, 20, 30])
    state.apply(pl("3-4", "3", "4"))
    assert state.results[-1].points == (19, 0, 29)
    assert state.totals == [29, 20, 59]


def test_S7_2_lowest_total_wins_the_match() -> None:
    rules = SpinnerRules(num_players=3, num_hands=1)
    state = late(["1-2", "3-4", "0-5"], "", {"4": 1}, current=1, rules=rules, totals=[40, 50, 10])
    state.apply(pl("3-4", "4", "3"))
    assert state.match_over
    assert state.totals == [43, 50, 15]
    assert state.match_winners() == [2]


def test_S7_2_equal_lowest_totals_share_the_match() -> None:
    rules = SpinnerRules(num_players=3, num_hands=1)
    state = late(["1-2", "3-4", "0-5"], "", {"4": 1}, current=1, rules=rules, totals=[12, 50, 10])
    state.apply(pl("3-4", "4", "3"))
    assert state.totals == [15, 50, 15]
    assert state.match_winners() == [0, 2]


NO_SET_TILE = [
    "0-1 0-2 1-2 0-3 1-3 2-3 4-4",
    "0-4 1-4 2-4 3-4 7-7 0-5 1-5",
    "2-5 3-5 4-5 5-5 0-6 1-6 2-6",
]


def test_S7_3_variant_shortened_highest_lower_double_sets() -> None:
    rules = SpinnerRules(num_players=3, shortened=True)
    state = deal(NO_SET_TILE, "8-8 9-9", rules)
    # Nobody holds 9-9 or S-S: seat 1's 7-7 beats 5-5 and 4-4; nobody draws.
    assert state.layout[0].tile == parse("7-7")
    assert state.layout[0].seat == 1
    assert ends(state) == {"7": 2}
    assert len(state.boneyard) == 66 - 21
    assert state.current == 2
    # The default rules draw for the set instead (S3.2).
    drawn = deal(NO_SET_TILE, "8-8 9-9")
    assert drawn.layout[0].tile == parse("9-9")
    assert len(drawn.boneyard) == 66 - 23


def test_S7_3_variant_shortened_keeps_S3_1_and_ignores_higher_doubles() -> None:
    rules = SpinnerRules(num_players=3, shortened=True)
    hands = [
        "9-9 0-2 1-2 0-3 1-3 2-3 4-4",
        "0-4 1-4 2-4 3-4 6-6 0-5 1-5",
        "2-5 3-5 4-5 5-5 0-6 1-6 2-6",
    ]
    # Hand 2 starts with 7-7 (in the boneyard): 9-9 is not lower, 6-6 is the highest lower.
    state = deal(hands, "", rules, hand_number=2)
    assert state.layout[0].tile == parse("6-6")
    assert ends(state) == {"6": 2}
    with_spinner = [hands[0], hands[1].replace("3-4", "S-S"), hands[2]]
    state = deal(with_spinner, "", rules, hand_number=2)
    assert state.layout[0].tile == parse("S-S")
    assert ends(state) == {"7": 2}


# ------------------------------------------------------------ S8 public information


def test_S8_a_draw_shows_the_values_a_player_lacks() -> None:
    state = play(deal(ARMS, "0-8 9-S"), pl("3-9", "9", "3"), DRAW)
    assert state.voids[2] == {9, 10}
    assert state.voids[0] == set()


# ------------------------------------------------------------------ worked checks


def test_worked_check_deal_sizes_two_and_eight_players() -> None:
    for players, dealt, left in ((2, 28, 38), (8, 56, 10)):
        rules = SpinnerRules(num_players=players)
        state = next(
            s
            for s in (SpinnerState.new(rules, seed=seed) for seed in range(50))
            if len(s.boneyard) == left  # nobody had to draw for the set
        )
        assert sum(map(len, state.hands)) + 1 == dealt
    eight = SpinnerState.from_position(EIGHT, EIGHT_BONEYARD)
    assert sum(map(len, eight.hands)) + 1 == 56
    assert len(eight.boneyard) == 10


def test_worked_check_7_S_S_S_0_3_scores_40() -> None:
    state = late(["7-S S-S 0-3", "3-4"], "", {"4": 1}, current=1)
    state.apply(pl("3-4", "4", "3"))
    assert state.results[-1].points == (40, 0)
    assert state.totals == [40, 0]


def test_worked_check_2_4_cannot_go_on_2_while_5_5_is_unfilled() -> None:
    state = fives_just_placed("1-7")
    assert ends(state) == {"2": 1, "5": 3}
    assert "2-4" in hand(state, 1)
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)  # 1-7: no 5 and no S
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.current == 2
    drew_a_five = fives_just_placed("3-5")
    drew_a_five.apply(DRAW)
    assert drew_a_five.legal_moves() == [pl("3-5", "5", "3")]
    drew_a_spinner = fives_just_placed("3-S")
    drew_a_spinner.apply(DRAW)
    assert drew_a_spinner.legal_moves() == [pl("3-S", "5", "3")]


def test_worked_check_S_S_on_a_5_5_arm_waits_for_two_more_fives() -> None:
    state = play(fives_just_placed(), DRAW, PASS, pl("S-S", "5", "S"))
    # Seat 0 holds no 5: the S arms do not count yet, so it draws; 0-5 goes on a 5 arm.
    assert state.legal_moves() == [DRAW]
    state.apply(DRAW)
    assert state.legal_moves() == [pl("0-5", "5", "0")]
    state.apply(pl("0-5", "5", "0"))
    assert state.legal_moves() == [DRAW]  # seat 1: still a 5 arm left
    state.apply(DRAW)
    state.apply(pl("5-6", "5", "6"))
    assert all(m.end == 10 for m in state.legal_moves())


# ------------------------------------------------------------------------ errors


def test_rules_reject_bad_arguments() -> None:
    for players in (1, 9, 2.0, "3", None):
        with pytest.raises(ValueError):
            SpinnerRules(num_players=players)  # type: ignore[arg-type]
    for hands in (0, 11, -1, 2.5, "10"):
        with pytest.raises(ValueError):
            SpinnerRules(num_hands=hands)  # type: ignore[arg-type]
    for flag in ("draw_until_playable", "shortened", "seeded_first_dealer"):
        with pytest.raises(ValueError):
            SpinnerRules(**{flag: 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SpinnerRules(draw_until_empty=True)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        SpinnerState.new(seed=-1)
    with pytest.raises(ValueError):
        SpinnerState.new(SpinnerRules(num_hands=3), hand_number=3)


def test_from_dict_rejects_unknown_flags() -> None:
    data = SpinnerState.new().to_dict()
    data["rules"]["draw_until_empty"] = True
    with pytest.raises(ValueError):
        SpinnerState.from_dict(data)


def test_position_rejects_malformed_deals() -> None:
    good = list(ARMS)
    rest = [str(t) for t in ALL_TILES if str(t) not in " ".join(good).split()]
    SpinnerState.from_position(good, rest)
    bad_hands = [
        [good[0], good[1], good[2].replace("7-7", "3-9")],  # duplicate tile
        [good[0], good[1], good[2].replace("7-7", "7-T")],  # unknown tile
        [good[0], good[1], good[2].replace("7-7", "7")],  # not a tile
        [good[0], good[1], good[2].replace("7-7", "7-7-7")],  # not a tile
        [good[0], good[1], good[2].replace(" 7-7", "")],  # 6 tiles
        [good[0], good[1], good[2] + " 8-8"],  # 8 tiles
    ]
    for hands in bad_hands:
        with pytest.raises(ValueError):
            SpinnerState.from_position(hands, rest)
    with pytest.raises(ValueError):  # a tile missing from the boneyard
        SpinnerState.from_position(good, rest[1:])
    with pytest.raises(ValueError):  # a tile twice in the boneyard
        SpinnerState.from_position(good, [*rest, rest[0]])
    with pytest.raises(ValueError):  # two hands for three players
        SpinnerState.from_position(good[:2], rest, SpinnerRules(num_players=3))
    with pytest.raises(ValueError):  # one player
        SpinnerState.from_position([" ".join(good)], rest)
    with pytest.raises(ValueError):
        SpinnerState.from_position(good, rest, dealer=3)
    with pytest.raises(ValueError):
        SpinnerState.from_position(good, rest, totals=[0, 0])


def test_illegal_moves_raise_and_leave_the_state_unchanged() -> None:
    state = deal(ARMS)
    for move in (
        pl("3-9", "9", "9"),  # the wrong half left open
        pl("3-9", "3", "9"),  # no 3 end
        pl("9-S", "9", "S"),  # a boneyard tile
        pl("4-4", "9", "4"),  # 4 does not fit 9
        DRAW,
        PASS,
        None,
        "draw",
    ):
        assert_rejected(state, move)
