"""Policy iteration by rollouts (spinner_env.train.policy_iteration,
spinner-policy-iteration): both games' expert valuations are linear in their weights (so a
regression on their terms is a fit of their weights), the fit recovers weights that made the
values, the moves' values are the hand's end as the reference engine plays it, every
generation's policy file plays its weights' moves and carries them (format 5; format 6
adds a learned residual of the moves' terms, which it plays too), the same
weights come from every executor backend, and bad input is one clear error."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml
from safetensors import safe_open
from safetensors.torch import save_file
from spinner_env.agents import make_agent
from spinner_env.agents.features import (
    FEATURES,
    ObservationFeatures,
    Residual,
    ValuationPolicy,
)
from spinner_env.agents.policy import PolicyAgent, load_policy
from spinner_env.train.config import ResidualConfig, load_config
from spinner_env.train.executor import Executor
from spinner_env.train.exploit import target_start
from spinner_env.train.policy_iteration import (
    REPORT,
    RolloutStart,
    Values,
    _value_roots,
    fit_residual,
    fit_weights,
    linear_check,
    main,
    policy_file,
    policy_iteration,
    rollout_values,
    valuation_of,
)
from spinner_env.train.ppo import init_weights as start_model_from
from spinner_env.train.ppo import limit_threads, make_model, make_pool, make_training_env, train

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.core.agent import choose_move
from spinner_env.core.encoding import hand_score_difference
from spinner_env.games import game_spec
from spinner_env.games.mexican_train.batched import BatchedMexicanTrain
from spinner_env.games.mexican_train.batched_expert import MexicanTrainExpertPolicy
from spinner_env.games.mexican_train.features import EXPERT as MEXICAN_TRAIN_EXPERT
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.batched import BatchedSpinner
from spinner_env.games.spinner.batched_players import HeuristicPolicy
from spinner_env.games.spinner.expert import SpinnerExpertWeights
from spinner_env.games.spinner.features import EXPERT as SPINNER_EXPERT
from spinner_env.games.spinner.rules import SpinnerRules

RESEARCH_CONFIGS = Path(__file__).resolve().parent.parent / "research" / "configs"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    limit_threads(1)


def tiny(**section) -> dict:
    return {
        "name": "tiny",
        "game": "spinner",
        "num_players": 2,
        "total_timesteps": 1,
        "seed": 3,
        "env": {"reward": "hand_score", "episode": "hand"},
        "features": ["expert"],
        "prior": {"feature": "expert", "scale": 30.0},
        "ppo": {"policy_kwargs": {"net_arch": [16]}},
        "policy_iteration": {
            "generations": 1,
            "batches": 2,
            "games": 32,
            "steps": 40,
            "eval_matches": 2,
            **section,
        },
    }


def write_config(folder: Path, data: dict | None = None, **section) -> Path:
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(data or tiny(**section)))
    return path


def table(game: str, size: int) -> tuple[Any, Any, Any]:
    """The batched engine of ``size`` hand (round) episodes of ``game`` (Spinner at 2
    players, Mexican Train at 4), its rules and its expert's batched policy."""
    if game == "spinner":
        rules = SpinnerRules(num_players=2)
        expert = HeuristicPolicy(SpinnerExpertWeights().as_array(), "expert")
        return BatchedSpinner(size, rules, reward="hand_score", episode="hand"), rules, expert
    rules = MexicanTrainRules(num_players=4)
    expert = MexicanTrainExpertPolicy(MEXICAN_TRAIN_EXPERT.defaults)
    return BatchedMexicanTrain(size, rules, reward="hand_score", episode="hand"), rules, expert


