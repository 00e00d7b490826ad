"""What a learned residual reads beside the valuation's terms (each game's ``INPUTS``,
``spinner_env.games.<game>.features``): each group checked against a count made tile by
tile from the observation, a residual that reads groups plays them and keeps them in its
file (format 7), policy iteration values them and learns from them."""

from __future__ import annotations

import numpy as np
import pytest
import test_policy_iteration as policy_iteration_tests
import yaml
from spinner_env.agents.features import Residual, ValuationPolicy
from spinner_env.agents.policy import PolicyAgent, load_policy
from spinner_env.train.config import ResidualConfig, config_path, load_config
from spinner_env.train.policy_iteration import (
    Values,
    fit_residual,
    policy_file,
    rollout_values,
)

from spinner_env import spinner_v0
from spinner_env.games.mexican_train.features import EXPERT as MEXICAN_TRAIN_EXPERT
from spinner_env.games.mexican_train.features import INPUTS as MEXICAN_TRAIN_INPUTS
from spinner_env.games.mexican_train.rollout import MexicanTrainRollouts
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.batched import (
    ACTION_END,
    ACTION_OPENS,
    ACTION_TILE,
    TILE_HIGH,
    TILE_LOW,
    TILE_POINTS,
    BatchedSpinner,
)
from spinner_env.games.spinner.batched_players import HeuristicPolicy
from spinner_env.games.spinner.encoding import OBSERVATION_SLICES as SL
from spinner_env.games.spinner.features import EXPERT as SPINNER_EXPERT
from spinner_env.games.spinner.features import INPUTS as SPINNER_INPUTS
from spinner_env.games.spinner.rules import NUM_VALUES, SpinnerRules

GROUPS = ("position", "move")


