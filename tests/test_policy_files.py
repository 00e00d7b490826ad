"""Policy files: tensors and a checked JSON header; no file handed to a loader runs code."""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces
from safetensors.torch import save as safetensors_bytes
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents import CHECKPOINTS, DEFAULT_CHECKPOINT, RandomAgent, make_agent
from spinner_env.agents.policy import (
    PolicyAgent,
    PolicyHeader,
    ValueTarget,
    load_policy,
    main,
    save_policy,
)

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.core.agent import GameView
from spinner_env.games.mexican_train.rules import MexicanTrainState
from spinner_env.games.spinner.rules import SpinnerState

SPINNER = spinner_v0.ENCODING
MEXICAN_TRAIN = mexican_train_v0.ENCODING


def small_policy(encoding=SPINNER, activation=torch.nn.Tanh) -> MaskableActorCriticPolicy:
    return MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (encoding.obs_size,), np.float32),
        spaces.Discrete(encoding.num_actions),
        lr_schedule=lambda _: 3e-4,
        net_arch={"pi": [16, 8], "vf": [12]},
        activation_fn=activation,
    )


class Payload:
    """Unpickling this creates ``marker``: proof that a loader ran code from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_the_same_policy_makes_the_same_file_byte_for_byte(tmp_path):
    """safetensors orders its metadata by a hash map seeded anew for each call; policy
    files write it sorted, so a rerun's file can be compared by its bytes."""
    policy = small_policy(MEXICAN_TRAIN)
    files = {
        save_policy(policy, tmp_path / f"{i}.safetensors", MEXICAN_TRAIN).read_bytes()
        for i in range(12)
    }
    assert len(files) == 1
    data = files.pop()
    size = int.from_bytes(data[:8], "little")
    assert (8 + size) % 8 == 0
    assert list(json.loads(data[8 : 8 + size])["__metadata__"]) == ["format", "header"]
    assert load_policy(tmp_path / "0.safetensors", MEXICAN_TRAIN)[1].game == "Mexican Train"


@pytest.mark.parametrize("activation", [torch.nn.Tanh, torch.nn.ReLU])
@pytest.mark.parametrize("encoding", [SPINNER, MEXICAN_TRAIN])
def test_a_policy_file_rebuilds_the_same_agent(tmp_path, encoding, activation):
    policy = small_policy(encoding, activation)
    path = save_policy(policy, tmp_path / "mine.safetensors", encoding)
    loaded = PolicyAgent.load(path, encoding)
    original = PolicyAgent(policy)
    rng = np.random.default_rng(0)
    obs = rng.random((50, encoding.obs_size), dtype=np.float32)
    masks = (rng.random((50, encoding.num_actions)) < 0.05).astype(np.int8)
    masks[:, -1] = 1
    np.testing.assert_array_equal(loaded.logits(obs), original.logits(obs))
    assert loaded.act_batch(obs, masks).tolist() == original.act_batch(obs, masks).tolist()
    assert loaded.name == "mine" and loaded._layers is not None
    header = load_policy(path)[1]
    assert header == PolicyHeader(
        encoding.game_name, encoding.obs_size, encoding.num_actions, (16, 8), (12,),
        "tanh" if activation is torch.nn.Tanh else "relu",
    )  # fmt: skip
    for key, tensor in policy.state_dict().items():
        assert torch.equal(loaded.policy.state_dict()[key], tensor)


@pytest.mark.parametrize("encoding", [SPINNER, MEXICAN_TRAIN])
def test_a_policy_files_value_head_predicts_what_its_critic_does(tmp_path, encoding):
    policy = small_policy(encoding)
    target = ValueTarget("match", "match", 1.0)
    path = save_policy(policy, tmp_path / "valued.safetensors", encoding, value=target)
    agent = PolicyAgent.load(path, encoding)
    assert agent.value_target == target and load_policy(path)[1].format_version >= 3
    obs = np.random.default_rng(1).random((20, encoding.obs_size), dtype=np.float32)
    with torch.no_grad():
        expected = policy.predict_values(torch.as_tensor(obs)).numpy().ravel()
    np.testing.assert_allclose(agent.value(obs), expected, rtol=1e-5, atol=1e-6)
    assert agent.value(obs[3]) == pytest.approx(float(expected[3]), abs=1e-6)


@pytest.mark.parametrize("name", ["spinner_2p_clone", "spinner_4p_clone"])
def test_an_older_file_loads_but_has_no_value_head_to_ask(name):
    """The committed Spinner files are formats 1 and 2: they play as before; a value is
    refused."""
    agent = make_agent(name)
    assert load_policy(CHECKPOINTS / f"{name}.safetensors")[1].format_version in (1, 2)
    with pytest.raises(ValueError, match=rf"the {name} policy has no value head"):
        agent.value(np.zeros(agent.obs_size, np.float32))