def decisions(
    count: int, seed: int, game: str = "spinner"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Records, observations and masks of ``count`` decisions with a choice, from expert
    play on the batched engine (:func:`table`)."""
    engine, _, expert = table(game, 64)
    out = engine.reset(seed)
    games, obs, masks = [], [], []
    while sum(len(g) for g in games) < count:
        choice = out.mask.sum(axis=1) >= 2
        games.append(engine.games[choice].copy())
        obs.append(out.obs[choice].copy())
        masks.append(out.mask[choice].copy())
        out = engine.step(expert.act_batch(out.obs, out.mask))
    return (np.concatenate(column)[:count] for column in (games, obs, masks))


@pytest.mark.parametrize("phases", [False, True])
def test_spinner_expert_scores_are_its_terms_times_its_weights(phases):
    """The regression is a fit of the weights only because the score is linear in them:
    the player's own, and with ``phases`` the phase weights too (random where they are
    fitted, 0 where not), late in the hand as early."""
    _, obs, masks = decisions(3000, 1)
    rng = np.random.default_rng(0)
    weights = SPINNER_EXPERT.defaults * np.exp(rng.normal(0, 0.5, len(SPINNER_EXPERT.defaults)))
    own = SPINNER_EXPERT.player_weights
    weights[own:] = rng.normal(0, 3, len(weights) - own) if phases else 0.0
    scores = SPINNER_EXPERT.scores(obs, masks, weights)
    terms = SPINNER_EXPERT.terms(obs, masks, weights, phases)
    linear = SPINNER_EXPERT.linear_of(phases)
    assert len(linear) == (33 if phases else 12)
    finite = np.isfinite(scores)
    assert finite.sum() > 1000
    np.testing.assert_allclose((terms @ weights[linear])[finite], scores[finite])
    assert "late_hand_size" not in [SPINNER_EXPERT.weight_names[i] for i in linear]


def test_phase_weights_add_their_share_of_lateness_to_the_players_weights():
    """``late_<w>`` adds to weight w its value times the lateness of the smallest opposing
    hand, ``own_late_<w>`` times that of the player's own (spinner_weights' docstring):
    each decision scores as the expert with weights changed so."""
    _, obs, masks = decisions(3000, 3)
    names = SPINNER_EXPERT.weight_names
    phased = SPINNER_EXPERT.defaults.copy()
    phased[names.index("late_block_next")] = 30.0
    phased[names.index("own_late_points")] = -2.0
    phased[names.index("own_late_keep_wild")] = 40.0
    sizes = obs[:, spinner_v0.OBSERVATION_SLICES["hand_sizes"]]
    late = phased[names.index("late_hand_size")]
    lateness = np.maximum(0, late + 1 - sizes[:, 1]) / late  # 2 players: the one opponent
    own_lateness = np.maximum(0, late + 1 - sizes[:, 0]) / late
    assert (lateness > 0).sum() > 20 and (own_lateness > 0).sum() > 20
    for row in np.flatnonzero((lateness > 0) | (own_lateness > 0) | (np.arange(len(obs)) < 50)):
        plain = SPINNER_EXPERT.defaults.copy()
        plain[names.index("block_next")] += 30.0 * lateness[row]
        plain[names.index("points")] -= 2.0 * own_lateness[row]
        plain[names.index("keep_wild")] += 40.0 * own_lateness[row]
        np.testing.assert_allclose(
            SPINNER_EXPERT.scores(obs[row : row + 1], masks[row : row + 1], phased),
            SPINNER_EXPERT.scores(obs[row : row + 1], masks[row : row + 1], plain),
        )


@pytest.mark.parametrize("name", ["own_stuck", "late_block_next", "own_late_keep_wild"])
def test_any_one_of_the_experts_weights_turns_its_terms_on(name):
    """The heuristic's weights and one of the expert's (or a phase weight of one): its
    consideration counts, as it would beside the others."""
    _, obs, masks = decisions(3000, 5)
    names = SPINNER_EXPERT.weight_names
    heuristic = SPINNER_EXPERT.defaults.copy()
    heuristic[[names.index(n) for n in ("block_next", "keep_wild", "own_stuck")]] = 0.0
    alone, beside = heuristic.copy(), SPINNER_EXPERT.defaults.copy()
    alone[names.index(name)] = beside[names.index(name)] = 30.0
    expert_less = beside.copy()
    expert_less[names.index(name)] = 0.0
    with np.errstate(invalid="ignore"):  # inf - inf where a move goes out
        gained = SPINNER_EXPERT.scores(obs, masks, alone) - SPINNER_EXPERT.scores(
            obs, masks, heuristic
        )
        expected = SPINNER_EXPERT.scores(obs, masks, beside) - SPINNER_EXPERT.scores(
            obs, masks, expert_less
        )
    finite = np.isfinite(gained)
    assert (gained[finite] != 0).sum() > 20
    np.testing.assert_allclose(gained[finite], expected[finite])


def test_weights_written_before_the_phase_weights_still_read():
    """A file or config with the expert's 13 weights: the phase weights at 0; any other
    count is one clear error."""
    own = SPINNER_EXPERT.defaults[: SPINNER_EXPERT.player_weights]
    np.testing.assert_array_equal(SPINNER_EXPERT.checked(own, "w"), SPINNER_EXPERT.defaults)
    with pytest.raises(ValueError, match=r"w must be 13 numbers .* or those and 21 more"):
        SPINNER_EXPERT.checked(own[:-1], "w")


def test_mexican_train_expert_scores_are_its_terms_times_its_weights():
    """Its value is linear in all its weights but ``late_hand_size`` (and which follow-up
    of a double is best, M5.2): policy iteration fits them."""
    _, obs, masks = decisions(2000, 1, "mexican_train")
    weights = MEXICAN_TRAIN_EXPERT.defaults * np.exp(np.random.default_rng(0).normal(0, 0.5, 8))
    scores = MEXICAN_TRAIN_EXPERT.scores(obs, masks, weights)
    terms = MEXICAN_TRAIN_EXPERT.terms(obs, masks, weights)
    linear = MEXICAN_TRAIN_EXPERT.linear
    assert [MEXICAN_TRAIN_EXPERT.weight_names[i] for i in linear] == [
        "orphan", "stranded", "points", "late_points", "exposed", "marked_train", "block_next"
    ]  # fmt: skip
    finite = np.isfinite(scores)
    assert finite.sum() > 1000
    np.testing.assert_allclose((terms @ weights[linear])[finite], scores[finite])


def test_a_mexican_train_generation_leaves_a_policy_that_plays_its_weights(tmp_path):
    data = tiny(games=16, steps=60)
    data.update(game="mexican_train", num_players=4)
    config = load_config(write_config(tmp_path, data))
    path, report = policy_iteration(config, tmp_path / "run")
    generation = report["generations"][0]
    assert generation["roots"] > 50 and generation["moves_valued"] > 2 * generation["roots"]
    weights = np.array(generation["weights"])
    late_hand_size = MEXICAN_TRAIN_EXPERT.weight_names.index("late_hand_size")
    assert weights[late_hand_size] == MEXICAN_TRAIN_EXPERT.defaults[late_hand_size]
    assert not np.allclose(weights, MEXICAN_TRAIN_EXPERT.defaults)
    assert load_policy(path)[1].feature_weights == {"expert": tuple(weights)}
    agent = PolicyAgent.load(path, mexican_train_v0.ENCODING)
    _, obs, masks = decisions(300, 3, "mexican_train")
    played = agent.act_batch(obs, masks)
    assert (played == MexicanTrainExpertPolicy(weights).act_batch(obs, masks)).all()
    expert = MexicanTrainExpertPolicy(MEXICAN_TRAIN_EXPERT.defaults)
    assert (played != expert.act_batch(obs, masks)).any()


@pytest.mark.parametrize("phases", [False, True])
def test_the_fit_recovers_the_weights_that_made_the_values(phases):
    rng = np.random.default_rng(5)
    roots = np.repeat(np.arange(4000), 6)
    linear = SPINNER_EXPERT.linear_of(phases)
    terms = rng.normal(size=(len(roots), len(SPINNER_EXPERT.linear)))
    truth = rng.normal(size=len(linear)) * 3
    fitted_terms = terms[:, [SPINNER_EXPERT.linear.index(i) for i in linear]]
    # Each root's own level (its position's worth) is no part of any move's advantage.
    values = fitted_terms @ truth + rng.normal(size=4000)[roots] * 20 + rng.normal(size=len(roots))
    fitted = fit_weights(
        Values(terms, values, roots, 4000), SPINNER_EXPERT, SPINNER_EXPERT.defaults, phases
    )
    np.testing.assert_allclose(fitted[linear], truth, atol=0.05)
    untouched = [i for i in range(len(fitted)) if i not in linear]
    assert SPINNER_EXPERT.weight_names.index("late_hand_size") in untouched
    np.testing.assert_array_equal(fitted[untouched], SPINNER_EXPERT.defaults[untouched])


def test_the_linear_check_measures_the_fit_on_roots_it_did_not_see():
    """Values made by some weights (plus noise): the fit without the held-out roots picks
    better moves there than weights far from them, and no better than those weights."""
    rng = np.random.default_rng(6)
    roots = np.repeat(np.arange(6000), 4)
    terms = rng.normal(size=(len(roots), len(MEXICAN_TRAIN_EXPERT.linear)))
    truth = MEXICAN_TRAIN_EXPERT.defaults.copy()
    values = terms @ truth[MEXICAN_TRAIN_EXPERT.linear] + rng.normal(size=len(roots)) * 3
    data = Values(terms, values, roots, 6000)
    wrong = truth.copy()
    wrong[MEXICAN_TRAIN_EXPERT.linear] *= rng.choice([-1.0, 1.0], len(MEXICAN_TRAIN_EXPERT.linear))
    from_wrong = linear_check(data, MEXICAN_TRAIN_EXPERT, wrong, False, 0.1)
    assert from_wrong["held_out_roots"] == 600
    assert from_wrong["held_out_gain"] - from_wrong["held_out_gain_interval"] > 1.0
    from_truth = linear_check(data, MEXICAN_TRAIN_EXPERT, truth, False, 0.1)
    assert abs(from_truth["held_out_gain"]) < 0.2


@pytest.mark.parametrize("game", ["spinner", "mexican_train"])
def test_a_moves_value_is_the_hand_played_out_on_the_reference_engine(game):
    """S7's hand score (M6.2's round score) of the seat once the move is made and the
    expert plays every seat, as the reference engine plays it from the same position (the
    true hidden hands). Spinner's expert plays in one compiled call; Mexican Train's,
    which has no compiled opponent kind, through its valuation from Python."""
    games, _, masks = decisions(12, 2, game)
    engine, rules, _ = table(game, 1)
    spec = game_spec(game)
    valuation = FEATURES["expert"][spec.encoding.game_name].valuation
    weights = valuation.defaults
    kinds = np.full(engine.max_players, spec.opponents().OPPONENT_HEURISTIC, np.int64)
    player = None if game == "spinner" else ValuationPolicy(valuation, weights)
    expert = make_agent("expert")
    rollouts = spec.rollouts()
    checked = 0
    for game_record, mask in zip(games, masks, strict=True):
        seat = int(game_record["current"])
        engine.games[0] = game_record
        obs = engine.observe(np.array([seat]))
        args = (engine, valuation, weights, kinds, game_record[None], obs, mask[None])
        got = _value_roots(*args, player)
        if got.num_roots == 0:  # a move goes out: the root is left out
            continue
        for action, value in zip(np.flatnonzero(mask), got.values, strict=True):
            state = rollouts.state_of(game_record, rules)
            state.apply(spec.encoding.move_of(int(action)))
            while not state.hand_over:
                state.apply(choose_move(expert, state, spec.encoding))
            assert value == pytest.approx(
                100 * hand_score_difference(state.results[-1].points)[seat]
            )
            checked += 1
    assert checked > 10


def test_every_generation_leaves_a_policy_that_plays_its_weights(tmp_path):
    config = load_config(write_config(tmp_path))
    path, report = policy_iteration(config, tmp_path / "run")
    assert path == tmp_path / "run" / "generation_1.safetensors"
    saved = json.loads((tmp_path / "run" / REPORT).read_text())
    assert saved == json.loads(json.dumps(report))
    generation = report["generations"][0]
    assert generation["roots"] > 100 and generation["moves_valued"] > 3 * generation["roots"]
    assert set(generation["strength"]) == {"expert", "previous"}
    weights = np.array(generation["weights"])
    assert not np.allclose(weights, SPINNER_EXPERT.defaults)
    header = load_policy(path)[1]
    assert (header.format_version, header.feature_weights) == (7, {"expert": tuple(weights)})
    assert header.feature_residuals == {}  # the config fits none
    assert header.value is None  # no value head is trained: the file claims none
    again = policy_file(config, weights, 1, tmp_path / "again.safetensors")
    # A file is its config, weights and generation (the header's key order may vary).
    (policy, again_header), (run_policy, _) = load_policy(again), load_policy(path)
    assert again_header == header
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, run_policy.state_dict()[name])
    agent = PolicyAgent.load(path, spinner_v0.ENCODING)
    _, obs, masks = decisions(300, 3)
    played = agent.act_batch(obs, masks)
    assert (played == HeuristicPolicy(weights, "fitted").act_batch(obs, masks)).all()
    assert (
        played != HeuristicPolicy(SPINNER_EXPERT.defaults, "expert").act_batch(obs, masks)
    ).any()
    assert (tmp_path / "run" / "policy_iteration.png").stat().st_size > 0


def test_the_weights_are_the_same_in_process_and_on_two_workers(tmp_path):
    config = load_config(write_config(tmp_path, games=16, steps=30))
    weights = np.array(SPINNER_EXPERT.defaults)
    here = [rollout_values(config, weights, seed) for seed in (11, 12)]
    there = list(Executor(workers=2).map(RolloutStart(config, tuple(weights)), [11, 12]))
    for mine, theirs in zip(here, there, strict=True):
        np.testing.assert_array_equal(mine.values, theirs.values)
        np.testing.assert_array_equal(mine.terms, theirs.terms)


def test_a_file_with_feature_weights_starts_only_a_config_with_the_same(tmp_path):
    config = load_config(write_config(tmp_path))
    path, report = policy_iteration(config, tmp_path / "run")
    weights = report["generations"][0]["weights"]
    same = config.replace(init_from=str(path), feature_weights={"expert": weights})
    model = make_model(same, make_training_env(same, make_pool(same, 0)), None, 0)
    start_model_from(model, path, same)
    with pytest.raises(ValueError, match="feature weights"):
        start_model_from(model, path, same.replace(feature_weights={}))
    features = same.observation_features()
    assert (features.weights["expert"] == np.array(weights)).all()


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"expert": [1.0]}, "must be 13 numbers"),
        ({"expert": [float("nan")] * 13}, "finite"),
        ({"plan": [1.0]}, "not among"),
    ],
)
def test_bad_feature_weights_are_a_value_error_naming_them(weights, message):
    with pytest.raises(ValueError, match=message):
        ObservationFeatures(("expert",), spinner_v0.ENCODING, weights)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"policy_iteration": {"root_share": 0}}, "root_share must be in"),
        ({"policy_iteration": {"games": 0}}, "games must be at least 1"),
        ({"prior": None}, "needs a prior"),
        ({"policy_iteration": None}, "needs a policy_iteration section"),
        ({"feature_weights": {"expert": [1, 2]}}, "13 numbers"),
        ({"policy_iteration": {"residual": {"holdout": 0.9}}}, "residual.holdout must be in"),
        ({"policy_iteration": {"residual": {"layers": [0]}}}, "layers[0] must be at least 1"),
        ({"policy_iteration": {"residual": {"epoch": 3}}}, "did you mean"),
        (
            {"policy_iteration": {"residual": {"inputs": ["position", "mood"]}}},
            "policy_iteration.residual.inputs must be distinct names among this valuation's "
            "input groups (position, move), got ['position', 'mood']",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path, capsys, changes, message):
    data = tiny()
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        elif value is None:
            data.pop(key)
        else:
            data[key] = value
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(write_config(tmp_path, data)), "--out-dir", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-policy-iteration: error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize(
    "name, valuation",
    [
        ("spinner_2p_policy_iteration", SPINNER_EXPERT),
        ("spinner_2p", SPINNER_EXPERT),
        ("spinner_4p", SPINNER_EXPERT),
        ("spinner_4p_residual", SPINNER_EXPERT),
        (RESEARCH_CONFIGS / "mexican_train_4p_policy_iteration.yaml", MEXICAN_TRAIN_EXPERT),
        ("mexican_train_2p", MEXICAN_TRAIN_EXPERT),
    ],
)
def test_the_shipped_and_research_configs_load(name, valuation):
    config = load_config(name)
    assert valuation_of(config) is valuation


def test_the_phases_config_goes_on_from_the_committed_policy_iteration_agent():
    """``spinner_2p`` starts from ``spinner_2p_policy_iteration``'s weights."""
    config = load_config("spinner_2p")
    assert config.policy_iteration.phases
    committed = make_agent("spinner_2p_policy_iteration", encoding=spinner_v0.ENCODING)
    np.testing.assert_array_equal(
        SPINNER_EXPERT.checked(config.feature_weights["expert"], "start"),
        committed.features.weights["expert"],
    )


