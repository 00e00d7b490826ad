"""The engines deal a hand in an explicit order as well as from the seed (S2.4, M2.4):
``new(order=...)`` and ``start_next_hand(order=...)``, which OpenSpiel's chance nodes use."""

from __future__ import annotations

import random

import pytest

from spinner_env.core.match import shuffled
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState

GAMES = [(SpinnerState, SpinnerRules), (MexicanTrainState, MexicanTrainRules)]


def finish_hand(state, seed: int) -> None:
    rng = random.Random(seed)
    while not state.hand_over:
        state.play_legal(rng.choice(state.legal_moves()))


@pytest.mark.parametrize(("state_class", "rules_class"), GAMES)
def test_an_explicit_order_deals_as_the_seeds_shuffle_does(state_class, rules_class) -> None:
    rules = rules_class(num_players=3)
    seeded = state_class.new(rules, seed=7)
    order = shuffled(seeded.hand_tiles(), 7, 0)
    explicit = state_class.new(rules, seed=123, order=order)
    assert explicit.hands == seeded.hands and explicit.boneyard == seeded.boneyard
    finish_hand(seeded, 1)
    finish_hand(explicit, 1)
    probe = explicit.copy()
    probe.start_next_hand()
    order = list(reversed(probe.hand_tiles()))
    explicit.start_next_hand(order)
    n, k = rules.num_players, rules.hand_size
    assert explicit.hand_number == 1
    # Each seat holds what it was dealt, less the set (S3) and plus what it drew for it.
    assert explicit.boneyard == order[len(order) - len(explicit.boneyard) :]
    for seat, hand in enumerate(explicit.hands):
        assert set(hand) - set(order[n * k :]) <= set(order[seat * k : (seat + 1) * k])


@pytest.mark.parametrize(("state_class", "rules_class"), GAMES)
def test_an_order_that_is_not_the_hands_tiles_is_refused_and_changes_nothing(
    state_class, rules_class
) -> None:
    state = state_class.new(rules_class(num_players=2), seed=3)
    with pytest.raises(ValueError, match="appears more than once"):
        state_class.new(state.rules, order=[*state.hand_tiles()[:-1], state.hand_tiles()[0]])
    finish_hand(state, 2)
    before = state.to_dict()
    with pytest.raises(ValueError, match="tiles missing"):
        state.start_next_hand(list(state.hand_tiles()[:10]))
    with pytest.raises(ValueError, match="list of tiles"):
        state.start_next_hand("0-0 1-1")
    assert state.to_dict() == before
