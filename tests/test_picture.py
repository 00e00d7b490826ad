"""Pictures of the table: ``render_mode="rgb_array"``, the scene behind it, its SVG twin."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from gymnasium.wrappers import RecordVideo
from spinner_env.agents import RandomAgent

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.core.match import MatchState
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.board import (
    BOARD_H,
    BOARD_W,
    BOARD_X,
    BOARD_Y,
    GridBox,
    TileSpot,
    fit_layout,
    fit_layout_exhaustively,
    lay_out,
)
from spinner_env.games.spinner.rules import (
    ALL_TILES,
    Place,
    SpinnerRules,
    SpinnerState,
    matches,
    parse,
)
from spinner_env.picture import (
    HAND_TOP,
    HEIGHT,
    WIDTH,
    WILD_HALF,
    Group,
    Rect,
    Scene,
    table_picture,
    table_scene,
    to_svg,
)
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
    gold = np.array([int(WILD_HALF[i : i + 2], 16) for i in (1, 3, 5)], np.uint8)

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


# ------------------------------------------------------ the Spinner layout as a table
def finished_or_mid_hands() -> list[SpinnerState]:
    """Random hands, 2 to 8 players, under the variants, played to their end or halfway."""
    states = []
    for num_players in range(2, 9):
        for seed in range(3):
            rules = SpinnerRules(
                num_players=num_players,
                draw_until_playable=seed == 1,
                shortened=seed == 2,
            )
            state = SpinnerState.new(rules, seed=100 * num_players + seed)
            states.append(played(state, 10_000 if seed != 2 else 30, seed=seed))
    return states


def layout_rects(scene: Scene) -> list[tuple[float, float, float, float]]:
    """Each layout tile's outline as (x0, y0, x1, y1), in the order the scene draws them."""
    rects = []
    for group in groups(scene, "layout-tile"):
        outline = group.shapes[0]
        assert isinstance(outline, Rect)
        rects.append((outline.x, outline.y, outline.x + outline.w, outline.y + outline.h))
    return rects


def overlap(a, b, eps: float = 1e-6) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > eps and min(a[3], b[3]) - max(a[1], b[1]) > eps


def shared_edge(a: GridBox, b: GridBox) -> int:
    """The length of the edge two boxes share (0 if they do not touch along an edge)."""
    if a.x1 == b.x0 or b.x1 == a.x0:
        return max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    if a.y1 == b.y0 or b.y1 == a.y0:
        return max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
    return 0


def halves_of(spot: TileSpot) -> list[tuple[GridBox, int]]:
    """A tile's halves as boxes with their values; a double (crosswise, one value) whole."""
    b = spot.box
    if spot.halves[0] == spot.halves[1]:
        return [(b, spot.halves[0])]
    if spot.upright:
        mid = (b.y0 + b.y1) // 2
        return [(GridBox(b.x0, b.y0, b.x1, mid), spot.halves[0]),
                (GridBox(b.x0, mid, b.x1, b.y1), spot.halves[1])]  # fmt: skip
    mid = (b.x0 + b.x1) // 2
    return [(GridBox(b.x0, b.y0, mid, b.y1), spot.halves[0]),
            (GridBox(mid, b.y0, b.x1, b.y1), spot.halves[1])]  # fmt: skip


def test_spinner_layout_tiles_never_overlap_and_lie_on_the_board():
    """Over random hands of 2-8 players: every placed tile drawn once, in order of play,
    no two on top of each other, all inside the board (S4.1: the layout is one tree)."""
    for state in finished_or_mid_hands():
        scene = table_scene(state, state.current)
        tiles = [g.attrs["data-tile"] for g in groups(scene, "layout-tile")]
        assert tiles == [str(p.tile) for p in state.layout]
        rects = layout_rects(scene)
        for i, a in enumerate(rects):
            assert a[0] >= BOARD_X and a[2] <= BOARD_X + BOARD_W, (state.layout[i], a)
            assert a[1] >= BOARD_Y and a[3] <= BOARD_Y + BOARD_H, (state.layout[i], a)
            for b in rects[i + 1 :]:
                assert not overlap(a, b), (a, b)


def test_spinner_layout_tiles_touch_the_tile_they_join_at_matching_halves():
    """S4.2: each tile lies against the end it joins, the halves that touch match (S is
    wild), and no end takes two tiles. A tile lies apart from its end only where the grid
    had no room beside it (drawn with a line to it): rare, and never in most hands."""
    apart = total = 0
    for state in finished_or_mid_hands():
        _, table = fit_layout(tuple(state.layout))
        spots = {spot.index: spot for spot in table.spots}
        assert sorted(spots) == list(range(len(state.layout)))
        used_ends = [spot.joins for spot in table.spots if spot.joins is not None]
        assert len(used_ends) == len(set(used_ends)) == len(state.layout) - 1
        for spot in table.spots[1:]:
            total += 1
            placed = state.layout[spot.index]
            parent = spots[spot.joins.owner]
            assert parent.index < spot.index
            assert spot.joins.value == placed.end  # the end's value is the one played on
            if not spot.touching:
                apart += 1
                continue
            touching = [
                (mine, theirs)
                for box, mine in halves_of(spot)
                for other, theirs in halves_of(parent)
                if shared_edge(box, other) >= 2
            ]
            assert touching, (placed, spot, parent)
            assert all(matches(mine, theirs) or matches(theirs, mine) for mine, theirs in touching)
    assert apart <= total // 20, (apart, total)


