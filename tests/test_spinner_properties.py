"""Property tests of the Spinner engine over random games (``shared/rules/spinner.md``).

Games are dealt from random seeds with random player counts and variant flags, and
played with random legal moves (a seeded ``random.Random``). The legal moves are checked
against :func:`rules_reading`, an independent brute-force reading of S4-S6 written here
from the rules page; it does not use the engine's placement helpers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spinner_env import spinner_v0
from spinner_env.core.match import DRAW, PASS
from spinner_env.games.spinner.rules import Place, SpinnerRules, SpinnerState

S = 10  # S1.3: the engine writes the spinner symbol as the value 10
NUMBERS = range(10)
MOVES_PER_HAND = 66 + 66 + 67 * 8
"""A bound on a hand's moves: at most 66 placements, 66 draws, and one pass per player
between two placements (S6.4 ends the hand on the round of passes after the last)."""

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Game:
    """A random match: its rules, seed and first hand, and the seed of its move choices."""

    rules: SpinnerRules
    seed: int
    first_hand: int
    move_seed: int

    def start(self) -> tuple[SpinnerState, random.Random]:
        state = SpinnerState.new(self.rules, seed=self.seed, hand_number=self.first_hand)
        return state, random.Random(self.move_seed)


@st.composite
def games(draw: st.DrawFn) -> Game:
    num_hands = draw(st.integers(1, 10))
    rules = SpinnerRules(
        num_players=draw(st.integers(2, 8)),
        num_hands=num_hands,
        draw_until_playable=draw(st.booleans()),
        shortened=draw(st.booleans()),
        seeded_first_dealer=draw(st.booleans()),
    )
    # Some matches start late, so every start double is played without long games.
    first_hand = draw(st.integers(0, num_hands - 1))
    return Game(rules, draw(st.integers(0, 2**63)), first_hand, draw(st.integers(0, 2**32)))


def every_tile_name() -> list[str]:
    """S1.1: 0-0 ... 9-9, 0-S ... 9-S, S-S."""
    numbered = [f"{a}-{b}" for b in NUMBERS for a in range(b + 1)]
    return sorted([*numbered, *(f"{a}-S" for a in NUMBERS), "S-S"])


def points(tile_name: str) -> int:
    """S1.4, read off the notation: pips, each S counting 10."""
    return sum(10 if half == "S" else int(half) for half in tile_name.split("-"))


def open_ends(state: SpinnerState) -> set[int]:
    """S5.1, S5.2: the oldest unfilled double's arms if any, else every free end."""
    if state.unfilled:
        return {state.unfilled[0].value}
    return {value for value, count in enumerate(state.free_ends) if count > 0}


def rules_reading(state: SpinnerState, drew_this_turn: bool) -> set[object]:
    """The legal moves by the rules page: every tile in hand x playable end x choice."""
    if state.hand_over:
        return set()
    placements: set[object] = set()
    for tile in state.hands[state.current]:
        halves = (tile.low, tile.high)
        for end in open_ends(state):
            for attached, other in (halves, halves[::-1]):
                if attached in (end, S) or end == S:  # S1.2, S4.2
                    # S4.4: a double opens arms of its own value; S4.3: else the other half.
                    opens = attached if tile.low == tile.high else other
                    placements.add(Place(tile, end, opens))
    if placements:
        return placements  # S6.1
    if state.boneyard and (not drew_this_turn or state.rules.draw_until_playable):
        return {DRAW}  # S6.2
    return {PASS}  # S6.2, S6.3


def replayed_ends(state: SpinnerState) -> tuple[list[int], list[tuple[int, int]]]:
    """The free ends and unfilled doubles (value, arms left) rebuilt from the layout.

    Also checks each placement record against S4.2 and S5.
    """
    first = state.layout[0]
    assert first.end is None and first.tile.low == first.tile.high  # S3.1, S7.3
    start = 9 - state.hand_number
    set_value = start if first.tile.low == S else first.tile.low  # S3.4
    assert first.opens == set_value
    free = [0] * 11
    waiting = [[set_value, 2]]
    for placed in state.layout[1:]:
        tile, end = placed.tile, placed.end
        assert end is not None
        if waiting:
            assert end == waiting[0][0]  # S5.2: the oldest double's arm
            waiting[0][1] -= 1
            if waiting[0][1] == 0:
                waiting.pop(0)  # S5.4
        else:
            assert free[end] > 0
            free[end] -= 1
        fits = [
            other
            for attached, other in ((tile.low, tile.high), (tile.high, tile.low))
            if attached == end or S in (attached, end)
        ]
        if tile.low == tile.high:
            assert fits and placed.opens == tile.low
            waiting.append([tile.low, 3])  # S4.4
        else:
            assert placed.opens in fits
            free[placed.opens] += 1
    return free, [(value, arms) for value, arms in waiting]


