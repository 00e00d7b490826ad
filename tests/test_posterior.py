"""The posterior belief over deals given the opponents' placements (agents/posterior.py, M7)."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from posterior import (
    ChoicePosterior,
    Decision,
    choice_log_likelihood,
    expert_model,
)
from spinner_env.agents import make_agent
from spinner_env.agents.search import agent_move

from spinner_env.games import game_spec
from spinner_env.games.mexican_train.rules import MexicanTile, MexicanTrainRules, MexicanTrainState

HIDDEN = ["12-11", "12-10", "3-4", "5-6", "7-8"]
T = MexicanTile.parse


def pips(world, moves):
    """A toy valuation: the heavier tile first."""
    return [m.tile.pips for m in moves]


def placed_light_tile() -> tuple[MexicanTrainState, list[Decision]]:
    """Seat 1 held 12-0, 3-4, 5-6 and 7-8 and started its train with 12-0; the observer,
    seat 0, holds every other tile but the boneyard's 12-11 and 12-10, so five tiles are
    hidden from it and seat 1 holds three of them."""
    named = {MexicanTile.parse(t) for t in [*HIDDEN, "12-0"]}
    engine = MexicanTile.of(12, 12)
    observer = [t for t in MexicanTile.all_tiles() if t not in named and t is not engine]
    before = MexicanTrainState.from_position(
        [observer, "12-0 3-4 5-6 7-8"], "12-11 12-10", MexicanTrainRules(num_players=2), current=1
    )
    move = next(m for m in before.legal_moves() if str(m) == "0-12 on own train")
    state = before.copy()
    state.play_legal(move)
    assert state.current == 0
    return state, [Decision(before.copy(), move)]


def test_m7_a_light_placement_makes_holding_heavier_tiles_unlikely():
    """Under a model that plays the heaviest tile, a seat that placed 12-0 when 12-11 would
    have fitted the same end was unlikely to hold 12-11: the chance of the choice falls to
    the uniform share's part."""
    _, (decision,) = placed_light_tile()
    hand_with = [MexicanTile.parse(t) for t in ["12-11", "3-4", "5-6", "12-0"]]
    hand_without = [MexicanTile.parse(t) for t in ["3-4", "5-6", "7-8", "12-0"]]
    likely = choice_log_likelihood(decision.before, hand_without, decision.move, pips, 0.5, 0.05)
    unlikely = choice_log_likelihood(decision.before, hand_with, decision.move, pips, 0.5, 0.05)
    assert likely > unlikely
    # Four placements: 12-11 and 12-0, each on the own and the Mexican train.
    chosen = math.exp(-11 / 0.5) / (2 + 2 * math.exp(-11 / 0.5))  # 12 pips against 23
    assert math.isclose(math.exp(unlikely), 0.95 * chosen + 0.05 / 4, rel_tol=1e-9)
    without_12 = [MexicanTile.parse(t) for t in ["3-4", "5-6", "7-8"]]
    assert choice_log_likelihood(decision.before, without_12, decision.move, pips, 1.0, 0.1) == (
        -math.inf
    )


def exact_marginals(state, decisions, temperature, uniform_share) -> dict[MexicanTile, float]:
    """Each hidden tile's chance of being in seat 1's hand, by enumerating the deals."""
    hidden = [MexicanTile.parse(t) for t in HIDDEN]
    placed = [decisions[0].move.tile]
    weights = {}
    for hand in itertools.combinations(hidden, 3):
        weights[hand] = math.exp(
            choice_log_likelihood(
                decisions[0].before,
                [*hand, *placed],
                decisions[0].move,
                pips,
                temperature,
                uniform_share,
            )
        )
    total = sum(weights.values())
    return {t: sum(w for hand, w in weights.items() if t in hand) / total for t in hidden}


def test_m7_the_chain_samples_the_exact_posterior():
    """The Metropolis chain's share of deals putting each hidden tile in seat 1's hand
    matches the posterior computed by enumerating all ten deals."""
    state, decisions = placed_light_tile()
    exact = exact_marginals(state, decisions, 4.0, 0.2)
    assert exact[T("12-11")] < 0.4 < exact[T("3-4")]  # the choice moves the marginals (3/5 uniform)
    posterior = ChoicePosterior(state, decisions, pips, 4.0, 0.2, burn_in=50, thin=3)
    rng = random.Random(7)
    samples = 3000
    counts = dict.fromkeys(exact, 0)
    for _ in range(samples):
        hands, boneyard = posterior.sample_deal(rng)
        assert hands[0] == state.hands[0]  # the observer's own hand never moves
        assert sorted(t.index for t in [*hands[1], *boneyard]) == sorted(t.index for t in exact)
        assert len(hands[1]) == 3 and len(boneyard) == 2
        for tile in hands[1]:
            counts[tile] += 1
    for tile in exact:
        assert abs(counts[tile] / samples - exact[tile]) < 0.05, (tile, counts, exact)