def test_a_longer_spinner_layout_keeps_the_spots_of_the_shorter():
    """The picture of a hand does not jump about from move to move while its size holds."""
    state = played(SpinnerState.new(SpinnerRules(num_players=4), seed=5), 10_000, seed=1)
    bounds = GridBox(-30, -20, 30, 20)
    whole = lay_out(state.layout, bounds)
    assert whole is not None
    for k in (1, 5, len(state.layout) // 2):
        part = lay_out(state.layout[:k], bounds)
        assert part is not None and part.spots == whole.spots[:k]


def test_fit_layout_is_the_exhaustive_fit_however_layouts_come():
    """``fit_layout`` lays only a layout's new tiles on the tables of a layout a few tiles
    shorter where it has them: over random hands of 2-8 players its answer is that of
    laying the layout afresh at every size, with layouts coming in order of play, with
    two continuations of the same layout (a move not played, on a copy), with every third
    layout of a hand only, and with a hand's layouts again, in random order (no shorter
    layout's tables at hand, or stale ones). Every eighth answer is checked: laying afresh
    at every size is slow."""
    rng = random.Random(7)
    layouts, gaps = [], []
    for seed, num_players in enumerate((2, 3, 5, 8)):
        state = SpinnerState.new(SpinnerRules(num_players=num_players), seed=seed)
        hand = []
        while not state.hand_over:
            legal = state.legal_moves()
            if len(legal) > 1:
                other = state.copy()
                other.play_legal(legal[-1])
                hand.append(tuple(other.layout))
            state.play_legal(rng.choice(legal))
            hand.append(tuple(state.layout))
        layouts += hand
        gaps += [layout for layout in hand if len(layout) % 3 == 0]
    fit_layout.cache_clear()
    for k, layout in enumerate(layouts + gaps + rng.sample(layouts, len(layouts) // 8)):
        fitted = fit_layout.__wrapped__(layout)
        if k % 8 == 0:
            assert fitted == fit_layout_exhaustively(layout), layout


def test_s4_4_a_double_opens_three_arms_drawn_on_three_sides():
    """S4.4, S5.1: 5-5 on a 5 end stands crosswise and the next three tiles, 5-1, 5-2 and
    5-3, lie on its three arms (straight on and out of both short sides), each with its 5
    against the double; S3.4: the set's two arms leave its two long sides."""
    seat0 = "9-9 9-8 5-1 5-3 0-0 0-2 0-3 0-4 1-2 1-3 1-4 2-3 2-4 3-4"
    seat1 = "9-5 5-5 5-2 6-6 6-7 6-8 7-7 7-8 8-8 0-6 0-7 1-6 1-7 2-6"
    held = {parse(t) for t in (seat0 + " " + seat1).split()}
    boneyard = [t for t in ALL_TILES if t not in held]
    state = SpinnerState.from_position([seat0, seat1], boneyard)
    for tile, end, opens in (("9-5", 9, 5), ("9-8", 9, 8), ("5-5", 5, 5),
                             ("5-1", 5, 1), ("5-2", 5, 2), ("5-3", 5, 3)):  # fmt: skip
        state.apply(Place(parse(tile), end, opens))
    _, table = fit_layout(tuple(state.layout))
    spot = {str(state.layout[s.index].tile): s for s in table.spots}
    the_set, double = spot["9-9"], spot["5-5"]
    assert the_set.upright and not spot["5-9"].upright and not spot["8-9"].upright
    assert {shared_edge(spot[t].box, the_set.box) for t in ("5-9", "8-9")} == {2}
    assert spot["5-9"].box.x0 == the_set.box.x1 or spot["5-9"].box.x1 == the_set.box.x0
    # Crosswise: the double stands across the line it closes.
    assert double.upright != spot["5-9"].upright
    assert shared_edge(double.box, spot["5-9"].box) == 2
    arms = [spot[t] for t in ("1-5", "2-5", "3-5")]
    assert all(a.joins is not None and a.joins.owner == 3 and a.touching for a in arms)
    assert len({a.joins.heading for a in arms}) == 3  # three different sides
    for arm in arms:
        against = [value for box, value in halves_of(arm) if shared_edge(box, double.box)]
        assert against == [5]
    assert table.waiting_arms == []
    scene = table_scene(state, 0)
    assert len(layout_rects(scene)) == 7


def test_a_state_of_no_game_has_no_picture():
    """The board is the game's, found through the registry (``games.game_of``)."""
    with pytest.raises(ValueError, match="no game of the suite"):
        table_scene(object(), 0)