def test_the_committed_mexican_train_policy_has_a_prior_and_a_value_head():
    """Format 4: the expert's valuation as its prior, a value head for the round's point
    difference."""
    agent = make_agent("mexican_train_4p", encoding=MEXICAN_TRAIN)
    header = load_policy(CHECKPOINTS / "mexican_train_4p.safetensors")[1]
    assert header.format_version == 4 and header.prior is not None
    assert header.value == ValueTarget("hand_score", "hand", 0.99)
    assert np.isfinite(agent.value(np.zeros(MEXICAN_TRAIN.obs_size, np.float32)))


def test_the_committed_checkpoint_is_a_spinner_policy_file():
    agent = make_agent("checkpoint", encoding=SPINNER)
    assert isinstance(agent, PolicyAgent) and agent.name == "spinner_2p"
    header = load_policy(DEFAULT_CHECKPOINT)[1]
    assert (header.game, header.policy_layers, header.activation) == ("Spinner", (256, 256), "tanh")


def test_a_checkpoint_for_the_other_game_fails_at_load():
    with pytest.raises(ValueError, match=r"spinner_2p.*game 'Spinner'.*num_actions"):
        make_agent("checkpoint", encoding=MEXICAN_TRAIN)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00" * 7,
        b"not a policy at all, just some text that goes on for a while",
        json.dumps({"format": "spinner-env-policy"}).encode(),
    ],
    ids=["empty", "short", "text", "json"],
)
def test_empty_and_foreign_files_are_a_value_error_naming_the_file(tmp_path, content):
    path = tmp_path / "odd.safetensors"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"odd\.safetensors"):
        make_agent(str(path))


@pytest.mark.parametrize("keep", [0.0001, 0.5, 0.999])
def test_a_truncated_policy_file_is_a_value_error_naming_the_file(tmp_path, keep):
    data = DEFAULT_CHECKPOINT.read_bytes()
    path = tmp_path / "cut.safetensors"
    path.write_bytes(data[: max(1, int(len(data) * keep))])
    with pytest.raises(ValueError, match=r"cut\.safetensors"):
        PolicyAgent.load(path)


def write_with_header(path: Path, policy, **changes) -> None:
    header = {**json.loads(PolicyHeader.of(policy, "Spinner").metadata()["header"]), **changes}
    tensors = {k: t.contiguous() for k, t in policy.state_dict().items()}
    metadata = {"format": "spinner-env-policy", "header": json.dumps(header)}
    path.write_bytes(safetensors_bytes(tensors, metadata=metadata))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"obs_size": "334"}, "obs_size"),
        ({"num_actions": 0}, "num_actions"),
        ({"policy_layers": [16, -8]}, "policy_layers"),
        ({"value_layers": 12}, "value_layers"),
        ({"activation": "gelu"}, "activation"),
        ({"format_version": 8}, "format_version"),
        ({"format_version": 4, "feature_weights": {}}, "fields"),  # format 5 added them
        ({"format_version": 5, "feature_residuals": {}}, "fields"),  # format 6 added them
        ({"feature_residuals": []}, "feature_residuals"),
        ({"feature_residuals": {"expert": {}}}, "feature_residuals names 'expert'"),
        ({"feature_weights": {"expert": [1.0]}}, "feature_weights names 'expert'"),
        ({"feature_weights": []}, "feature_weights"),
        ({"features": ["expert"], "feature_weights": {"expert": [1.0, 2.0]}}, "13 numbers"),
        ({"features": ["expert"], "feature_weights": {"expert": [True] * 13}}, "feature_weights"),
        ({"format_version": 2, "value": None}, "fields"),  # format 3 added the value
        ({"value": {"reward": "match"}}, "value"),
        ({"value": {"reward": "match", "episode": "match", "gamma": 2}}, "value.gamma"),
        ({"features": ["chain"]}, "features"),
        ({"format_version": True}, "format_version"),
        ({"game": 7}, "game"),
        ({"extra": 1}, "fields"),
        ({"policy_layers": [16, 9]}, "tensors do not match"),
        ({"obs_size": 100}, "tensors do not match"),
    ],
)
def test_a_header_that_is_wrong_or_disagrees_with_the_tensors_is_named(tmp_path, changes, field):
    path = tmp_path / "bad.safetensors"
    write_with_header(path, small_policy(), **changes)
    with pytest.raises(ValueError, match=rf"bad.safetensors.*{field}"):
        PolicyAgent.load(path)


def test_a_safetensors_file_of_someone_elses_tensors_is_refused(tmp_path):
    path = tmp_path / "other.safetensors"
    path.write_bytes(safetensors_bytes({"w": torch.zeros(3)}))
    with pytest.raises(ValueError, match=r"other\.safetensors.*not a spinner-env-policy file"):
        make_agent(str(path))