@pytest.mark.parametrize("name", ["spinner_2p_policy_iteration", "spinner_2p", "spinner_4p"])
def test_the_committed_policy_iteration_agents_play_their_learned_weights(name):
    """Each is a generation of its shipped config: a network whose output is zero, playing
    the weights in its file, which are not the expert's (the phased ones: phase weights
    too)."""
    agent = make_agent(name, encoding=spinner_v0.ENCODING)
    weights = agent.features.weights["expert"]
    assert not np.allclose(weights, SPINNER_EXPERT.defaults)
    assert weights[SPINNER_EXPERT.weight_names.index("keep_wild")] < 5  # the expert's: 50
    phased = weights[SPINNER_EXPERT.player_weights :].any()
    assert phased == (name != "spinner_2p_policy_iteration")
    _, obs, masks = decisions(3000, 4)
    played = agent.act_batch(obs, masks)
    assert (played == HeuristicPolicy(weights, "learned").act_batch(obs, masks)).all()


def residual_values(roots: int, seed: int) -> tuple[Values, np.ndarray]:
    """Moves whose values are linear in their terms but for a kink the linear fit cannot
    follow (a threshold on one term), and the weights of their linear part."""
    rng = np.random.default_rng(seed)
    size = len(SPINNER_EXPERT.linear)
    root_of = np.repeat(np.arange(roots), 5)
    terms = rng.normal(size=(len(root_of), size))
    weights = SPINNER_EXPERT.defaults.copy()
    weights[SPINNER_EXPERT.linear] = rng.normal(size=size)
    kink = 6.0 * (terms[:, 0] > 0.5)
    values = terms @ weights[SPINNER_EXPERT.linear] + kink + rng.normal(size=roots)[root_of] * 10
    return Values(terms, values + rng.normal(size=len(root_of)) * 0.5, root_of, roots), weights