def tile_names(state: SpinnerState) -> list[str]:
    data = state.to_dict()
    in_hands = [t for hand in data["hands"] for t in hand]
    return sorted(in_hands + data["boneyard"] + [p["tile"] for p in data["layout"]])


Check = Callable[[SpinnerState, bool], None]


def play_match(
    state: SpinnerState,
    rng: random.Random,
    check: Check | None = None,
    hand_end: Callable[[SpinnerState], None] | None = None,
) -> int:
    """Play random legal moves to the end of the match; return the number of moves.

    ``check(state, drew_this_turn)`` runs before every move, with the test's own record
    of whether the player to act has drawn this turn; ``hand_end(state)`` runs when a
    hand is over, before the next is dealt.
    """
    moves = 0
    drew = False
    while True:
        if state.hand_over:
            if hand_end is not None:
                hand_end(state)
            if state.match_over:
                return moves
            state.start_next_hand()
            drew = False
        if check is not None:
            check(state, drew)
        move = rng.choice(state.legal_moves())
        seat = state.current
        state.apply(move)
        drew = move == DRAW and state.current == seat and not state.hand_over
        moves += 1
        assert moves <= MOVES_PER_HAND * state.rules.num_hands, "the match does not end"


def advance(state: SpinnerState, rng: random.Random, moves: int) -> None:
    """Play up to ``moves`` random legal moves, dealing new hands, until the match ends."""
    for _ in range(moves):
        if state.match_over:
            return
        if state.hand_over:
            state.start_next_hand()
        state.apply(rng.choice(state.legal_moves()))


@FAST
@given(games())
def test_every_tile_is_in_exactly_one_place(game: Game) -> None:
    """S1.1, S2.4: hands + boneyard + layout always hold the 66 tiles once each."""
    state, rng = game.start()
    expected = every_tile_name()

    def check(state: SpinnerState, drew: bool) -> None:
        assert tile_names(state) == expected

    play_match(state, rng, check)
    assert tile_names(state) == expected


@FAST
@given(games())
def test_legal_moves_are_the_rules_reading(game: Game) -> None:
    """S4-S6: the engine's legal moves equal the brute-force reading, without repeats."""
    state, rng = game.start()

    def check(state: SpinnerState, drew: bool) -> None:
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == rules_reading(state, drew)
        free, waiting = replayed_ends(state)
        assert state.free_ends == free
        assert [(u.value, u.arms_left) for u in state.unfilled] == waiting
        # S4.1: the set opens two ends, a plain tile nets zero, a later double nets two.
        doubles = sum(1 for p in state.layout[1:] if p.tile.low == p.tile.high)
        assert sum(state.open_end_counts()) == 2 + 2 * doubles

    play_match(state, rng, check)
    assert state.legal_moves() == []


@FAST
@given(games())
def test_shown_voids_are_true(game: Game) -> None:
    """S8: a value a seat was shown not to hold is really absent from its hand.

    A seat that has just drawn is judged on its hand before that draw (the drawn tile is
    still unseen). Also checks that voids are kept: every seat that passed with a value
    open to it and has drawn nothing since holds that value in its voids.
    """
    state, rng = game.start()
    passed_on: dict[int, set[int]] = {}

    def check(state: SpinnerState, drew: bool) -> None:
        for seat, void in enumerate(state.voids):
            if drew and seat == state.current:
                continue
            halves = {h for tile in state.hands[seat] for h in (tile.low, tile.high)}
            assert not void & halves, f"seat {seat} shown void in {void} holds {halves}"
            assert passed_on.get(seat, set()) <= void

    def play(state: SpinnerState, drew: bool) -> None:
        check(state, drew)
        if state.legal_moves() == [PASS] and not drew:
            passed_on[state.current] = passed_on.get(state.current, set()) | open_ends(state) | {S}
        elif state.legal_moves() == [DRAW] or drew:
            passed_on.pop(state.current, None)

    play_match(state, rng, play, hand_end=lambda _: passed_on.clear())


