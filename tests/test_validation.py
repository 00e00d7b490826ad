"""State validation (one validator per game) and the environments' input checks.

Every state read from outside (``from_dict``, ``from_position``, ``reset(options=...)``)
either raises ValueError naming what is wrong or is a state the engine can play to the
end; the environments take what PettingZoo's wrappers take and refuse the rest with a
ValueError.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spinner_env.agents import RandomAgent

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.games import GAMES
from spinner_env.games.mexican_train.rules import ALL_TILES as MT_TILES
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.rules import ALL_TILES, SpinnerRules, SpinnerState
from spinner_env.mutation import PLAYER_COUNTS, check_mutant, mutate, random_state
from spinner_env.wrappers import SingleAgentEnv

SPINNER, MEXICAN_TRAIN = GAMES.values()


def spinner_dict(num_players: int = 3) -> dict:
    """A Spinner hand in play, a few placements past the set."""
    state = random_state(SPINNER, num_players, random.Random(5))
    assert not state.hand_over and len(state.layout) > 2
    return state.to_dict()


def mexican_dict(num_players: int = 3) -> dict:
    state = MexicanTrainState.new(MexicanTrainRules(num_players=num_players), seed=4)
    rng = random.Random(4)
    for _ in range(20):
        state.apply(rng.choice(state.legal_moves()))
    return state.to_dict()


# (path in the dict, value, what the message names); S2.1-S2.4, S3-S5, S8 for Spinner.
SPINNER_DAMAGE = [
    (["current"], 5, "current"),
    (["current"], "0", "current"),
    (["totals"], [0, 0], "totals"),
    (["totals", 1], 2.5, r"totals\[1\]"),
    (["voids"], [[], []], "voids"),
    (["voids", 0], [99], r"voids\[0\]"),
    (["voids", 2], [-1], r"voids\[2\]"),
    (["free_ends"], [0] * 10, "free_ends"),
    (["free_ends", 3], -1, r"free_ends\[3\]"),
    (["free_ends", 3], 4, "free_ends"),
    (["unfilled"], [{"tile": "9-9", "value": 12, "arms_left": 2}], r"unfilled\[0\].value"),
    (["unfilled"], [{"tile": "9-9", "value": 9, "arms_left": 0}], r"unfilled\[0\].arms_left"),
    (["unfilled"], [{"tile": "9-9", "value": 9, "arms_left": -2}], r"unfilled\[0\].arms_left"),
    (["hand_number"], 10, "hand_number"),
    (["hand_number"], 1.0, "hand_number"),
    (["dealer"], 7, "dealer"),
    (["dealer"], "0", "dealer"),
    (["seed"], -1, "seed"),
    (["seed"], "x", "seed"),
    (["hands", 0, 0], 5, "tile"),
    (["hands", 0, 0], None, "tile"),
    (["hands", 0], None, "tiles"),
    (["boneyard"], 3, "boneyard"),
    (["passes_in_row"], -1, "passes_in_row"),
    (["drew_this_turn"], 1, "drew_this_turn"),
    (["num_players"], 4, "num_players"),
    (["num_players"], 3.0, "num_players"),
    (["layout", 1, "end"], 12, r"layout\[1\].end"),
    (["layout", 1, "seat"], 3, r"layout\[1\].seat"),
    (["layout", 0, "end"], 9, r"layout\[0\]"),
    (["results"], [{"hand_number": 0, "winner": 5, "points": [0] * 3, "blocked": False}], "winner"),
    (["rules"], {"num_players": 3, "num_hands": 0}, "num_hands"),
    (["rules"], 7, "not a Spinner state"),
]  # fmt: skip


def damaged(data: dict, path: list, value) -> dict:
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(("path", "value", "message"), SPINNER_DAMAGE)
def test_spinner_from_dict_names_the_field_that_breaks_an_invariant(path, value, message):
    data = spinner_dict()
    SpinnerState.from_dict(data)  # the undamaged state reads back
    with pytest.raises(ValueError, match=message):
        SpinnerState.from_dict(damaged(data, path, value))


MEXICAN_DAMAGE = [
    (["current"], 5, "current"),
    (["current"], True, "current"),
    (["totals"], [0, 0, 0, 0], "totals"),
    (["voids", 1], [13], r"voids\[1\]"),
    (["hand_number"], 13, "hand_number"),
    (["trains"], [], "trains"),
    (["trains", 0, "tiles"], ["3-4"], "cannot follow"),
    (["trains", 0, "marker"], "yes", "marker"),
    (["trains", 3, "marker"], True, "Mexican train never carries a marker"),
    (["unsatisfied"], [7], r"unsatisfied\[0\]"),
    (["unsatisfied"], [0], "unsatisfied doubles"),
    (["extra_placement"], 1, "extra_placement"),
    (["extra_placement"], True, "extra_placement follows a double"),
    (["boneyard", 0], 12, "tile"),
    (["hands", 1], [None], "tile"),
    (["seed"], 2.5, "seed"),
    (["rules", "num_rounds"], 14, "num_rounds"),
]


@pytest.mark.parametrize(("path", "value", "message"), MEXICAN_DAMAGE)
def test_mexican_train_from_dict_names_the_field_that_breaks_an_invariant(path, value, message):
    data = mexican_dict()
    assert not data["unsatisfied"] and not data["extra_placement"]
    MexicanTrainState.from_dict(data)
    with pytest.raises(ValueError, match=message):
        MexicanTrainState.from_dict(damaged(data, path, value))


def test_tile_conservation_is_checked_in_both_games():
    """S1.1, M1.1: every tile in exactly one place (the engine double on the hub, M2.3)."""
    data = spinner_dict()
    data["boneyard"].append(data["hands"][0][0])
    with pytest.raises(ValueError, match="more than once"):
        SpinnerState.from_dict(data)
    data = mexican_dict()
    data["boneyard"].pop()
    with pytest.raises(ValueError, match="missing"):
        MexicanTrainState.from_dict(data)
    data = mexican_dict()
    data["boneyard"].append("12-12")
    with pytest.raises(ValueError, match="not in play"):
        MexicanTrainState.from_dict(data)


def test_from_position_rejects_bad_seeds_totals_and_dealers():
    hands = [[str(t) for t in ALL_TILES[k * 14 : (k + 1) * 14]] for k in range(2)]
    boneyard = [str(t) for t in ALL_TILES[28:]]
    SpinnerState.from_position(hands, boneyard, seed=3, totals=[1, 2], dealer=1)
    for kwargs, message in [
        (dict(seed="x"), "seed"),
        (dict(seed=2.5), "seed"),
        (dict(seed=-4), "seed"),
        (dict(totals=[1.5, 0]), r"totals\[0\]"),
        (dict(totals=5), "totals"),
        (dict(dealer="0"), "dealer"),
        (dict(dealer=2), "dealer"),
        (dict(hand_number="1"), "hand_number"),
    ]:
        with pytest.raises(ValueError, match=message):
            SpinnerState.from_position(hands, boneyard, **kwargs)
    with pytest.raises(ValueError, match="tile"):
        SpinnerState.from_position([[*hands[0][:-1], 7], hands[1]], boneyard)
    with pytest.raises(ValueError, match="tiles"):
        SpinnerState.from_position([None, hands[1]], boneyard)
    mt_hands = [[str(MT_TILES[0])], [str(MT_TILES[1])]]
    mt_boneyard = [str(t) for t in MT_TILES[2:-1]]
    MexicanTrainState.from_position(mt_hands, mt_boneyard)
    for kwargs, message in [
        (dict(current="0"), "current"),
        (dict(seed="x"), "seed"),
        (dict(totals=[0, None]), r"totals\[1\]"),
        (dict(markers=["1"]), "marker"),
        (dict(markers=3), "markers"),
        (dict(trains=5), "trains"),
        (dict(unsatisfied=[None]), "unsatisfied"),
    ]:
        with pytest.raises(ValueError, match=message):
            MexicanTrainState.from_position(mt_hands, mt_boneyard, **kwargs)


def test_every_state_reached_in_play_validates():
    """The validators accept everything the engines do: no false alarms."""
    rng = random.Random(0)
    for game, num_players in [(SPINNER, 2), (SPINNER, 6), (MEXICAN_TRAIN, 3), (MEXICAN_TRAIN, 8)]:
        state = game.state_class.new(game.random_rules(rng, num_players), seed=num_players)
        while not state.match_over:
            state.validate()
            if state.hand_over:
                state.start_next_hand()
            else:
                state.apply(rng.choice(state.legal_moves()))
        state.validate()


@settings(max_examples=120, deadline=None)
@given(
    game=st.sampled_from(list(GAMES.values())),
    num_players=st.sampled_from(PLAYER_COUNTS),
    rng=st.randoms(use_true_random=False),
)
def test_a_mutated_state_is_refused_or_plays_to_the_end(game, num_players, rng):
    """Damage a state's dict at random (bench/fuzz.py does it a million times): reading it
    raises ValueError, or the state validates and random legal moves finish the match
    (through the env's reset(options={"game": ...}) first, then the engine)."""
    data = mutate(random_state(game, num_players, rng).to_dict(), rng)
    with contextlib.suppress(ValueError):
        check_mutant(game, data, rng)


# ------------------------------------------------------------ environments
@pytest.mark.parametrize("module", [spinner_v0, mexican_train_v0])
@pytest.mark.parametrize("action_of", [np.array, np.int64, np.int16], ids=["0-d", "i64", "i16"])
def test_the_wrapped_env_steps_numpy_integers_and_0d_arrays_as_the_raw_env(module, action_of):
    one_hand = {"num_hands": 1} if module is spinner_v0 else {"num_rounds": 1}
    wrapped = module.env(num_players=3, **one_hand)
    raw = module.raw_env(num_players=3, **one_hand)
    for env in (wrapped, raw):
        env.reset(seed=7)
    rng = np.random.default_rng(0)
    while not all(raw.terminations.values()):
        action = action_of(rng.choice(raw.legal_actions()))
        wrapped.step(action)
        raw.step(action)
        assert wrapped.unwrapped.game.to_dict() == raw.game.to_dict()


@pytest.mark.parametrize("make", [spinner_v0.env, spinner_v0.raw_env, mexican_train_v0.env])
def test_reset_seeds_take_numpy_integers_and_refuse_the_rest_with_value_error(make):
    first, second = make(num_players=2), make(num_players=2)
    first.reset(seed=5)
    second.reset(seed=np.uint8(5))
    assert first.unwrapped.game.to_dict() == second.unwrapped.game.to_dict()
    for seed in (-1, 2.5, "3", True, np.float64(2.0), [1]):
        with pytest.raises(ValueError, match="seed"):
            make(num_players=2).reset(seed=seed)


def test_unknown_reset_options_are_named_in_a_warning_and_options_must_be_a_dict():
    """Not an error: PettingZoo's api_test resets with options={"options": 1}."""
    env = spinner_v0.env()
    with pytest.warns(UserWarning, match="'gmae'"):
        env.reset(options={"gmae": SpinnerState.new()})
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options=["game"])


