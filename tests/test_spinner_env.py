"""The Spinner PettingZoo environment: API conformance, masks, rewards, episodes, errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from spinner_env import spinner_v0
from spinner_env.spinner import ALL_TILES, SpinnerRules, SpinnerState, parse
from spinner_env.spinner_v0 import (
    ACTIONS,
    DRAW_ACTION,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
    PASS_ACTION,
    action_to_move,
    move_to_action,
)

PLAYER_COUNTS = [2, 3, 5, 8]


def play_random(env, seed: int, rng_seed: int = 0) -> list[tuple]:
    """Masked random play to the end; returns (agent, reward) pairs of the final last() calls."""
    rng = np.random.default_rng(rng_seed)
    env.reset(seed=seed)
    finals = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            finals.append((agent, reward))
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return finals


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.filterwarnings("ignore:unknown reset option")  # api_test's options={"options": 1}
def test_pettingzoo_api_test(num_players):
    api_test(spinner_v0.env(num_players=num_players), num_cycles=500)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda: spinner_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render_test(num_players, capsys):
    render_test(
        lambda render_mode=None: spinner_v0.env(num_players=num_players, render_mode=render_mode)
    )


def test_registered_in_pettingzoo_registry():
    env = pettingzoo.make("aec", "spinner_env/spinner-v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.num_players == 3
    assert env.unwrapped.metadata["name"] == "spinner_v0"


def test_spaces_are_the_same_object_every_call():
    env = spinner_v0.raw_env(num_players=4)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    assert env.action_space("player_0").n == NUM_ACTIONS == 343
    assert env.observation_space("player_0")["observation"].shape == (OBSERVATION_SIZE,)


def test_action_ids_round_trip_and_end_with_draw_and_pass():
    for action in range(NUM_ACTIONS):
        assert move_to_action(action_to_move(action)) == action
    assert str(ACTIONS[DRAW_ACTION]) == "draw"
    assert str(ACTIONS[PASS_ACTION]) == "pass"
    with pytest.raises(ValueError, match="out of range"):
        action_to_move(NUM_ACTIONS)
    with pytest.raises(ValueError, match="not a Spinner move"):
        move_to_action("9-9")


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_mask_is_exactly_the_engine_legal_set_and_others_see_zero(num_players):
    env = spinner_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(1)
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
        env.step(int(rng.choice(sorted(legal))))


def test_observe_is_valid_for_every_agent_after_the_end():
    env = spinner_v0.raw_env(num_players=3, num_hands=1)
    play_random(env, seed=5)
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert not obs["action_mask"].any()


def test_observation_slices_describe_the_position():
    hands = [
        "9-9 0-1 0-2 0-3 0-4 0-5 0-6",
        "1-1 1-2 1-3 1-4 1-5 1-6 1-7",
        "2-2 2-3 2-4 2-5 2-6 2-7 2-8",
    ]
    dealt = {parse(t) for hand in hands for t in hand.split()}
    game = SpinnerState.from_position(
        hands=hands,
        boneyard=[t for t in ALL_TILES if t not in dealt],
        rules=SpinnerRules(num_players=3),
        totals=[10, 250, 0],
    )
    env = spinner_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"game": game})
    assert env.agent_selection == "player_1"  # S3.5: the setter's left acts first
    obs = env.observe("player_1")["observation"]
    part = {name: obs[s] for name, s in OBSERVATION_SLICES.items()}
    assert set(np.flatnonzero(part["hand"]).tolist()) == {parse(t).index for t in hands[1].split()}
    assert np.flatnonzero(part["placed"]).tolist() == [parse("9-9").index]
    assert np.flatnonzero(part["playable_ends"]).tolist() == [9]
    assert part["unfilled"][9] == 1 and part["unfilled"][11] == 2  # the set: 2 arms of 9
    assert part["hand_sizes"][:3].tolist() == [7, 7, 6]  # self, then clockwise
    assert part["totals"][:3].tolist() == pytest.approx([2.5, 0.0, 0.1])
    assert part["seats"].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    assert part["to_act"][0] == 1
    assert part["boneyard"][0] == 45
    assert part["hand_number"][0] == 1


def test_state_holds_every_hand():
    env = spinner_v0.raw_env(num_players=2)
    env.reset(seed=3)
    state = env.state()
    assert env.state_space.contains(state)
    hands = state[OBSERVATION_SIZE : OBSERVATION_SIZE + 2 * 66].reshape(2, 66)
    for seat in range(2):
        assert hands[seat].sum() == len(env.game.hands[seat])


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_match_reward_is_zero_sum_and_reaches_every_agent(num_players):
    env = spinner_v0.env(num_players=num_players, num_hands=2)
    finals = play_random(env, seed=11)
    assert sorted(a for a, _ in finals) == sorted(env.possible_agents)
    rewards = dict(finals)
    assert sum(rewards.values()) == pytest.approx(0.0)
    totals = env.unwrapped.game.totals
    best = min(totals)
    for seat, agent in enumerate(env.possible_agents):
        if totals[seat] == best:
            assert rewards[agent] >= 0
        else:
            assert rewards[agent] == pytest.approx(-1 / (num_players - 1))


def test_match_reward_sole_winner_gets_one():
    from spinner_env.aec import zero_sum_outcome

    assert zero_sum_outcome([10, 50, 30, 40]) == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert zero_sum_outcome([10, 10, 30]) == pytest.approx([0.25, 0.25, -0.5])
    assert zero_sum_outcome([7, 7]) == [0.0, 0.0]


def test_hand_score_reward_is_paid_every_hand_and_sums_to_zero():
    env = spinner_v0.raw_env(num_players=3, num_hands=3, reward="hand_score")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    paid = {agent: 0.0 for agent in env.possible_agents}
    hands_seen = 0
    while not all(env.terminations.values()):
        hand_before = env.game.hand_number
        env.step(int(rng.choice(env.legal_actions())))
        if env.game.hand_number != hand_before or all(env.terminations.values()):
            result = env.game.results[-1]
            hands_seen += 1
            assert sum(env.rewards.values()) == pytest.approx(0.0)
            for seat, agent in enumerate(env.possible_agents):
                others = [p for s, p in enumerate(result.points) if s != seat]
                expected = (sum(others) / 2 - result.points[seat]) / 100
                assert env.rewards[agent] == pytest.approx(expected)
        for agent, r in env.rewards.items():
            paid[agent] += r
    assert hands_seen == 3
    assert sum(paid.values()) == pytest.approx(0.0)


def test_hand_episode_ends_after_one_hand():
    env = spinner_v0.raw_env(num_players=4, episode="hand")
    env.reset(seed=9)
    start_hand = env.game.hand_number
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    assert env.game.hand_number == start_hand
    assert len(env.game.results) == 1


def test_match_episode_plays_every_hand():
    env = spinner_v0.raw_env(num_players=2, num_hands=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    assert [r.hand_number for r in env.game.results] == [0, 1, 2]
    assert env.game.match_over


def test_same_seed_same_match_different_seed_different_match():
    def trajectory(seed):
        env = spinner_v0.raw_env(num_players=3, num_hands=1)
        env.reset(seed=seed)
        moves = []
        while not all(env.terminations.values()):
            action = env.legal_actions()[0]
            moves.append(action)
            env.step(action)
        return moves, env.game.totals

    assert trajectory(7) == trajectory(7)
    assert trajectory(7) != trajectory(8)


def test_illegal_and_out_of_range_actions_raise_and_change_nothing():
    env = spinner_v0.raw_env(num_players=2)
    env.reset(seed=1)
    before = env.game.to_dict()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {illegal} .* is illegal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(NUM_ACTIONS)
    with pytest.raises(ValueError, match="integer action id"):
        env.step("draw")
    assert env.game.to_dict() == before


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    env = spinner_v0.env(num_players=3)
    env.reset(seed=1)
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


def test_wrapped_env_enforces_order():
    env = spinner_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"num_hands": 0}, "num_hands"),
        ({"num_hands": 11}, "num_hands"),
        ({"reward": "points"}, "reward"),
        ({"episode": "round"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"shortened": "yes"}, "shortened"),
    ],
)
def test_bad_constructor_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        spinner_v0.raw_env(**kwargs)


def test_unknown_variant_is_rejected_by_name():
    with pytest.raises(ValueError, match=r"unknown argument.*double_six.*takes num_players"):
        spinner_v0.raw_env(double_six=True)


def test_reset_from_a_game_rejects_mismatches():
    env = spinner_v0.raw_env(num_players=2)
    with pytest.raises(ValueError, match="players"):
        env.reset(options={"game": SpinnerState.new(SpinnerRules(num_players=3))})
    with pytest.raises(ValueError, match="SpinnerState"):
        env.reset(options={"game": {"hands": []}})


def test_ansi_render_shows_layout_sizes_and_hand():
    env = spinner_v0.raw_env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Layout" in text and "Boneyard" in text
    seat = env.game.current
    assert f"player_{seat}'s hand: " + " ".join(map(str, env.game.hands[seat])) in text
    for other in range(4):
        assert f"player_{other}: {len(env.game.hands[other])} tiles" in text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 8),
    seed=st.integers(0, 2**31),
    copy_at=st.integers(0, 150),
    copier=st.sampled_from(["deepcopy", "pickle", "reset"]),
)
def test_kept_placed_tiles_are_never_stale(num_players, seed, copy_at, copier):
    """The env builds observations with its PlacedTiles memo; at every step, for every
    seat, they are the from-scratch encoding's, and stay as handed out. Mid-episode the env
    is copied and both play on with different moves (and with ``reset``, the env then
    takes up the copy's position): a memo shared with the copy, or kept across a new hand
    (S3) or a reset, would show."""
    env = spinner_v0.raw_env(num_players=num_players, num_hands=2)
    env.reset(seed=seed)
    handed_out = []

    def step_and_check(env, rng) -> None:
        for agent in env.agents:
            obs = env.observe(agent)["observation"]
            fresh = spinner_v0.ENCODING.observation(env.game, env._seat_of[agent])
            np.testing.assert_array_equal(obs, fresh)
            handed_out.append((obs, obs.copy()))
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    rng = np.random.default_rng(seed)
    for _ in range(copy_at):
        if not env.agents:
            break
        step_and_check(env, rng)
    twin = pickle.loads(pickle.dumps(env)) if copier == "pickle" else copy.deepcopy(env)
    twin_rng = np.random.default_rng(seed + 1)

    def play_both(steps: int) -> None:
        for _ in range(steps):
            for each, each_rng in ((env, rng), (twin, twin_rng)):
                if each.agents:
                    step_and_check(each, each_rng)

    if copier == "reset":  # env takes up the twin's position, placed otherwise since the copy
        play_both(20)
        if twin.agents and not twin.game.hand_over:
            env.reset(options={"game": twin.game})
    play_both(10_000)
    for obs, as_handed in handed_out:
        np.testing.assert_array_equal(obs, as_handed)
