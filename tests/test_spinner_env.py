"""The Spinner PettingZoo environment: what only Spinner has (its observation, state,
variants, rendering, memo). What every game's env keeps (API conformance, masks, rewards,
episodes, errors) is ``tests/test_env_contract.py``, run over every registered game."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spinner_env import spinner_v0
from spinner_env.games.spinner.encoding import (
    OBSERVATION_SLICES,
)
from spinner_env.games.spinner.rules import ALL_TILES, SpinnerRules, SpinnerState, parse


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


def test_match_reward_sole_winner_gets_one():
    from spinner_env.core.encoding import zero_sum_outcome

    assert zero_sum_outcome([10, 50, 30, 40]) == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert zero_sum_outcome([10, 10, 30]) == pytest.approx([0.25, 0.25, -0.5])
    assert zero_sum_outcome([7, 7]) == [0.0, 0.0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_hands": 0}, "num_hands"),
        ({"num_hands": 11}, "num_hands"),
        ({"shortened": "yes"}, "shortened"),
    ],
)
def test_bad_constructor_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        spinner_v0.raw_env(**kwargs)


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