def test_m7_the_chain_samples_the_exact_posterior_of_two_opponents_and_a_void():
    """Three players: seats 1 and 2 each started their train with a 12 where a heavier one
    might have gone, and seat 2 has shown void in 9. The chain's marginals, over swaps
    between the two hands and with the boneyard, match the enumerated posterior."""
    h1, h2, bone = "12-0 12-5 3-4 9-1", "12-1 12-7 5-6 2-2", "12-9 12-3 8-8"
    named = {T(t) for t in f"{h1} {h2} {bone}".split()}
    engine = MexicanTile.of(12, 12)
    observer = [t for t in MexicanTile.all_tiles() if t not in named and t is not engine]
    state = MexicanTrainState.from_position(
        [observer, h1, h2], bone, MexicanTrainRules(num_players=3), current=1
    )
    log = []
    for placement in ("0-12 on own train", "1-12 on own train"):
        move = next(m for m in state.legal_moves() if str(m) == placement)
        log.append(Decision(state.copy(), move))
        state.play_legal(move)
    state.voids[2] = {9}
    posterior = ChoicePosterior(state, log, pips, 1.0, 0.05, burn_in=100, thin=6)
    hidden = [*state.hands[1], *state.hands[2], *state.boneyard]
    weights = {}
    for first in itertools.combinations(hidden, 3):
        rest = [t for t in hidden if t not in first]
        for second in itertools.combinations(rest, 3):
            if not any(t.has(9) for t in second):
                weights[first, second] = math.exp(
                    posterior.log_likelihood(1, first) + posterior.log_likelihood(2, second)
                )
    total = sum(weights.values())
    exact = {
        (seat, t): sum(w for hands, w in weights.items() if t in hands[seat - 1]) / total
        for seat in (1, 2)
        for t in hidden
    }
    rng = random.Random(1)
    samples = 20000  # the chain's error here is under 0.01; dropping a seat's part, 0.05
    counts = dict.fromkeys(exact, 0)
    for _ in range(samples):
        hands, _ = posterior.sample_deal(rng)
        assert not any(t.has(9) for t in hands[2])
        for seat in (1, 2):
            for tile in hands[seat]:
                counts[seat, tile] += 1
    assert max(exact.values()) - min(exact.values()) > 0.5  # far from uniform
    for key, chance in exact.items():
        assert abs(counts[key] / samples - chance) < 0.025, (key, counts[key] / samples, chance)


def expert_rounds(players: int, seed: int, rounds: int):
    """The expert's own moves over the first ``rounds`` rounds of a match: each position
    with the round's log before it and the move."""
    spec = game_spec("mexican_train")
    expert = make_agent("expert")
    state = spec.new_state(players, seed)
    log: list[Decision] = []
    while state.hand_number < rounds and not state.match_over:
        legal = state.legal_moves()
        move = legal[0] if len(legal) == 1 else agent_move(expert, state, legal, spec.encoding)
        yield state, log, move
        log.append(Decision(state.copy(), move))
        state.play_legal(move)
        if state.hand_over and not state.match_over:
            state.start_next_hand()
            log = []


def test_m4_m5_each_window_rebuilds_the_hand_the_seat_held():
    """Over the expert's games of 2 to 8 players: for every opponent, its hand at each
    placement since its last draw is its hand now plus what it placed from then on, after
    draws (M4.2) and in the extra placement after a double (M5.2) too."""
    checked = after_draw = after_double = 0
    for players in (2, 4, 8):
        for state, log, _ in expert_rounds(players, 200 + players, 2):
            if state.drew_this_turn:
                continue  # the posterior is for a seat to act before it draws
            posterior = ChoicePosterior(state, log, pips, burn_in=0)
            for seat, window in posterior.windows.items():
                for decision, placed in window:
                    held = sorted(t.index for t in [*state.hands[seat], *placed])
                    assert held == sorted(t.index for t in decision.before.hands[seat])
                    checked += 1
                    after_draw += decision.before.drew_this_turn
                    after_double += decision.before.extra_placement
    assert checked > 1000 and after_draw > 10 and after_double > 10