def test_the_residual_learns_what_the_linear_fit_leaves_and_picks_better_moves():
    values, weights = residual_values(6000, 8)
    settings = ResidualConfig(layers=[16], epochs=20, learning_rate=0.01, minibatch_roots=256)
    residual, fit = fit_residual(values, SPINNER_EXPERT, weights, settings, 0)
    assert fit["held_out_roots"] == 600  # every tenth root
    assert fit["held_out_error"] < 0.5 * fit["held_out_error_linear"]
    assert fit["held_out_gain"] - fit["held_out_gain_interval"] > 0.5
    again, _ = fit_residual(values, SPINNER_EXPERT, weights, settings, 0)
    np.testing.assert_array_equal(again.layers[0][0], residual.layers[0][0])  # seeded


def random_residual(seed: int, scale: float = 20.0) -> Residual:
    """A residual of the expert's terms with random numbers, whose corrections (up to about
    ``scale`` points) change some moves."""
    rng = np.random.default_rng(seed)
    size = len(SPINNER_EXPERT.linear)
    return Residual(
        rng.normal(size=size),
        rng.uniform(0.5, 2.0, size),
        (
            (rng.normal(size=(8, size)), rng.normal(size=8)),
            (rng.normal(size=(1, 8)) * scale, np.zeros(1)),
        ),
    )


