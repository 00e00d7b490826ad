"""Pictures of the table: ``render_mode="rgb_array"``, the scene behind it, its SVG twin."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from gymnasium.wrappers import RecordVideo
from spinner_env.agents import RandomAgent

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.match import MatchState
from spinner_env.mexican_train import MexicanTrainRules, MexicanTrainState
from spinner_env.picture import (
    HAND_TOP,
    HEIGHT,
    SPINNER_HALF,
    WIDTH,
    Group,
    Scene,
    table_picture,
    table_scene,
    to_svg,
)
from spinner_env.spinner import ALL_TILES, SpinnerRules, SpinnerState, parse
from spinner_env.wrappers import SingleAgentEnv


def played(state: MatchState, moves: int, seed: int = 0) -> MatchState:
    rng = random.Random(seed)
    for _ in range(moves):
        if state.hand_over:
            break
        state.play_legal(rng.choice(state.legal_moves()))
    return state


def groups(scene: Scene, css_class: str) -> list[Group]:
    found = []

    def walk(shapes):
        for shape in shapes:
            if isinstance(shape, Group):
                if css_class in shape.attrs.get("class", "").split():
                    found.append(shape)
                walk(shape.shapes)

    walk(scene.shapes)
    return found


@pytest.mark.parametrize("module", [spinner_v0, mexican_train_v0])
def test_rgb_array_is_an_image_of_fixed_size_for_every_step(module):
    env = module.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    shapes = set()
    for _ in range(12):
        frame = env.render()
        assert frame.dtype == np.uint8
        shapes.add(frame.shape)
        env.step(env.unwrapped.legal_actions()[0])
    assert shapes == {(HEIGHT, WIDTH, 3)}


@pytest.mark.parametrize(
    "state",
    [
        played(SpinnerState.new(SpinnerRules(num_players=4), seed=3), 25),
        played(MexicanTrainState.new(MexicanTrainRules(num_players=5), seed=3), 40),
    ],
    ids=["spinner", "mexican_train"],
)
def test_pictures_are_deterministic_and_differ_by_viewer(state):
    first = table_picture(state, state.current)
    again = table_picture(state.copy(), state.current)
    assert np.array_equal(first, again)
    assert to_svg(table_scene(state, 0)) == to_svg(table_scene(state.copy(), 0))
    other = (state.current + 1) % state.num_players
    assert not np.array_equal(first, table_picture(state, other))


def test_spinner_scene_draws_every_tile_once_and_only_the_viewers_hand():
    state = played(SpinnerState.new(SpinnerRules(num_players=4), seed=11), 30, seed=2)
    scene = table_scene(state, 1)
    hand = [g.attrs["data-tile"] for g in groups(scene, "hand-tile")]
    assert hand == [str(t) for t in state.hands[1]]
    assert [g.attrs["data-tile"] for g in groups(scene, "layout-tile")] == [
        str(p.tile) for p in state.layout
    ]
    seats = groups(scene, "seat")
    assert [g.attrs["data-seat"] for g in seats] == ["0", "1", "2", "3"]
    (boneyard,) = groups(scene, "boneyard")
    assert boneyard.attrs["data-count"] == str(len(state.boneyard))
    # S4.5: one target per open end value, the playable ones (S5.1, S5.2) marked.
    ends = groups(scene, "end")
    counts = state.open_end_counts()
    assert len(ends) == sum(1 for c in counts if c)
    playable = {g.attrs["data-end"] for g in ends if "playable" in g.attrs["class"]}
    assert playable == {"S" if v == 10 else str(v) for v in state.playable_ends()}


def test_hidden_tiles_never_reach_the_picture_of_another_seat():
    """S2.5: others' hands and the boneyard are hidden; only counts are drawn."""
    state = played(SpinnerState.new(SpinnerRules(num_players=3), seed=7), 20)
    svg = to_svg(table_scene(state, 0))
    named = set(re.findall(r'data-tile="([^"]+)"', svg))
    public = {str(p.tile) for p in state.layout}
    assert named == public | {str(t) for t in state.hands[0]}
    assert not named & {str(t) for t in state.boneyard + state.hands[1] + state.hands[2]}


def test_mexican_train_scene_shows_every_train_marker_and_target():
    state = played(MexicanTrainState.new(MexicanTrainRules(num_players=4), seed=3), 40, seed=1)
    scene = table_scene(state, state.current)
    drawn = [g.attrs["data-tile"] for g in groups(scene, "train-tile")]
    assert drawn == [str(t) for train in state.trains for t in train.tiles]
    targets = groups(scene, "train-end")
    assert [g.attrs["data-train"] for g in targets] == [str(t) for t in state.train_ids()]
    playable = {int(g.attrs["data-train"]) for g in targets if "playable" in g.attrs["class"]}
    assert playable == set(state.playable_trains())
    assert any(t.marker for t in state.trains)  # the deal exercises M4.3's markers


def test_spinner_tiles_are_marked_gold():
    """S1.3: the wild S half is drawn gold with a star, never as pips; a hand with S
    tiles shows gold in the hand row and one without shows none."""
    hands = ["9-9 1-2 3-4 1-1 2-2 3-3 4-4", "0-0 0-1 0-2 0-3 0-4 0-5 0-6", "5-6 5-7 5-8 6-6"]
    hands[2] += " 6-7 6-8 7-7"
    held = {parse(t) for hand in hands for t in hand.split()}
    boneyard = [t for t in ALL_TILES if t not in held]
    state = SpinnerState.from_position(hands, boneyard, SpinnerRules(num_players=3))
    gold = np.array([int(SPINNER_HALF[i : i + 2], 16) for i in (1, 3, 5)], np.uint8)

    def gold_in_hand_row(viewer: int) -> int:
        picture = table_picture(state, viewer)
        return int(np.all(picture[HAND_TOP:, :740] == gold, axis=-1).sum())

    assert gold_in_hand_row(1) == 0
    state.hands[1].append(state.boneyard.pop(state.boneyard.index(parse("3-S"))))
    assert gold_in_hand_row(1) > 100


def test_record_video_through_the_single_agent_wrapper(tmp_path):
    """Gymnasium's RecordVideo reads frames through SingleAgentEnv.render()."""
    pytest.importorskip("moviepy")
    env = SingleAgentEnv(
        spinner_v0.raw_env(num_players=2, num_hands=1, render_mode="rgb_array"),
        RandomAgent(seed=0),
        learner_seat=0,
    )
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True)
    env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, done, _, _ = env.step(int(np.flatnonzero(mask)[0]))
        steps += 1
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    assert steps > 1
