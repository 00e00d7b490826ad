"""The belief sampler (``spinner_env.belief``) against brute force and the public record.

Exactness: on small positions from random games of both engines (few enough consistent
deals to list them all), every consistent deal is enumerated independently of the sampler,
the sampler's count must equal it, and its samples must fit the uniform distribution over
them (a chi-square test with a fixed seed, sharp enough to reject a plausible but biased
sampler, which one test checks). Properties: no sample ever breaks a void (S8, M7) or a
hand size, and the observer's hand never changes.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from spinner_env.belief import Belief, DealSampler
from spinner_env.core.match import MatchState
from spinner_env.core.tiles import Tile, parse_tiles
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState, SpinnerTile, parse

GAMES = {
    "spinner": (SpinnerState, SpinnerRules),
    "mexican_train": (MexicanTrainState, MexicanTrainRules),
}
SAMPLES_PER_DEAL = 40
P_FLOOR = 1e-3
"""A uniform sampler fails a test with this probability; the seeds are fixed, so it passes."""

Deal = tuple[frozenset[Tile], ...]


def allowed(tile: Tile, voids: set[int] | frozenset[int]) -> bool:
    return tile.low not in voids and tile.high not in voids


def every_deal(
    tiles: Sequence[Tile], sizes: Sequence[int], voids: Sequence[set[int]]
) -> list[Deal]:
    """Every split of ``tiles`` into sets of ``sizes`` with no tile in a location voiding it,
    listed by brute force (combinations, location by location)."""
    deals: list[Deal] = []

    def place(location: int, left: frozenset[Tile], chosen: tuple[frozenset[Tile], ...]) -> None:
        if location == len(sizes):
            deals.append(chosen)
            return
        candidates = sorted((t for t in left if allowed(t, voids[location])), key=lambda t: t.index)
        for hand in itertools.combinations(candidates, sizes[location]):
            place(location + 1, left - set(hand), (*chosen, frozenset(hand)))

    place(0, frozenset(tiles), ())
    return deals


def played(game: str, num_players: int, seed: int) -> Iterator[MatchState]:
    """The positions of one random hand, each in turn (the same state object, advanced)."""
    state_class, rules_class = GAMES[game]
    state = state_class.new(rules_class(num_players=num_players), seed=seed)
    rng = random.Random(seed)
    while not state.hand_over:
        yield state
        state.play_legal(rng.choice(state.legal_moves()))


def binding_voids(state: MatchState, observer: int, unseen: Sequence[Tile]) -> int:
    """How many other seats have shown a void that rules out one of the unseen tiles."""
    return sum(
        1
        for seat in range(state.num_players)
        if seat != observer and any(not allowed(t, state.voids[seat]) for t in unseen)
    )


def first_position(
    game: str, num_players: int, wanted: Callable[[MatchState], bool], skip: int = 0
) -> MatchState:
    """A copy of the first position of random hands (seeds 0, 1, ...) that is ``wanted``
    (after ``skip`` others, each from a different hand)."""
    for seed in range(200):
        for state in played(game, num_players, seed):
            if wanted(state):
                if skip == 0:
                    return state.copy()
                skip -= 1
                break
    raise AssertionError("no such position in 200 random hands")


@cache
def small_position(game: str, num_players: int, skip: int = 0) -> MatchState:
    """A position with 20 to 300 consistent deals, tiles in the boneyard and a void binding
    on every other seat (on two with 4 players)."""
    wanted_binding = min(num_players - 1, 2)

    def small(state: MatchState) -> bool:
        sampler = Belief(state).sampler
        return (
            bool(state.boneyard)
            and binding_voids(state, state.current, sampler.tiles) >= wanted_binding
            and 20 <= sampler.num_deals <= 300
        )

    return first_position(game, num_players, small, skip)


def location_deal(state: MatchState, observer: int) -> tuple[list[Tile], list[int], list[set[int]]]:
    """The unseen tiles, each location's size and voids (other seats, then the boneyard)."""
    others = [s for s in range(state.num_players) if s != observer]
    unseen = [t for s in others for t in state.hands[s]] + list(state.boneyard)
    sizes = [len(state.hands[s]) for s in others] + [len(state.boneyard)]
    return unseen, sizes, [state.voids[s] for s in others] + [set()]