def test_a_file_with_a_residual_plays_the_corrected_scores(tmp_path):
    """Format 6 carries the residual in its header; the agent plays the best move of the
    weights' scores plus the residual of each move's terms, and has no compiled twin."""
    config = load_config(write_config(tmp_path))
    weights = SPINNER_EXPERT.defaults
    residual = random_residual(2)
    path = policy_file(config, weights, 1, tmp_path / "residual.safetensors", residual)
    header = load_policy(path)[1]
    assert header.format_version == 7
    np.testing.assert_allclose(
        header.feature_residuals["expert"].layers[1][0], residual.layers[1][0]
    )
    agent = PolicyAgent.load(path, spinner_v0.ENCODING)
    assert agent.compiled_twin(SpinnerRules(num_players=2)) is None
    _, obs, masks = decisions(400, 6)
    scores = SPINNER_EXPERT.scores(obs, masks, weights)
    terms = SPINNER_EXPERT.terms(obs, masks, weights, phases=True)
    corrected = np.where(np.isfinite(scores), scores + residual(terms), scores)
    played = agent.act_batch(obs, masks)
    np.testing.assert_array_equal(played, corrected.argmax(axis=1))
    assert (played != scores.argmax(axis=1)).any()


def test_a_run_holds_the_residual_its_config_names_and_starts_only_from_the_same(tmp_path):
    """``feature_residuals`` names the file whose residual a run adds to its feature: PPO
    starts from a file with a residual only where the config names the same, and the
    policy file it writes carries it; a file without that residual is one ValueError."""
    config = load_config(write_config(tmp_path))
    weights = SPINNER_EXPERT.defaults
    path = policy_file(config, weights, 1, tmp_path / "residual.safetensors", random_residual(2))
    other = policy_file(config, weights, 1, tmp_path / "other.safetensors", random_residual(3))
    plain = policy_file(config, weights, 1, tmp_path / "plain.safetensors")
    same = config.replace(
        init_from=str(path),
        feature_weights={"expert": weights.tolist()},
        feature_residuals={"expert": str(path)},
        total_timesteps=64,
        ppo=dataclasses.replace(config.ppo, n_steps=32, batch_size=32, n_epochs=1),
    )
    model = make_model(same, make_training_env(same, make_pool(same, 0)), None, 0)
    start_model_from(model, path, same)
    for wrong in ({}, {"expert": str(other)}):
        with pytest.raises(ValueError, match="adds learned residuals to its features"):
            start_model_from(model, path, same.replace(feature_residuals=wrong))
    with pytest.raises(ValueError, match="carries no residual of the feature 'expert'"):
        same.replace(feature_residuals={"expert": str(plain)})
    with pytest.raises(ValueError, match=r"feature_residuals: no such file .*missing"):
        same.replace(feature_residuals={"expert": str(tmp_path / "missing.safetensors")})
    trained = train(same, tmp_path / "ppo", progress_bar=False)
    held = load_policy(trained)[1].feature_residuals["expert"]
    assert held.as_dict() == load_policy(path)[1].feature_residuals["expert"].as_dict()
    assert target_start(config, str(path)).feature_residuals == {"expert": str(path)}