def test_reset_validates_the_game_and_refuses_other_rules():
    env = spinner_v0.raw_env(num_players=2, num_hands=3)
    state = SpinnerState.new(SpinnerRules(num_players=2, num_hands=3), seed=1)
    env.reset(options={"game": state})
    bad = state.copy()
    bad.current = 5
    with pytest.raises(ValueError, match="current"):
        env.reset(options={"game": bad})
    other = replace(state, rules=SpinnerRules(num_players=2, num_hands=5))
    with pytest.raises(ValueError, match=r"num_hands 5 \(env: 3\)"):
        env.reset(options={"game": other})
    four = SpinnerState.new(SpinnerRules(num_players=4, num_hands=3), seed=1)
    with pytest.raises(ValueError, match=r"num_players 4 \(env: 2\)"):
        env.reset(options={"game": four})
    with pytest.raises(ValueError, match="MexicanTrainState"):
        env.reset(options={"game": MexicanTrainState.new()})


def test_single_agent_step_takes_integer_ids_only():
    env = SingleAgentEnv(spinner_v0.raw_env(num_hands=1), RandomAgent(seed=0), learner_seat=0)
    env.reset(seed=np.int64(0))
    with pytest.raises(ValueError, match=r"3\.7"):
        env.step(3.7)
    with pytest.raises(ValueError, match="True"):
        env.step(True)
    env.step(np.array(env.action_masks().argmax()))
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-3)


@pytest.mark.parametrize("module", [spinner_v0, mexican_train_v0])
def test_action_to_move_takes_integer_ids_only(module):
    assert module.action_to_move(np.int64(1)) == module.action_to_move(1)
    assert module.action_to_move(np.array(1)) == module.action_to_move(1)
    for action in (True, 1.0, "1", None, module.NUM_ACTIONS, -1):
        with pytest.raises(ValueError):
            module.action_to_move(action)
