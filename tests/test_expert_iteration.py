"""Expert iteration (research/expert_iteration.py): a search
using the network labels the network's decisions with soft targets, the network is fitted
to them (train.imitate.fit's soft cross-entropy), every generation reports its numbers; the
labels are the same on every executor backend; bad input is one clear ValueError (one line
and status 2 on the command line); an earlier run is never replaced silently."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from expert_iteration import (
    CURVE,
    REPORT,
    check_operator,
    decision_returns,
    expert_iteration,
    label,
    main,
    soft_target,
)
from spinner_env.agents.policy import PolicyAgent, PolicyHeader, ValueTarget
from spinner_env.train.config import TrainConfig, load_config
from spinner_env.train.executor import Executor
from spinner_env.train.imitate import Demonstrations, fit, soft_cross_entropy
from spinner_env.train.ppo import limit_threads

from spinner_env.core.agent import AgentView, MoveView
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome

RESEARCH_CONFIGS = Path(__file__).resolve().parent.parent / "research" / "configs"
OPERATOR = "pimc:rollout={policy},determinizations=1"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    limit_threads(1)


def tiny(**section) -> dict:
    """One-hand matches of 2-player Spinner, a small fresh network, PIMC over one
    determinization (iteration mode: reproducible) with its rollouts."""
    return {
        "name": "tiny",
        "game": "spinner",
        "num_players": 2,
        "total_timesteps": 1,
        "seed": 3,
        "env": {"reward": "hand_score", "episode": "hand", "num_hands": 1},
        "ppo": {"policy_kwargs": {"net_arch": [32]}},
        "opponents": {"baselines": {"heuristic": 1, "greedy": 1}, "snapshot_weight": 1},
        "expert_iteration": {
            "operator": OPERATOR,
            "generations": 2,
            "deals": 2,
            "epochs": 2,
            "eval_against": ["greedy"],
            "eval_matches": 4,
            **section,
        },
    }


def tiny_config(**section) -> TrainConfig:
    return TrainConfig.from_dict(tiny(**section))


def test_every_generation_reports_its_numbers_and_leaves_policies_that_play(tmp_path):
    path, report = expert_iteration(tiny_config(), tmp_path / "run")
    assert set(report["start"]) == {"greedy"}
    generations = report["generations"]
    assert [g["generation"] for g in generations] == [1, 2]
    assert generations[1]["labelled_total"] == sum(g["labelled"] for g in generations)
    for g in generations:
        assert g["labelled"] > 0
        assert 0 <= g["agreement"] <= 1 and 0 <= g["holdout_agreement"] <= 1
        assert set(g["strength"]) == {"greedy", "previous"}
        assert all(0 <= m["low"] <= m["mean"] <= m["high"] <= 1 for m in g["strength"].values())
        assert g["target_entropy"] >= 0 and g["label_seconds"] >= 0
    assert json.loads((tmp_path / "run" / REPORT).read_text()) == report
    assert (tmp_path / "run" / CURVE).read_bytes().startswith(b"\x89PNG")
    for number in (0, 1, 2):
        assert (tmp_path / "run" / f"generation_{number}.safetensors").is_file()
    agent = PolicyAgent.load(path)
    assert agent.value_target == ValueTarget("hand_score", "hand", 0.99)
    assert path.read_bytes() == (tmp_path / "run" / "generation_2.safetensors").read_bytes()
    assert TrainConfig.from_dict(yaml.safe_load((tmp_path / "run" / "config.yaml").read_text()))


def test_the_labels_are_the_same_in_process_and_on_two_workers(tmp_path):
    config = tiny_config(deals=4, label_share=0.5, prior=True)
    expert_iteration(config, tmp_path)
    student, earlier = tmp_path / "generation_2.safetensors", tmp_path / "generation_1.safetensors"
    here = label(config, student, [earlier], seed=11)
    there = label(config, student, [earlier], seed=11, executor=Executor(workers=2))
    assert len(here) > 0
    for name in ("obs", "masks", "actions", "returns", "targets"):
        assert np.array_equal(getattr(here, name), getattr(there, name)), name
    # Each decision's target is a distribution over its legal moves; its action, the
    # operator's move, is legal.
    assert np.allclose(here.targets.sum(axis=1), 1)
    assert not (here.targets[~here.masks] > 0).any()
    assert here.masks[np.arange(len(here)), here.actions].all()
    # Half the decisions labelled: fewer than all of them, on the same games.
    every = label(tiny_config(deals=4, prior=True), student, [earlier], seed=11)
    assert len(here) < len(every)


def synthetic(rows: int, seed: int = 0) -> Demonstrations:
    """Random observations of a 20-number game of 6 actions, 3 to 6 of them legal, with
    random soft targets over the legal ones."""
    rng = np.random.default_rng(seed)
    masks = np.zeros((rows, 6), bool)
    for row, legal in zip(masks, rng.integers(3, 7, rows), strict=True):
        row[rng.choice(6, legal, replace=False)] = True
    targets = np.where(masks, rng.exponential(size=(rows, 6)) ** 3, 0).astype(np.float32)
    targets /= targets.sum(axis=1, keepdims=True)
    return Demonstrations(
        obs=rng.normal(size=(rows, 20)).astype(np.float32),
        masks=masks,
        actions=targets.argmax(axis=1),
        returns=rng.normal(size=rows).astype(np.float32),
        targets=targets,
    )


def small_policy():
    torch.manual_seed(0)
    return PolicyHeader("Toy", 20, 6, (32,), (32,), "tanh").build()


def test_a_soft_target_fit_moves_the_probabilities_towards_the_targets():
    demos = synthetic(64)
    policy = small_policy()
    obs, masks = torch.as_tensor(demos.obs), torch.as_tensor(demos.masks)

    def distance() -> float:  # the mean KL divergence from the targets
        with torch.no_grad():
            loss = soft_cross_entropy(policy, obs, masks, demos.targets).item()
        logs = np.log(np.where(demos.targets > 0, demos.targets, 1))
        return loss + float((demos.targets * logs).sum(axis=1).mean())

    before = distance()
    report = fit(policy, demos, epochs=60, batch_size=16, learning_rate=3e-3, holdout=0.0)
    assert report.losses[-1] < report.losses[0]
    assert report.value_errors[-1] < report.value_errors[0]
    assert distance() < before / 2
    # Legal moves only: the illegal ones keep no probability.
    with torch.no_grad():
        probabilities = policy.get_distribution(obs, action_masks=masks).distribution.probs
    assert float(probabilities[~masks].max()) < 1e-6


def test_hard_labels_still_fit_the_actions():
    demos = synthetic(64)
    hard = Demonstrations(demos.obs, demos.masks, demos.actions, demos.returns)
    policy = small_policy()
    report = fit(policy, hard, epochs=60, batch_size=16, learning_rate=3e-3, holdout=0.0)
    assert report.losses[-1] < report.losses[0] / 2


def test_decisions_join_and_split_with_their_targets():
    a, b = synthetic(5, seed=1), synthetic(3, seed=2)
    joined = Demonstrations.concatenate([a, b])
    assert len(joined) == 8 and np.array_equal(joined.targets[5:], b.targets)
    rows = joined.rows(np.array([6, 0]))
    assert np.array_equal(rows.obs, joined.obs[[6, 0]])
    assert np.array_equal(rows.targets, joined.targets[[6, 0]])
    hard = Demonstrations(a.obs, a.masks, a.actions, a.returns)
    assert hard.rows(np.array([1])).targets is None
    with pytest.raises(ValueError, match="with soft targets and without"):
        Demonstrations.concatenate([hard, b])


def test_a_soft_target_is_the_softmax_of_the_values_at_the_temperature():
    legal = np.array([2, 5, 7])
    view = AgentView("search", (MoveView(2, value=0.1), MoveView(5, value=0.0), MoveView(7)))
    target = soft_target(view, legal, temperature=0.1, num_actions=9)
    assert target[7] == 0 and target[[0, 1, 3, 4, 6, 8]].sum() == 0  # untried, illegal
    np.testing.assert_allclose(target[[2, 5]], [np.e / (np.e + 1), 1 / (np.e + 1)], rtol=1e-6)
    cold = soft_target(view, legal, temperature=1e-3, num_actions=9)
    assert cold[2] == pytest.approx(1)
    # With the network's prior: its probability times exp(value / temperature).
    prior = np.log([0.1, 0.6, 0.3])
    weighed = soft_target(view, legal, temperature=0.1, num_actions=9, log_prior=prior)
    np.testing.assert_allclose(
        weighed[[2, 5]], [0.1 * np.e / (0.1 * np.e + 0.6), 0.6 / (0.1 * np.e + 0.6)], rtol=1e-6
    )
    assert weighed[7] == 0
    for shown in (None, AgentView("policy", (MoveView(2, probability=1.0),))):
        with pytest.raises(ValueError, match="the operator gives no move a value"):
            soft_target(shown, legal, 0.1, 9)


def test_value_targets_are_the_returns_the_value_head_predicts():
    points = [[10, 0], [3, 7]]  # seat 0 lost the first hand by 10 points, won the second
    hands = [0, 0, 1]  # two decisions in hand 0, one in hand 1
    gamma = 0.5
    per_hand = hand_score_difference(points[0])[0], hand_score_difference(points[1])[0]
    by_hand = decision_returns(hands, 0, points, [13, 7], ValueTarget("hand_score", "hand", gamma))
    np.testing.assert_allclose(by_hand, [gamma * per_hand[0], per_hand[0], per_hand[1]])
    by_match = decision_returns(
        hands, 0, points, [13, 7], ValueTarget("hand_score", "match", gamma)
    )
    whole = per_hand[0] + gamma * per_hand[1]
    np.testing.assert_allclose(by_match, [gamma * whole, whole, per_hand[1]])
    outcome = zero_sum_outcome([13, 7])[0]
    match = decision_returns(hands, 0, points, [13, 7], ValueTarget("match", "match", gamma))
    np.testing.assert_allclose(match, [gamma**2 * outcome, gamma * outcome, outcome])
    hand_outcomes = decision_returns(hands, 1, points, [13, 7], ValueTarget("match", "hand", 1))
    np.testing.assert_allclose(
        hand_outcomes, [zero_sum_outcome(points[0])[1]] * 2 + [zero_sum_outcome(points[1])[1]]
    )


@pytest.mark.parametrize(
    "section, message",
    [
        ({"epochs": 0}, "expert_iteration.epochs must be at least 1, got 0"),
        ({"generations": 0}, "expert_iteration.generations must be at least 1, got 0"),
        ({"temperature": 0}, "expert_iteration.temperature must be positive"),
        ({"label_share": 1.5}, r"expert_iteration.label_share must be in \(0, 1\]"),
    ],
)
def test_a_bad_section_is_a_value_error_naming_the_key(section, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**section)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"expert_iteration": None}, "the config needs an expert_iteration section"),
        # The network the search plays with must be the config's game's.
        (
            {"game": "mexican_train", "init_from": "spinner_2p", "env": {}},
            "init_from: .*spinner_2p.safetensors: the policy does not fit Mexican Train",
        ),
        ({"operator": "pimx:rollout={policy}"}, "expert_iteration.operator 'pimx:rollout="),
        ({"operator": "pimc:rollout={policy},budget=3"}, "unknown option 'budget' for pimc"),
        (
            {"operator": "pimc:rollout={policy},time={polcy}"},
            r"only \{policy\} may stand in braces",
        ),
        ({"operator": "{policy}"}, "the operator gives no move a value .*a policy view"),
        ({"eval_against": ["mexican_train_4p"]}, "the policy does not fit Spinner"),
    ],
)
def test_a_run_that_cannot_go_is_a_value_error_before_any_work(tmp_path, changes, message):
    data = tiny()
    for key in ("expert_iteration", "game", "init_from", "env"):
        if key in changes:
            data[key] = changes[key]
    for key in ("operator", "eval_against"):
        if key in changes:
            data["expert_iteration"][key] = changes[key]
    if data.get("game") == "mexican_train":
        data["num_players"] = 4
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        expert_iteration(TrainConfig.from_dict(data), out)
    assert not out.exists()


def test_an_earlier_run_is_replaced_only_when_asked(tmp_path):
    config = tiny_config(generations=1, deals=1)
    out = tmp_path / "run"
    expert_iteration(config, out)
    first = (out / REPORT).read_text()
    with pytest.raises(ValueError, match="exists: pass --overwrite to replace its run"):
        expert_iteration(config, out)
    assert (out / REPORT).read_text() == first
    expert_iteration(config, out, overwrite=True)
    assert (out / REPORT).is_file()
    # A folder that holds something else is never deleted, even when asked.
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    with pytest.raises(ValueError, match="holds no expert iteration run"):
        expert_iteration(config, other, overwrite=True)
    assert (other / "notes.txt").read_text() == "keep"


def test_the_research_config_loads_and_its_operator_values_moves(tmp_path):
    config = load_config(RESEARCH_CONFIGS / "spinner_2p_expert_iteration.yaml")
    assert config.expert_iteration is not None and config.init_from == "spinner_2p_clone"
    check_operator(config, config.init_file())


def write_config(tmp_path: Path, **section) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(tiny(**section)))
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--generations", "0"], "expert_iteration.generations must be at least 1, got 0"),
        (["--deals", "x"], "argument --deals: invalid int value: 'x'"),
        (["--workers", "0"], "workers must be at least 1, got 0"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(tmp_path, capsys, args, message):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(write_config(tmp_path)), "--out-dir", str(out), *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("research/expert_iteration.py: error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()


def test_the_command_runs_and_refuses_without_a_traceback(tmp_path):
    """The real process: a tiny run, then the same again, refused in one line, status 2."""
    command = [
        sys.executable,
        "research/expert_iteration.py",
        "--config",
        str(write_config(tmp_path, generations=1, deals=1)),
        "--out-dir",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    cwd = Path(__file__).resolve().parent.parent
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert "generation 1: " in done.stdout
    assert json.loads((tmp_path / "run" / REPORT).read_text())["command"].startswith(
        "research/expert_iteration.py --config"
    )
    again = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert again.returncode == 2
    assert again.stderr.splitlines() == [
        "research/expert_iteration.py: error: the run directory "
        f"{str(tmp_path / 'run')!r} exists: pass --overwrite to replace its run"
    ]


def test_mexican_train_runs_too_with_its_plan_feature(tmp_path):
    data = tiny(generations=1, deals=1, epochs=1)
    data.update(
        game="mexican_train",
        num_players=4,
        env={"reward": "hand_score", "episode": "hand", "num_rounds": 1},
        features=["plan"],
        opponents={"baselines": {"heuristic": 1}},
    )
    path, report = expert_iteration(TrainConfig.from_dict(data), tmp_path)
    assert report["generations"][0]["labelled"] > 0
    assert PolicyAgent.load(path).features is not None


def test_a_network_with_a_prior_learns_from_a_fixed_search(tmp_path):
    """The start is the prior's player (the expert, its network's output at zero); the
    operator needs no {policy}: a search rolled out by the compiled expert teaches it."""
    data = tiny(operator="pimc:rollout=expert,determinizations=2", generations=1)
    data.update(features=["expert"], prior={"feature": "expert", "scale": 30.0})
    config = TrainConfig.from_dict(data)
    path, report = expert_iteration(config, tmp_path)
    assert report["generations"][0]["labelled"] > 0
    start = PolicyAgent.load(tmp_path / "generation_0.safetensors")
    assert start.policy.prior == config.prior and not start.policy.action_net.weight.any()
    trained = PolicyAgent.load(path)
    assert trained.policy.prior == config.prior and trained.policy.action_net.weight.any()
    restart = dict(data, init_from=str(path), prior=None, features=["expert"])
    with pytest.raises(ValueError, match="init_from has the prior"):
        expert_iteration(TrainConfig.from_dict(restart), tmp_path / "again")