def test_policy_iteration_starts_from_the_configs_residual_and_fits_its_own_after(tmp_path):
    """The config's ``feature_residuals`` is generation 0's player and plays the first
    generation's rollouts; a generation fits its weights alone where the section has no
    ``residual``, so its file carries none (the start's fits the start's weights)."""
    config = load_config(write_config(tmp_path, games=8, steps=20, batches=1))
    weights = SPINNER_EXPERT.defaults
    path = policy_file(config, weights, 1, tmp_path / "start.safetensors", random_residual(2))
    start = config.replace(
        feature_weights={"expert": weights.tolist()}, feature_residuals={"expert": str(path)}
    )
    _, report = policy_iteration(start, tmp_path / "run")
    held = load_policy(path)[1].feature_residuals["expert"].as_dict()
    first = load_policy(tmp_path / "run" / "generation_0.safetensors")[1]
    assert first.feature_residuals["expert"].as_dict() == held
    assert load_policy(tmp_path / "run" / "generation_1.safetensors")[1].feature_residuals == {}
    plain = start.replace(feature_residuals={})
    _, linear = policy_iteration(plain, tmp_path / "linear")
    fitted = [r["generations"][0]["weights"] for r in (report, linear)]
    assert fitted[0] != fitted[1]  # other rollouts: the start's player, residual included


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d.update(
                mean=[1.0] * 3, scale=[1.0] * 3, layers=[{"weight": [[1.0] * 3], "bias": [0.0]}]
            ),
            "reads 3 numbers a move",
        ),
        (lambda d: d.update(scale=[0.0] * len(d["scale"])), "scale > 0"),
        (lambda d: d["layers"].pop(), "last layer must give one number"),
        (lambda d: d["layers"][0].update(bias=[1.0]), "layer 0 must map"),
        (lambda d: d.update(mean="no"), "lists of numbers"),
        (lambda d: d.pop("scale"), "object of mean, scale, layers"),
        (lambda d: d.update(inputs=["move"]), r"reads 33 numbers a move; this valuation gives 156"),
        (lambda d: d.update(inputs="move"), "inputs \\(names\\)"),
        (lambda d: d.update(inputs=["mood"]), r"groups \(position, move\), got \['mood'\]"),
    ],
)
def test_a_bad_residual_in_a_file_is_a_value_error_naming_it(tmp_path, change, message):
    config = load_config(write_config(tmp_path))
    size = len(SPINNER_EXPERT.linear)
    residual = Residual(
        np.zeros(size),
        np.ones(size),
        ((np.ones((4, size)), np.zeros(4)), (np.ones((1, 4)), np.zeros(1))),
    )
    path = policy_file(config, SPINNER_EXPERT.defaults, 1, tmp_path / "r.safetensors", residual)
    with safe_open(str(path), framework="pt") as f:
        metadata, tensors = f.metadata(), {name: f.get_tensor(name) for name in f.keys()}  # noqa: SIM118
    header = json.loads(metadata["header"])
    change(header["feature_residuals"]["expert"])
    metadata["header"] = json.dumps(header)
    save_file(tensors, str(path), metadata)
    with pytest.raises(ValueError, match=message) as error:
        load_policy(path)
    assert str(path) in str(error.value) and "feature_residuals of 'expert'" in str(error.value)