def as_deal(hands: list[list[Tile]], boneyard: list[Tile], observer: int) -> Deal:
    others = [frozenset(h) for seat, h in enumerate(hands) if seat != observer]
    return (*others, frozenset(boneyard))


def assert_uniform(samples: Counter[Deal], deals: list[Deal]) -> None:
    assert set(samples) <= set(deals), "a sample is not a consistent deal"
    observed = [samples[d] for d in deals]
    assert chisquare(observed).pvalue > P_FLOOR


POSITIONS = [
    ("spinner", 2, 0),
    ("spinner", 3, 0),
    ("spinner", 4, 0),
    ("mexican_train", 2, 0),
    ("mexican_train", 3, 0),
    ("mexican_train", 4, 0),
    ("mexican_train", 4, 1),
]


HAND_MADE = (
    parse_tiles(SpinnerTile, "0-3 3-S 1-2 0-S 4-5 1-1 2-S 5-5 0-1"),
    [2, 3, 4],
    [{3, 10}, {1}, set()],
)
"""Two seats with different voids (3 and S; 1) and a boneyard of four."""


@pytest.mark.parametrize(("game", "num_players", "skip"), POSITIONS)
def test_samples_are_uniform_over_every_consistent_deal(
    game: str, num_players: int, skip: int
) -> None:
    state = small_position(game, num_players, skip)
    observer = state.current
    deals = every_deal(*location_deal(state, observer))
    belief = Belief(state)
    assert belief.sampler.num_deals == len(deals)
    rng = random.Random(7)
    samples = Counter(
        as_deal(*belief.sample_deal(rng), observer) for _ in range(SAMPLES_PER_DEAL * len(deals))
    )
    assert_uniform(samples, deals)


def test_a_tile_just_drawn_is_not_covered_by_the_drawers_voids() -> None:
    """S6.2 / M4.2: between a draw and the placement or pass that follows, the drawer holds
    one tile its voids say nothing about; the others' view deals it as a hand of its own."""
    state = first_position(
        "spinner",
        3,
        lambda s: (
            s.drew_this_turn
            and bool(s.voids[s.current])
            and 20 <= Belief(s, (s.current + 1) % 3).sampler.num_deals <= 300
        ),
    )
    observer = (state.current + 1) % 3
    belief = Belief(state, observer)
    unseen, sizes, voids = location_deal(state, observer)
    drawer = [s for s in range(3) if s != observer].index(state.current)
    sizes = [*sizes[:-1], 1, sizes[-1]]
    sizes[drawer] -= 1
    voids = [*voids[:-1], set(), voids[-1]]
    deals = every_deal(unseen, sizes, voids)
    assert belief.sampler.num_deals == len(deals)
    rng = random.Random(11)

    def split(hands: list[list[Tile]], boneyard: list[Tile]) -> Deal:
        held = [frozenset(hands[s]) for s in range(3) if s != observer]
        held[drawer] = frozenset(hands[state.current][:-1])
        return (*held, frozenset(hands[state.current][-1:]), frozenset(boneyard))

    samples = Counter(split(*belief.sample_deal(rng)) for _ in range(SAMPLES_PER_DEAL * len(deals)))
    assert_uniform(samples, deals)


def test_rejection_for_voids_left_out_of_the_count_stays_uniform() -> None:
    """With a tiny ``max_states`` only the most constraining group is counted and the
    others' voids are checked by rejection: still the same uniform distribution."""
    state = small_position("mexican_train", 4, 0)
    unseen, sizes, voids = location_deal(state, state.current)
    sampler = DealSampler(unseen, sizes, voids, max_states=1)
    assert sampler.checked_locations, "the position must exercise the rejection path"
    deals = every_deal(unseen, sizes, voids)
    rng = random.Random(8)
    samples = Counter(
        tuple(map(frozenset, sampler.sample(rng))) for _ in range(SAMPLES_PER_DEAL * len(deals))
    )
    assert_uniform(samples, deals)


