"""The Mexican Train PettingZoo environment: API conformance, action ids, masks, the M7
observation, rewards, episodes, errors, rendering."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from spinner_env import mexican_train_v0
from spinner_env.match import DRAW, PASS
from spinner_env.mexican_train import (
    ALL_TILES,
    MEXICAN,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
    parse,
)
from spinner_env.mexican_train_v0 import (
    ACTIONS,
    DRAW_ACTION,
    MEXICAN_SLOT,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
    PASS_ACTION,
    action_to_move,
    move_to_action,
)
from spinner_env.tiles import parse_tiles

PLAYER_COUNTS = [2, 4, 8]


def random_steps(env, rng: np.random.Generator, steps: int | None = None) -> None:
    """Masked random actions on a raw env, for ``steps`` or until the episode ends."""
    while not all(env.terminations.values()) and steps != 0:
        env.step(int(rng.choice(env.legal_actions())))
        steps = None if steps is None else steps - 1


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.filterwarnings("ignore:unknown reset option")  # api_test's options={"options": 1}
def test_pettingzoo_api_test(num_players):
    api_test(mexican_train_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda: mexican_train_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render_test(num_players, capsys):
    render_test(
        lambda render_mode=None: mexican_train_v0.env(
            num_players=num_players, render_mode=render_mode
        )
    )


def test_registered_in_pettingzoo_registry():
    env = pettingzoo.make("aec", "spinner_env/mexican_train-v0", num_players=5)
    env.reset(seed=0)
    assert env.unwrapped.num_players == 5
    assert env.unwrapped.metadata["name"] == "mexican_train_v0"


def test_action_ids_cover_every_train_slot_and_tile_then_draw_and_pass():
    assert NUM_ACTIONS == 9 * 91 + 2
    env = mexican_train_v0.raw_env(num_players=3)
    assert env.action_space("player_0").n == NUM_ACTIONS
    assert env.observation_space("player_0")["observation"].shape == (OBSERVATION_SIZE,)
    for action in range(NUM_ACTIONS):
        assert move_to_action(action_to_move(action)) == action
    tile = parse("3-12")
    assert action_to_move(tile.index) == Place(tile, 0)
    assert action_to_move(5 * 91 + tile.index) == Place(tile, 5)
    assert action_to_move(MEXICAN_SLOT * 91 + tile.index) == Place(tile, MEXICAN)
    assert ACTIONS[DRAW_ACTION] is DRAW and ACTIONS[PASS_ACTION] is PASS
    with pytest.raises(ValueError, match="out of range"):
        action_to_move(NUM_ACTIONS)
    with pytest.raises(ValueError, match="not a Mexican Train move"):
        move_to_action("3-12")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_mask_is_exactly_the_engine_legal_set_and_others_see_zero(num_players):
    env = mexican_train_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(1)
    absent_slots = set(range(num_players, MEXICAN_SLOT))
    for _ in range(400):
        if all(env.terminations.values()):
            break
        acting = env.agent_selection
        legal = {move_to_action(m) for m in env.game.legal_moves()}
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8
            if agent == acting:
                assert set(np.flatnonzero(mask)) == legal
            else:
                assert not mask.any()
        assert not {a // 91 for a in legal if a < DRAW_ACTION} & absent_slots
        env.step(int(rng.choice(sorted(legal))))


def test_observe_is_valid_for_every_agent_after_the_end():
    env = mexican_train_v0.raw_env(num_players=3, num_rounds=1)
    env.reset(seed=5)
    random_steps(env, np.random.default_rng(0))
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert not obs["action_mask"].any()


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


def test_state_holds_every_hand_and_the_boneyard():
    env = mexican_train_v0.raw_env(num_players=2)
    env.reset(seed=3)
    state = env.state()
    assert env.state_space.contains(state)
    hands = state[OBSERVATION_SIZE : OBSERVATION_SIZE + 8 * 91].reshape(8, 91)
    for seat in range(2):
        assert hands[seat].sum() == len(env.game.hands[seat]) == 16
    assert state[OBSERVATION_SIZE + 8 * 91 :].sum() == len(env.game.boneyard) == 58


@pytest.mark.parametrize("num_players", [2, 5])
def test_match_reward_is_zero_sum_and_goes_to_the_lowest_total(num_players):
    env = mexican_train_v0.env(num_players=num_players, num_rounds=2)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            finals[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(finals) == sorted(env.possible_agents)
    assert sum(finals.values()) == pytest.approx(0.0)
    totals = env.unwrapped.game.totals
    for seat, agent in enumerate(env.possible_agents):
        assert (finals[agent] >= 0) == (totals[seat] == min(totals))


def test_hand_score_reward_is_paid_every_round():
    env = mexican_train_v0.raw_env(num_players=3, num_rounds=2, reward="hand_score")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    paid_rounds = 0
    while not all(env.terminations.values()):
        random_steps(env, rng, steps=1)
        if any(env.rewards.values()):
            points = env.game.results[-1].points
            paid_rounds += 1
            for seat, agent in enumerate(env.possible_agents):
                others = sum(points) - points[seat]
                assert env.rewards[agent] == pytest.approx((others / 2 - points[seat]) / 100)
    assert paid_rounds == 2


def test_round_episode_ends_after_one_round_and_match_episode_plays_every_round():
    env = mexican_train_v0.raw_env(num_players=4, episode="hand")
    env.reset(seed=9)
    first = env.game.hand_number
    random_steps(env, np.random.default_rng(0))
    assert [r.hand_number for r in env.game.results] == [first]
    env = mexican_train_v0.raw_env(num_players=2, num_rounds=3)
    env.reset(seed=4)
    random_steps(env, np.random.default_rng(0))
    assert [r.hand_number for r in env.game.results] == [0, 1, 2] and env.game.match_over


def test_double_blank_50_variant_reaches_the_engine():
    env = mexican_train_v0.raw_env(num_players=2, double_blank_50=True)
    env.reset(seed=0)
    assert env.game.tile_points(parse("0-0")) == 50


def test_illegal_and_out_of_range_actions_raise_and_change_nothing():
    env = mexican_train_v0.raw_env(num_players=3)
    env.reset(seed=1)
    before = env.game.to_dict()
    illegal = 5 * 91  # seat +5's train: there is no such seat
    with pytest.raises(ValueError, match=f"action {illegal} .* is illegal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(NUM_ACTIONS)
    with pytest.raises(ValueError, match="integer action id"):
        env.step("draw")
    assert env.game.to_dict() == before


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    env = mexican_train_v0.env(num_players=3)
    env.reset(seed=1)
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"num_rounds": 0}, "num_rounds"),
        ({"num_rounds": 14}, "num_rounds"),
        ({"double_blank_50": 1}, "double_blank_50"),
        ({"reward": "points"}, "reward"),
        ({"episode": "round"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
    ],
)
def test_bad_constructor_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mexican_train_v0.raw_env(**kwargs)
    with pytest.raises(ValueError, match=r"unknown argument.*num_hands"):
        mexican_train_v0.raw_env(num_hands=3)


def test_reset_from_a_game_rejects_mismatches():
    env = mexican_train_v0.raw_env(num_players=2)
    with pytest.raises(ValueError, match="players"):
        env.reset(options={"game": MexicanTrainState.new(MexicanTrainRules(num_players=3))})
    with pytest.raises(ValueError, match="MexicanTrainState"):
        env.reset(options={"game": {"hands": []}})


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
