"""Property tests of Mexican Train over random games: tiles are conserved, the action mask
is exactly a legal set worked out here from the rules page alone, every game ends, and
states survive a JSON round trip."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spinner_env import mexican_train_v0
from spinner_env.core.match import DRAW, PASS, Draw, Pass
from spinner_env.games.mexican_train.encoding import move_to_action
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    MEXICAN,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
)

seeds = st.integers(0, 2**32 - 1)
player_counts = st.integers(2, 8)


class Shadow:
    """What the rules page says a game must remember, kept apart from the engine by
    watching the moves: the markers (M3.4, M4.3), the unsatisfied doubles in the order
    they were placed (M5.3, M5.4), and where the current turn stands (M4.2, M5.2)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.markers = [False] * n
        self.waiting: list[int] = []  # absolute train ids, oldest first
        self.extra = False
        self.drew = False

    def seen(self, seat: int, move, train: int | None) -> None:
        if isinstance(move, Draw):
            self.drew = True
        elif isinstance(move, Pass):
            self.markers[seat] = True
            self.extra = self.drew = False
        else:
            if train in self.waiting:
                self.waiting.remove(train)
            if train == seat:
                self.markers[seat] = False
            if move.tile.is_double:
                self.waiting.append(train)
            self.extra = move.tile.is_double
            self.drew = False

    def legal(self, state: MexicanTrainState) -> set:
        """Every tile of the seat to act against every train, kept if the page allows it."""
        seat, n = state.current, self.n
        trains = [*range(n), MEXICAN]
        if self.waiting and not self.extra:
            usable = {self.waiting[0]}  # M5.3, M5.4
        else:
            usable = {t for t in trains if t in (seat, MEXICAN) or self.markers[t]}  # M3.3
            usable -= set(self.waiting[1:])  # M5.4
        moves = set()
        for tile in ALL_TILES:
            if tile not in state.hands[seat]:
                continue
            for train in usable:
                end = _open_end(state, train)
                if end in (tile.low, tile.high):  # M3.2, M5.1
                    moves.add(Place(tile, MEXICAN if train == MEXICAN else (train - seat) % n))
        if moves:
            return moves  # M4.1
        if state.boneyard and not self.drew:
            return {DRAW}  # M4.2
        return {PASS}  # M4.2, M4.3


def _open_end(state: MexicanTrainState, train: int) -> int:
    """The open end of a train, walked from the hub tile by tile (M3.1, M3.2)."""
    end = state.engine_value
    for tile in state.trains[train].tiles:
        end = tile.high if tile.low == end else tile.low
    return end


def could_place_with_every_train_marked(state: MexicanTrainState, shadow: Shadow) -> bool:
    """M6.1's test, from the page and the shadow's record: would any seat have a
    placement if every train carried a marker? The oldest unsatisfied double still binds."""
    trains = shadow.waiting[:1] or [*range(shadow.n), MEXICAN]  # M5.3, M5.4
    ends = {_open_end(state, train) for train in trains}
    return any(end in (t.low, t.high) for hand in state.hands for t in hand for end in ends)


def assert_tiles_conserved(state: MexicanTrainState) -> None:
    """Every tile of the 91 in exactly one place, the engine at the hub (M1.1, M2.3)."""
    places = Counter(t for hand in state.hands for t in hand)
    places.update(state.boneyard)
    places.update(t for train in state.trains for t in train.tiles)
    places[state.engine] += 1
    assert places == Counter(ALL_TILES)


def assert_voids_true(state: MexicanTrainState) -> None:
    """M7: no seat holds a tile of a value it is shown void in, except the tile a seat
    has just drawn and not yet placed or kept (the voids describe the hand before it)."""
    for seat, hand in enumerate(state.hands):
        held = hand[:-1] if seat == state.current and state.drew_this_turn else hand
        assert not {v for t in held for v in (t.low, t.high)} & state.voids[seat]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=player_counts)
def test_mask_is_the_legal_set_of_the_rules_page_and_tiles_are_conserved(seed, n):
    env = mexican_train_v0.raw_env(num_players=n, episode="hand")
    env.reset(seed=seed)
    rng = random.Random(seed)
    shadow = Shadow(n)
    while not all(env.terminations.values()):
        state = env.game
        assert_tiles_conserved(state)
        assert shadow.markers == [state.trains[s].marker for s in range(n)]
        assert shadow.waiting == state.unsatisfied
        assert_voids_true(state)
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = shadow.legal(state)
        assert set(np.flatnonzero(mask).tolist()) == {move_to_action(m) for m in legal}
        move = rng.choice(sorted(legal, key=move_to_action))
        seat = state.current
        train = state.absolute_train(move.train) if isinstance(move, Place) else None
        env.step(move_to_action(move))
        shadow.seen(seat, move, train)
        if state.hand_over and state.results[-1].blocked:
            assert not could_place_with_every_train_marked(state, shadow)  # M6.1
        elif isinstance(move, Pass) and not state.boneyard:
            assert could_place_with_every_train_marked(state, shadow)  # M6.1: goes on
    assert_tiles_conserved(env.game)
    result = env.game.results[-1]
    if result.blocked:
        assert not env.game.boneyard
    else:
        assert not env.game.hands[result.winner]  # M6.1: went out


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=player_counts, num_rounds=st.integers(1, 3))
def test_every_match_ends_and_totals_are_the_sum_of_the_rounds(seed, n, num_rounds):
    rules = MexicanTrainRules(num_players=n, num_rounds=num_rounds)
    state = MexicanTrainState.new(rules, seed=seed)
    rng = random.Random(seed)
    # A round has at most 90 placements and as many draws as the boneyard holds; a pass
    # follows a draw or, with the boneyard empty, one of fewer than 2n passes in a row
    # (after n passes every train is marked, and a seat that can place does, M6.1).
    bound = 90 + 2 * 90 + 91 * 2 * n
    for _ in range(num_rounds):
        for _ in range(bound):
            if state.hand_over:
                break
            state.apply(rng.choice(state.legal_moves()))
        assert state.hand_over
        if not state.match_over:
            state.start_next_hand()
    assert state.match_over
    assert state.totals == [sum(r.points[s] for r in state.results) for s in range(n)]


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=player_counts, stop=st.integers(0, 250), double_blank_50=st.booleans())
def test_json_round_trip_keeps_the_state_and_its_future(seed, n, stop, double_blank_50):
    rules = MexicanTrainRules(num_players=n, num_rounds=2, double_blank_50=double_blank_50)
    state = MexicanTrainState.new(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if state.match_over:
            break
        if state.hand_over:
            state.start_next_hand()
        state.apply(rng.choice(state.legal_moves()))
    data = state.to_dict()
    copy = MexicanTrainState.from_dict(json.loads(json.dumps(data)))
    assert copy.to_dict() == data
    for _ in range(60):
        if state.hand_over:
            break
        moves = state.legal_moves()
        assert copy.legal_moves() == moves
        move = rng.choice(moves)
        state.apply(move)
        copy.apply(move)
    assert copy.to_dict() == state.to_dict()