def test_the_chi_square_check_rejects_a_plausible_biased_sampler() -> None:
    """Dealing seat by seat, each hand uniform from the tiles its voids allow, starting
    over on a dead end, is consistent but not uniform; the test must be able to tell."""
    unseen, sizes, voids = HAND_MADE
    deals = every_deal(unseen, sizes, voids)
    rng = random.Random(9)

    def seat_by_seat() -> Deal:
        while True:
            left = sorted(unseen, key=lambda t: t.index)
            deal: list[frozenset[Tile]] = []
            for size, void in zip(sizes, voids, strict=True):
                options = [t for t in left if allowed(t, void)]
                if len(options) < size:
                    break
                hand = rng.sample(options, size)
                deal.append(frozenset(hand))
                left = [t for t in left if t not in hand]
            else:
                return tuple(deal)

    samples = Counter(seat_by_seat() for _ in range(SAMPLES_PER_DEAL * len(deals)))
    assert set(samples) <= set(deals)
    assert chisquare([samples[d] for d in deals]).pvalue < P_FLOOR


def test_hand_made_voids_count_exactly() -> None:
    """S8: a seat void in 3 and S holds none of 3-x or x-S; counts match brute force."""
    tiles, sizes, voids = HAND_MADE
    sampler = DealSampler(tiles, sizes, voids)
    deals = every_deal(tiles, sizes, voids)
    assert sampler.num_deals == len(deals)
    rng = random.Random(3)
    samples = Counter(
        tuple(map(frozenset, sampler.sample(rng))) for _ in range(SAMPLES_PER_DEAL * len(deals))
    )
    assert_uniform(samples, deals)
    assert all(parse("3-S") not in d[0] and parse("1-2") not in d[1] for d in samples)


def test_no_consistent_deal_is_a_value_error() -> None:
    tiles = parse_tiles(SpinnerTile, "3-4 3-5")
    with pytest.raises(ValueError, match="no deal"):
        DealSampler(tiles, [2, 0], [{3}, set()])
    with pytest.raises(ValueError, match="do not deal"):
        DealSampler(tiles, [1, 2], [set(), set()])


def tiles_held(state: MatchState) -> list[int]:
    """The indices of every tile in a hand or the boneyard."""
    return sorted(t.index for group in (*state.hands, state.boneyard) for t in group)


def position_after(game: str, num_players: int, seed: int, moves: int) -> MatchState:
    """The position after ``moves`` random moves of a random hand (or its last position)."""
    *_, state = itertools.islice(played(game, num_players, seed), moves + 1)
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(GAMES)),
    num_players=st.integers(2, 8),
    deal_seed=st.integers(0, 2**32),
    moves=st.integers(0, 150),
    observer_pick=st.integers(0, 7),
    seed=st.integers(0, 2**32),
)
def test_no_sample_breaks_a_void_a_hand_size_or_the_observers_hand(
    game: str, num_players: int, deal_seed: int, moves: int, observer_pick: int, seed: int
) -> None:
    state = position_after(game, num_players, deal_seed, moves)
    observer = observer_pick % num_players
    before = state.to_dict()
    belief = Belief(state, observer)
    rng = random.Random(seed)
    for _ in range(5):
        world = belief.determinize(rng)
        assert world.hands[observer] == state.hands[observer]
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert len(world.boneyard) == len(state.boneyard)
        for seat in range(state.num_players):
            # The tile just drawn, still to be placed or passed on, is the one exception.
            drawn = seat == state.current and state.drew_this_turn
            kept = world.hands[seat][:-1] if drawn else world.hands[seat]
            if seat != observer:
                assert all(allowed(t, state.voids[seat]) for t in kept)
        assert tiles_held(world) == tiles_held(state)
        assert world.legal_moves() == state.legal_moves() or observer != state.current
    assert state.to_dict() == before, "sampling changed the real state"