def test_rollouts_played_in_python_by_a_residual_that_adds_nothing_are_the_compiled_ones(
    tmp_path,
):
    """A generation after the first is rolled out by the previous one's player, residual
    included, in Python (``play_out_records``); with a residual of zero output it plays as
    the compiled player of its weights, so every root, move and value is the same."""
    config = load_config(write_config(tmp_path, games=16, steps=30))
    size = len(SPINNER_EXPERT.linear)
    silent = Residual(
        np.zeros(size),
        np.ones(size),
        ((np.ones((4, size)), np.ones(4)), (np.zeros((1, 4)), np.zeros(1))),
    )
    weights = SPINNER_EXPERT.defaults
    compiled, python = (rollout_values(config, weights, 9, r) for r in (None, silent))
    assert compiled.num_roots == python.num_roots > 20
    for name in ("terms", "values", "roots"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(python, name))
    _, obs, masks = decisions(500, 7)
    np.testing.assert_array_equal(
        ValuationPolicy(SPINNER_EXPERT, weights, silent).act_batch(obs, masks),
        HeuristicPolicy(weights, "expert").act_batch(obs, masks),
    )


@pytest.mark.parametrize("kind", ["heuristic", "expert", "phased"])
def test_the_terms_are_the_scores_change_when_each_weight_grows_by_one(kind):
    """The compiled terms, one reading of each observation, are each linear weight's
    effect on the score: the score with that weight one higher less the score (a phase
    weight's through its lateness); the expert's reading of the layout is switched on
    where a shifted weight plays the expert."""
    _, obs, masks = decisions(300, 11)
    weights = SPINNER_EXPERT.defaults.copy()
    if kind == "heuristic":  # plays no expert term until one of its weights grows
        weights[SPINNER_EXPERT.weight_names.index("block_next") :] = 0.0
    if kind == "phased":
        linear = SPINNER_EXPERT.linear
        weights[linear] += np.random.default_rng(3).normal(size=len(linear))
    base = SPINNER_EXPERT.scores(obs, masks, weights)
    scores, rows, actions, terms = SPINNER_EXPERT.scored_terms(obs, masks, weights, True)
    np.testing.assert_array_equal(scores, base)
    np.testing.assert_array_equal(np.isfinite(base).nonzero(), (rows, actions))
    for column, i in enumerate(SPINNER_EXPERT.linear):
        shifted = weights.copy()
        shifted[i] += 1.0
        moved = SPINNER_EXPERT.scores(obs, masks, shifted)[rows, actions] - base[rows, actions]
        np.testing.assert_allclose(terms[:, column], moved, atol=1e-9)