def decisions(count: int, seed: int, players: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` decisions with a choice, from expert play."""
    engine = BatchedSpinner(64, SpinnerRules(num_players=players), reward="hand_score")
    expert = HeuristicPolicy(SPINNER_EXPERT.defaults, "expert")
    out = engine.reset(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < count:
        choice = out.mask.sum(axis=1) >= 2
        obs.append(out.obs[choice].copy())
        masks.append(out.mask[choice].copy())
        out = engine.step(expert.act_batch(out.obs, out.mask))
    return np.concatenate(obs)[:count], np.concatenate(masks)[:count]


def test_mexican_train_position_is_what_the_reference_state_holds():
    """M6.4 (hand sizes), M1.3 (the hand's points), M2.2 (the round), M4.2 and M5.2 (drew,
    the extra placement), M5.3 (unsatisfied doubles), M3.4 (markers), M3.3 and M5.3-M5.4
    (the trains open now), M7 (known voids): each number of Mexican Train's ``position``
    group, by seat relative to the one to act, from the reference state of the same record
    (the batched engine's play of 4-player rounds by the expert)."""
    rules = MexicanTrainRules(num_players=4)
    games, obs, masks = policy_iteration_tests.decisions(1000, 5, "mexican_train")
    _, rows, actions, _ = MEXICAN_TRAIN_EXPERT.scored_terms(
        obs, masks, MEXICAN_TRAIN_EXPERT.defaults
    )
    position = MEXICAN_TRAIN_EXPERT.group_inputs(
        np.ascontiguousarray(obs), rows, actions, ["position"]
    )
    assert position.shape[1] == MEXICAN_TRAIN_INPUTS[0].size
    checked = 0
    for k in range(0, len(rows), 5):
        state = MexicanTrainRollouts.state_of(games[rows[k]], rules)
        me, n = state.current, state.num_players
        seats = [(me + r) % n for r in range(n)]
        padding = [0] * (8 - n)
        expected = [
            *[len(state.hands[s]) for s in seats],
            *padding,
            len(state.boneyard),
            sum(t.pips for t in state.hands[me]),
            state.hand_number,
            state.drew_this_turn,
            state.extra_placement,
            len(state.unsatisfied),
            *[state.trains[s].marker for s in seats],
            *padding,
            len(state.playable_trains()),
            *[len(state.voids[s]) for s in seats[1:]],
            *padding,
        ]
        np.testing.assert_array_equal(position[k], expected)
        checked += 1
    assert checked > 300


def test_each_group_reads_the_position_and_the_move_as_a_count_by_tile_finds_them():
    """S4 (where a tile goes and what it opens), S1.4 (its points), S8 (known voids): every
    number of both groups, for every legal placement of 300 decisions at 4 players, equals
    what a count over the observation's tiles gives."""
    obs, masks = decisions(300, 1)
    _, rows, actions, _ = SPINNER_EXPERT.scored_terms(obs, masks, SPINNER_EXPERT.defaults)
    position, move = (SPINNER_EXPERT.group_inputs(obs, rows, actions, [name]) for name in GROUPS)
    assert [g.size for g in SPINNER_INPUTS] == [position.shape[1], move.shape[1]]
    for k in range(0, len(rows), 7):
        seat, action = obs[rows[k]], actions[k]
        hand = np.flatnonzero(seat[SL["hand"]])
        voids = seat[SL["voids"]].reshape(-1, NUM_VALUES)[1:]
        expected_position = [
            *seat[SL["hand_sizes"]],
            seat[SL["boneyard"]][0],
            sum(TILE_POINTS[t] for t in hand),
            int(np.argmax(seat[SL["hand_number"]])),
            seat[SL["drew"]][0],
            sum(seat[SL["unfilled"]].reshape(-1, NUM_VALUES + 1)[:, -1] > 0),
            seat[SL["playable_ends"]].sum(),
            *voids.sum(axis=1),
        ]
        np.testing.assert_array_equal(position[k], expected_position)
        tile, end, opens = ACTION_TILE[action], ACTION_END[action], ACTION_OPENS[action]
        assert tile in hand
        rest = [t for t in hand if t != tile]
        held = [sum(v in (TILE_LOW[t], TILE_HIGH[t]) for t in rest) for v in range(NUM_VALUES)]
        free = seat[SL["free_ends"]].copy()
        free[end] -= 1
        if opens >= 0:
            free[opens] += 1
        expected_move = [
            *np.eye(NUM_VALUES)[end],
            *(np.eye(NUM_VALUES)[opens] if opens >= 0 else np.zeros(NUM_VALUES)),
            TILE_POINTS[tile],
            TILE_LOW[tile] == TILE_HIGH[tile],
            *held,
            *free,
            *voids.ravel(),
        ]
        np.testing.assert_array_equal(move[k], expected_move)
    both = SPINNER_EXPERT.group_inputs(obs, rows, actions, GROUPS)
    np.testing.assert_array_equal(both, np.concatenate([position, move], axis=1))


def residual_of(groups: tuple[str, ...], seed: int) -> Residual:
    """A residual with random numbers reading ``groups`` beside the terms."""
    rng = np.random.default_rng(seed)
    size = SPINNER_EXPERT.input_size(groups, "groups")
    return Residual(
        rng.normal(size=size),
        rng.uniform(0.5, 2.0, size),
        (
            (rng.normal(size=(8, size)), rng.normal(size=8)),
            (rng.normal(size=(1, 8)) * 20, np.zeros(1)),
        ),
        groups,
    )


def test_a_residual_that_reads_groups_plays_them_and_keeps_them_in_its_file(tmp_path):
    """Format 7 keeps a residual's input groups; its agent plays the best move of the
    weights' scores plus the residual of each move's terms and groups, and the groups
    change moves that the terms alone would not."""
    config = load_config("spinner_4p_residual")
    weights = SPINNER_EXPERT.checked(config.feature_weights["expert"], "weights")
    residual = residual_of(GROUPS, 4)
    path = policy_file(config, weights, 1, tmp_path / "groups.safetensors", residual)
    header = load_policy(path)[1]
    assert header.format_version == 7
    assert header.feature_residuals["expert"].inputs == GROUPS
    obs, masks = decisions(400, 2)
    scores, rows, actions, terms = SPINNER_EXPERT.scored_terms(obs, masks, weights, True)
    read = np.concatenate([terms, SPINNER_EXPERT.group_inputs(obs, rows, actions, GROUPS)], 1)
    corrected = scores.copy()
    corrected[rows, actions] += residual(read)
    played = PolicyAgent.load(path, spinner_v0.ENCODING).act_batch(obs, masks)
    np.testing.assert_array_equal(played, corrected.argmax(axis=1))
    np.testing.assert_array_equal(
        played, ValuationPolicy(SPINNER_EXPERT, weights, residual).act_batch(obs, masks)
    )
    terms = len(SPINNER_EXPERT.linear)
    (hidden, bias), out = residual.layers
    terms_alone = Residual(
        residual.mean[:terms], residual.scale[:terms], ((hidden[:, :terms], bias), out)
    )
    assert (
        ValuationPolicy(SPINNER_EXPERT, weights, terms_alone).act_batch(obs, masks) != played
    ).any()


def test_a_residual_written_before_groups_reads_the_terms_alone():
    """Format 6 residuals have no ``inputs``: they read as residuals of the terms."""
    residual = residual_of((), 1)
    data = residual.as_dict()
    assert data.pop("inputs") == []
    again = Residual.from_dict(data, "old")
    assert again.inputs == () and again.as_dict() == residual.as_dict()


def test_the_residual_learns_from_its_groups_what_the_terms_cannot_show():
    """Values whose departure from the linear fit depends on the position (a group
    input), not on the move's terms: a residual reading the group finds it, one reading the
    terms alone cannot."""
    rng = np.random.default_rng(5)
    roots, size = 6000, len(SPINNER_EXPERT.linear)
    root_of = np.repeat(np.arange(roots), 4)
    terms = rng.normal(size=(len(root_of), size))
    position = np.repeat(rng.normal(size=(roots, SPINNER_INPUTS[0].size)), 4, axis=0)
    weights = SPINNER_EXPERT.defaults.copy()
    weights[SPINNER_EXPERT.linear] = rng.normal(size=size)
    depends = 4.0 * np.sign(position[:, 0]) * terms[:, 1]  # late or early, this term flips
    values = terms @ weights[SPINNER_EXPERT.linear] + depends + rng.normal(size=len(root_of))
    data = Values(terms, values, root_of, roots, position.astype(np.float32))
    fits = {}
    for groups in ([], ["position"]):
        settings = ResidualConfig(
            layers=[16], epochs=20, learning_rate=0.01, minibatch_roots=256, inputs=groups
        )
        residual, fits[len(groups)] = fit_residual(data, SPINNER_EXPERT, weights, settings, 0)
        assert list(residual.inputs) == groups
    assert fits[1]["held_out_error"] < 0.3 * fits[0]["held_out_error"]
    assert fits[1]["held_out_gain"] - fits[1]["held_out_gain_interval"] > fits[0]["held_out_gain"]
    with pytest.raises(ValueError, match="no input groups in the values"):
        fit_residual(Values(terms, values, root_of, roots), SPINNER_EXPERT, weights, settings, 0)


def test_rollouts_value_each_moves_groups_with_it(tmp_path):
    """With ``residual.inputs`` each valued move carries its groups: the position the same
    for every move of a root, the move's own end different between moves."""
    data = {
        **yaml.safe_load(config_path("spinner_4p_residual").read_text()),
        "policy_iteration": {
            "generations": 1, "batches": 1, "games": 16, "steps": 30,
            "residual": {"inputs": list(GROUPS)},
        },
    }  # fmt: skip
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_config(path)
    weights = SPINNER_EXPERT.checked(config.feature_weights["expert"], "weights")
    values = rollout_values(config, weights, 3)
    sizes = [g.size for g in SPINNER_INPUTS]
    assert values.inputs.shape == (len(values.values), sum(sizes)) and values.num_roots > 20
    position, move = values.inputs[:, : sizes[0]], values.inputs[:, sizes[0] :]
    first = np.searchsorted(values.roots, values.roots)
    np.testing.assert_array_equal(position, position[first])
    assert (move[:, :NUM_VALUES].sum(axis=1) == 1).all()  # one end each
    differs = (move != move[first]).any(axis=1)
    assert differs.sum() > 0.5 * (len(values.values) - values.num_roots)
