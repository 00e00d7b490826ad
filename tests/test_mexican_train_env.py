"""The Mexican Train PettingZoo environment: what only Mexican Train has (its action ids
by train, the M7 observation, the extra placement, its state, variants and rendering).
What every game's env keeps (API conformance, masks, rewards, episodes, errors) is
``tests/test_env_contract.py``, run over every registered game."""

from __future__ import annotations

import numpy as np
import pytest

from spinner_env import mexican_train_v0
from spinner_env.core.match import DRAW, PASS
from spinner_env.core.tiles import parse_tiles
from spinner_env.games.mexican_train.encoding import (
    ACTIONS,
    DRAW_ACTION,
    MEXICAN_SLOT,
    NUM_ACTIONS,
    OBSERVATION_SLICES,
    PASS_ACTION,
    action_to_move,
    move_to_action,
)
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    MEXICAN,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
    parse,
)

PLAYER_COUNTS = [2, 4, 8]


def random_steps(env, rng: np.random.Generator, steps: int | None = None) -> None:
    """Masked random actions on a raw env, for ``steps`` or until the episode ends."""
    while not all(env.terminations.values()) and steps != 0:
        env.step(int(rng.choice(env.legal_actions())))
        steps = None if steps is None else steps - 1


def test_action_ids_cover_every_train_slot_and_tile_then_draw_and_pass():
    assert NUM_ACTIONS == 9 * 91 + 2
    tile = parse("3-12")
    assert action_to_move(tile.index) == Place(tile, 0)
    assert action_to_move(5 * 91 + tile.index) == Place(tile, 5)
    assert action_to_move(MEXICAN_SLOT * 91 + tile.index) == Place(tile, MEXICAN)
    assert ACTIONS[DRAW_ACTION] is DRAW and ACTIONS[PASS_ACTION] is PASS
    with pytest.raises(ValueError, match="not a Mexican Train move"):
        move_to_action("3-12")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_no_action_on_an_absent_seats_train_is_ever_legal(num_players):
    """Train slots count seats from the actor (M7): with n players, slots n to 7 name no
    train, so no action of theirs is legal, and stepping one is refused."""
    env = mexican_train_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(1)
    absent_slots = set(range(num_players, MEXICAN_SLOT))
    if absent_slots:
        with pytest.raises(ValueError, match="is illegal"):
            env.step(min(absent_slots) * 91)
    for _ in range(400):
        if all(env.terminations.values()):
            break
        legal = env.legal_actions()
        assert not {a // 91 for a in legal if a < DRAW_ACTION} & absent_slots
        env.step(int(rng.choice(legal)))


def tiles(text: str) -> list[MexicanTile]:
    return parse_tiles(MexicanTile, text)


def observed_position() -> MexicanTrainState:
    """Round 2 (engine 10-10), 3 players, seat 2 to act after seat 1 put 7-7 out."""
    hands = ["0-1 0-2 0-3", "1-2 1-3", "8-1 5-6 0-0 9-9"]
    trains = ["10-4 4-6", "10-7 7-7", "", "10-3"]
    named = set(tiles(" ".join(hands + trains)))
    engine = parse("10-10")
    boneyard = [t for t in ALL_TILES if t not in named and t is not engine]
    return MexicanTrainState.from_position(
        hands,
        boneyard,
        MexicanTrainRules(num_players=3),
        hand_number=2,
        trains=trains,
        markers=[0],
        current=2,
        totals=[40, 0, 125],
    )


def test_m7_observation_shows_all_public_information_relative_to_the_observer():
    env = mexican_train_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"game": observed_position()})
    assert env.agent_selection == "player_2"
    game = env.game
    obs = env.observe("player_1")["observation"]  # seat 1 looks: seat 2 is +1, seat 0 +2
    part = {name: obs[s] for name, s in OBSERVATION_SLICES.items()}

    def on_slot(slot: int) -> set[int]:
        block = part["trains"][slot * 91 : (slot + 1) * 91]
        return set(np.flatnonzero(block).tolist())

    assert set(np.flatnonzero(part["hand"]).tolist()) == {t.index for t in tiles("1-2 1-3")}
    assert on_slot(0) == {t.index for t in tiles("10-7 7-7")}  # own train
    assert on_slot(1) == set()  # seat 2's
    assert on_slot(2) == {t.index for t in tiles("10-4 4-6")}  # seat 0's
    assert on_slot(MEXICAN_SLOT) == {parse("10-3").index}
    assert all(on_slot(slot) == set() for slot in range(3, 8))
    ends = part["open_ends"].reshape(9, 13)
    assert [int(np.flatnonzero(ends[slot])[0]) for slot in (0, 1, 2, 8)] == [7, 10, 6, 3]
    assert not ends[3:8].any()
    assert part["markers"].tolist() == [0, 0, 1, 0, 0, 0, 0, 0]
    # M5.3: seat 2 may only place on the double 7-7 on seat 1's train (slot 0 for seat 1).
    assert np.flatnonzero(part["playable"]).tolist() == [0]
    unsatisfied = part["unsatisfied"].reshape(9, 9)
    assert np.flatnonzero(unsatisfied[0]).tolist() == [0] and not unsatisfied[1:].any()
    assert part["extra_placement"][0] == 0
    assert part["hand_sizes"][:3].tolist() == [2, 4, 3]  # M6.4: every hand size
    assert part["totals"][:3].tolist() == pytest.approx([0.0, 1.25, 0.4])
    assert part["seats"].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    assert part["to_act"].tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    assert part["boneyard"][0] == len(game.boneyard)
    assert part["round"].tolist() == [0, 0, 1] + [0] * 10
    assert not part["voids"].any() and part["drew"][0] == 0

    # M7 "who drew or passed on which open ends": seat 2 cannot satisfy 7-7 and draws.
    env.step(DRAW_ACTION)
    part = {n: env.observe("player_1")["observation"][s] for n, s in OBSERVATION_SLICES.items()}
    assert np.flatnonzero(part["voids"].reshape(8, 13)[1]).tolist() == [7]
    assert part["drew"][0] == 1