@FAST
@given(games(), st.sampled_from(["match", "hand"]))
def test_env_mask_is_the_rules_reading(game: Game, episode: str) -> None:
    """S4-S6 through spinner_v0: the acting agent's mask is exactly the legal set."""
    rules = game.rules
    env = spinner_v0.raw_env(
        num_players=rules.num_players,
        num_hands=rules.num_hands,
        draw_until_playable=rules.draw_until_playable,
        shortened=rules.shortened,
        seeded_first_dealer=rules.seeded_first_dealer,
        episode=episode,
    )
    env.reset(seed=game.seed % 2**32)
    rng = random.Random(game.move_seed)
    drew, hand = False, env.game.hand_number
    while not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        expected = {spinner_v0.move_to_action(m) for m in rules_reading(env.game, drew)}
        assert set(np.flatnonzero(mask).tolist()) == expected
        action = rng.choice(sorted(expected))
        seat = env.game.current
        env.step(action)
        same_turn = env.game.current == seat and env.game.hand_number == hand
        drew = action == spinner_v0.DRAW_ACTION and same_turn
        hand = env.game.hand_number


@FAST
@given(games())
def test_every_game_ends(game: Game) -> None:
    """S6.4, S2.2: every hand ends, and the match ends after its last hand."""
    state, rng = game.start()
    first_hand = state.hand_number
    play_match(state, rng)
    assert state.match_over
    assert [r.hand_number for r in state.results] == list(range(first_hand, state.rules.num_hands))


@FAST
@given(games())
def test_hands_score_the_points_left_in_hand(game: Game) -> None:
    """S1.4, S6.4, S7.1: each hand adds the points left in each hand to the totals."""
    state, rng = game.start()
    before = list(state.totals)

    def check_hand(state: SpinnerState) -> None:
        nonlocal before
        result = state.results[-1]
        left = [sum(points(str(t)) for t in hand) for hand in state.hands]
        assert list(result.points) == left
        assert state.totals == [b + p for b, p in zip(before, left, strict=True)]
        if result.blocked:
            assert state.boneyard == []
            for seat in range(state.num_players):
                assert rules_reading(_acting(state, seat), False) == {PASS}
            assert result.winner == min(range(state.num_players), key=lambda s: (left[s], s))
        else:
            assert left[result.winner] == 0
        before = list(state.totals)

    play_match(state, rng, hand_end=check_hand)
    assert len(state.results) == state.rules.num_hands - game.first_hand


def _acting(state: SpinnerState, seat: int) -> SpinnerState:
    """A copy of a finished hand with ``seat`` to act, to ask what it could place."""
    other = state.copy()
    other.results = []
    other.current = seat
    return other


@FAST
@given(games(), st.integers(0, 400))
def test_json_round_trip_preserves_play(game: Game, stop: int) -> None:
    """to_dict -> JSON -> from_dict gives a state that plays on exactly as the original."""
    state, rng = game.start()
    advance(state, rng, stop)
    restored = SpinnerState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored.to_dict() == state.to_dict()
    while True:
        assert restored.legal_moves() == state.legal_moves()
        assert restored.hand_over == state.hand_over
        if state.match_over:
            break
        if state.hand_over:
            state.start_next_hand()
            restored.start_next_hand()
            continue
        move = rng.choice(state.legal_moves())
        state.apply(move)
        restored.apply(move)
    assert restored.to_dict() == state.to_dict()
    assert restored.match_winners() == state.match_winners()


@FAST
@given(games(), st.integers(0, 200))
def test_copy_is_independent(game: Game, stop: int) -> None:
    """Playing on a copy() leaves the original as it was, and the other way round."""
    state, rng = game.start()
    advance(state, rng, stop)
    original = state.to_dict()
    duplicate = state.copy()
    assert duplicate.to_dict() == original
    play_match(duplicate, random.Random(rng.random()))
    assert state.to_dict() == original
    finished = duplicate.to_dict()
    play_match(state, rng)
    assert duplicate.to_dict() == finished


@FAST
@given(games())
def test_same_seed_same_game(game: Game) -> None:
    """S2.4: a seed fixes every deal; the same seed and moves replay the same match."""
    state, rng = game.start()
    twin = SpinnerState.new(state.rules, seed=state.seed, hand_number=state.hand_number)
    assert twin.to_dict() == state.to_dict()
    choices = rng.getstate()
    history: list[dict[str, object]] = []
    play_match(state, rng, lambda s, drew: history.append(s.to_dict()))
    rng.setstate(choices)
    replay: list[dict[str, object]] = []
    play_match(twin, rng, lambda s, drew: replay.append(s.to_dict()))
    assert replay == history
    assert twin.to_dict() == state.to_dict()


def test_deals_differ_between_seeds() -> None:
    """S2.4: the seed drives the shuffle (distinct seeds give distinct deals)."""
    rules = SpinnerRules(num_players=4)
    deals = {
        json.dumps(SpinnerState.new(rules, seed=seed).to_dict()["hands"]) for seed in range(20)
    }
    assert len(deals) == 20