@pytest.mark.parametrize(
    "name, game, players, valuation",
    [
        ("spinner_4p_residual", "spinner", 4, SPINNER_EXPERT),
        ("mexican_train_2p", "mexican_train", 2, MEXICAN_TRAIN_EXPERT),
    ],
)
def test_a_committed_residual_agent_plays_its_weights_and_residual(name, game, players, valuation):
    """A committed residual agent is generation 1 of its shipped config of the same name:
    a network whose output is zero, playing the best move of its fitted weights' scores
    plus its residual of the terms and the position, which changes some of the moves of
    its weights alone and some of the expert's."""
    agent = make_agent(name, encoding=game_spec(game).encoding)
    weights = agent.features.weights["expert"]
    residual = agent.features.residuals["expert"]
    assert [w.shape[0] for w, _ in residual.layers] == [64, 64, 1]
    assert residual.inputs == ("position",)
    assert not np.array_equal(weights, valuation.defaults)
    config = load_config(name)
    assert config.num_players == players and config.policy_iteration.generations == 1
    assert config.policy_iteration.residual.inputs == ["position"]
    _, obs, masks = decisions(2000, 12, game)
    played = agent.act_batch(obs, masks)
    np.testing.assert_array_equal(
        played, ValuationPolicy(valuation, weights, residual).act_batch(obs, masks)
    )
    for alone in (weights, valuation.defaults):
        assert (played != valuation.player(alone, "alone").act_batch(obs, masks)).any()


def test_the_spinner_residual_config_goes_on_from_spinner_4p():
    config = load_config("spinner_4p_residual")
    np.testing.assert_array_equal(
        SPINNER_EXPERT.checked(config.feature_weights["expert"], "start"),
        make_agent("spinner_4p", encoding=spinner_v0.ENCODING).features.weights["expert"],
    )