def test_after_a_double_the_same_agent_acts_again_with_the_extra_placement_flag():
    hands = ["5-5 5-1 0-2", "0-3"]
    named = set(tiles(" ".join(hands) + " 12-5"))
    boneyard = [t for t in ALL_TILES if t not in named and t is not parse("12-12")]
    game = MexicanTrainState.from_position(hands, boneyard, trains=["12-5", "", ""])
    env = mexican_train_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"game": game})
    env.step(move_to_action(Place(parse("5-5"), 0)))
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    part = {name: obs["observation"][s] for name, s in OBSERVATION_SLICES.items()}
    assert part["extra_placement"][0] == 1
    assert np.flatnonzero(part["playable"]).tolist() == [0, MEXICAN_SLOT]
    assert np.flatnonzero(part["unsatisfied"]).tolist() == [0]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [move_to_action(Place(parse("5-1"), 0))]


def test_double_blank_50_variant_reaches_the_engine():
    env = mexican_train_v0.raw_env(num_players=2, double_blank_50=True)
    env.reset(seed=0)
    assert env.game.tile_points(parse("0-0")) == 50


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_rounds": 0}, "num_rounds"),
        ({"num_rounds": 14}, "num_rounds"),
        ({"double_blank_50": 1}, "double_blank_50"),
    ],
)
def test_bad_constructor_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mexican_train_v0.raw_env(**kwargs)
    with pytest.raises(ValueError, match=r"unknown argument.*num_hands"):
        mexican_train_v0.raw_env(num_hands=3)


def test_ansi_render_shows_trains_sizes_and_the_acting_hand():
    env = mexican_train_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"game": observed_position()})
    text = env.render()
    assert "round 3 of 13 (engine 10-10)" in text
    assert "player_0's train: 4-10 4-6 (open 6, marker)" in text
    assert "player_1's train: 7-10 7-7 (open 7)" in text
    assert "the Mexican train: 3-10 (open 3)" in text
    assert "Unsatisfied doubles, oldest first, on: player_1's train" in text
    assert "player_2's hand: 1-8 5-6 0-0 9-9" in text
    for seat, size in enumerate((3, 2, 4)):
        assert f"player_{seat}: {size} tiles" in text


def test_m6_4_every_hand_size_is_public_to_every_agent():
    env = mexican_train_v0.raw_env(num_players=4, num_rounds=1)
    env.reset(seed=6)
    rng = np.random.default_rng(2)
    sizes = OBSERVATION_SLICES["hand_sizes"]
    while not all(env.terminations.values()):
        for seat, agent in enumerate(env.possible_agents):
            relative = [len(env.game.hands[(seat + k) % 4]) for k in range(4)]
            assert env.observe(agent)["observation"][sizes].tolist() == relative + [0] * 4
        random_steps(env, rng, steps=1)