@pytest.mark.parametrize("name", ["evil.pt", "evil.safetensors", "evil.zip"])
def test_a_file_carrying_a_pickle_payload_does_not_run_it(tmp_path, name):
    marker = tmp_path / "ran"
    path = tmp_path / name
    if name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("data", pickle.dumps(Payload(marker)))
            archive.writestr("policy.pth", pickle.dumps(Payload(marker)))
    else:
        torch.save(Payload(marker), path)
    with pytest.raises(ValueError, match=name):
        make_agent(str(path))
    with pytest.raises(ValueError, match=name):
        PolicyAgent.load(path, SPINNER)
    assert not marker.exists()
    if name == "evil.pt":
        # The payload is real: the trusted Stable-Baselines3 path, a pickle, runs it.
        with pytest.raises(Exception):  # noqa: B017 -- whatever follows the payload
            PolicyAgent.load_trusted_sb3(path)
        assert marker.exists()


def test_a_stable_baselines3_file_loads_only_through_the_trusted_path(tmp_path):
    policy = small_policy()
    path = tmp_path / "sb3.pt"
    policy.save(str(path))
    with pytest.raises(ValueError, match=r"sb3\.pt.*load_trusted_sb3"):
        make_agent(str(path))
    trusted = PolicyAgent.load_trusted_sb3(path)
    obs = np.random.default_rng(0).random(SPINNER.obs_size, dtype=np.float32)
    np.testing.assert_allclose(trusted.logits(obs), PolicyAgent(policy).logits(obs), atol=1e-6)


def test_convert_needs_trust_and_writes_a_policy_file(tmp_path, capsys):
    policy = small_policy(MEXICAN_TRAIN)
    source, target = tmp_path / "sb3.pt", tmp_path / "safe.safetensors"
    policy.save(str(source))
    with pytest.raises(SystemExit) as exit_info:
        main(["convert", str(source), str(target), "--game", "mexican_train"])
    assert exit_info.value.code == 2 and not target.exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["convert", "--trust-pickle", str(source), str(target), "--game", "spinner"])
    assert exit_info.value.code == 2 and "does not fit Spinner" in capsys.readouterr().err
    main(["convert", "--trust-pickle", str(source), str(target), "--game", "mexican_train"])
    assert PolicyAgent.load(target, MEXICAN_TRAIN).num_actions == MEXICAN_TRAIN.num_actions


def test_agents_reject_a_mask_of_the_wrong_length():
    agent = PolicyAgent(small_policy())
    obs = np.zeros(SPINNER.obs_size, np.float32)
    with pytest.raises(ValueError, match=f"{SPINNER.num_actions} entries"):
        agent.act(obs, np.ones(10, np.int8))
    with pytest.raises(ValueError, match="rows of"):
        agent.act_batch(obs[None], np.ones((1, 10), np.int8))
    view = GameView(MexicanTrainState.new(), MEXICAN_TRAIN)
    with pytest.raises(ValueError, match=f"{MEXICAN_TRAIN.num_actions} entries"):
        RandomAgent().act(None, np.ones(SPINNER.num_actions, np.int8), view)
    with pytest.raises(ValueError, match="one entry per action"):
        RandomAgent().act(None, np.ones((2, 3), np.int8))
    spinner_view = GameView(SpinnerState.new(), SPINNER)
    assert RandomAgent().act(None, np.eye(SPINNER.num_actions, dtype=np.int8)[4], spinner_view) == 4


def test_a_policy_rejects_an_observation_of_the_wrong_size():
    agent = PolicyAgent(small_policy())
    mask = np.ones(SPINNER.num_actions, np.int8)
    with pytest.raises(ValueError, match=f"{SPINNER.obs_size} numbers"):
        agent.act(np.zeros(MEXICAN_TRAIN.obs_size, np.float32), mask)


@pytest.mark.parametrize("valued", [False, True])
@pytest.mark.parametrize("deterministic", [True, False])
def test_a_policys_view_gives_each_legal_move_its_probability(tmp_path, valued, deterministic):
    """act_explained plays what act plays (the same seed, the same draws); the view's
    probabilities cover exactly the legal moves and sum to 1, the argmax is the move a
    deterministic policy plays, and the value is there only where the file has a head."""
    target = ValueTarget("match", "match", 1.0) if valued else None
    path = save_policy(small_policy(), tmp_path / "p.safetensors", SPINNER, value=target)
    explaining, acting = (
        PolicyAgent.load(path, SPINNER, deterministic=deterministic, seed=3) for _ in range(2)
    )
    state = SpinnerState.new(seed=5)
    viewed = 0
    while not state.hand_over:
        legal = SPINNER.action_ids(state.legal_moves())
        mask = np.zeros(SPINNER.num_actions, np.int8)
        mask[legal] = 1
        obs = SPINNER.observation(state, state.current)
        action, view = explaining.act_explained(obs, mask, GameView(state, SPINNER))
        assert action == acting.act(obs, mask, GameView(state, SPINNER))
        if view is not None:
            assert view.kind == "policy"
            assert [m.action for m in view.moves] == sorted(legal)
            assert sum(m.probability for m in view.moves) == pytest.approx(1.0)
            assert (view.value is not None) == valued
            if valued:
                assert view.value == pytest.approx(explaining.value(obs), abs=1e-6)
            if deterministic:
                assert action == max(view.moves, key=lambda m: m.probability).action
            viewed += 1
        state.play_legal(SPINNER.move_of(action))
    assert viewed > 0