def test_m7_the_likelihood_reads_no_other_hidden_tile():
    """The opponent model's chance of a choice is the same whatever the other hands and
    the boneyard hold: it reads the acting seat's hand and the public record only."""
    model = expert_model()
    rng = random.Random(0)
    compared = 0
    for state, _, move in expert_rounds(4, 31, 2):
        if not hasattr(move, "tile") or len(state.legal_moves()) < 2:
            continue
        me = state.current
        shuffled = state.copy()
        pool = [t for s in range(4) if s != me for t in shuffled.hands[s]] + shuffled.boneyard
        rng.shuffle(pool)
        for seat in range(4):
            if seat != me:
                shuffled.hands[seat], pool = (
                    pool[: len(state.hands[seat])],
                    pool[len(state.hands[seat]) :],
                )
        shuffled.boneyard = pool
        hand = state.hands[me]
        assert choice_log_likelihood(state, hand, move, model, 3.0, 0.1) == (
            choice_log_likelihood(shuffled, hand, move, model, 3.0, 0.1)
        )
        compared += 1
    assert compared > 20


def test_m7_posterior_deals_keep_sizes_voids_and_the_observers_tiles():
    """Over the expert's own 4-player games: every deal gives each seat its size, no seat a
    tile of a value it was shown void in, the observer its own hand, and the hidden tiles
    each once; the chain accepts some proposals."""
    spec = game_spec("mexican_train")
    expert = make_agent("expert")
    state = spec.new_state(4, 11)
    log: list[Decision] = []
    rng = random.Random(3)
    checked = 0
    while not state.hand_over:
        legal = state.legal_moves()
        move = legal[0] if len(legal) == 1 else agent_move(expert, state, legal, spec.encoding)
        if len(legal) > 1 and len(log) % 7 == 3:
            posterior = ChoicePosterior(state, log, expert_model(), burn_in=20, thin=5)
            hidden = sorted(
                t.index
                for t in [
                    *(t for s in range(4) if s != state.current for t in state.hands[s]),
                    *state.boneyard,
                ]
            )
            for _ in range(3):
                hands, boneyard = posterior.sample_deal(rng)
                assert hands[state.current] == state.hands[state.current]
                assert [len(h) for h in hands] == [len(h) for h in state.hands]
                dealt = [*(t for s in range(4) if s != state.current for t in hands[s]), *boneyard]
                assert sorted(t.index for t in dealt) == hidden
                for seat in range(4):
                    assert not any(
                        t.low in state.voids[seat] or t.high in state.voids[seat]
                        for t in hands[seat]
                        if seat != state.current
                    )
            assert posterior.accepted > 0
            checked += 1
        log.append(Decision(state.copy(), move))
        state.play_legal(move)
    assert checked >= 3


def test_m7_with_an_empty_boneyard_and_one_opponent_the_deal_is_known():
    """Two players, the boneyard empty: every tile the observer cannot see is the
    opponent's, and the chain, with no swap to propose, deals exactly that hand."""
    engine = MexicanTile.of(12, 12)
    theirs = [T(t) for t in ["3-4", "5-6", "7-8"]]
    mine = [t for t in MexicanTile.all_tiles() if t not in theirs and t is not engine]
    state = MexicanTrainState.from_position(
        [mine, theirs], [], MexicanTrainRules(num_players=2), current=0
    )
    posterior = ChoicePosterior(state, [], pips, burn_in=5, thin=2)
    hands, boneyard = posterior.sample_deal(random.Random(0))
    assert sorted(t.index for t in hands[1]) == sorted(t.index for t in theirs)
    assert boneyard == []


def test_posterior_refuses_bad_settings_and_other_rounds_decisions():
    state, decisions = placed_light_tile()
    with pytest.raises(ValueError, match="temperature"):
        ChoicePosterior(state, decisions, pips, temperature=0)
    with pytest.raises(ValueError, match="uniform_share"):
        ChoicePosterior(state, decisions, pips, uniform_share=0)
    with pytest.raises(ValueError, match="thin"):
        ChoicePosterior(state, decisions, pips, thin=0)
    later = state.copy()
    later.hand_number = 1
    with pytest.raises(ValueError, match="round"):
        ChoicePosterior(later, decisions, pips)
    before = decisions[0].before
    with pytest.raises(ValueError, match="not on the table"):
        ChoicePosterior(before, decisions, pips, observer=0)  # a move not yet made
    with pytest.raises(ValueError, match="mexican_train"):
        expert_model("spinner")
