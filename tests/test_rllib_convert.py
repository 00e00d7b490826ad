"""spinner_env.agents.rllib: an RLlib PPO module's state dict as a policy file.

Here (the main venv, no Ray) on states laid out as RLlib's, and in ``.venv-rllib`` on
RLlib's own action-masking module: the converted policy gives the module's logits on the
legal actions and its values. ``tests/test_examples.py`` converts a trained one.
"""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from ray_sandbox import RLLIB_PYTHON, skip_or_fail
from spinner_env.agents import make_agent
from spinner_env.agents.policy import PolicyAgent, ValueTarget, load_policy
from spinner_env.agents.rllib import rllib_policy, save_rllib_policy

from spinner_env import spinner_v0

OBS = spinner_v0.OBSERVATION_SIZE
ACTIONS = spinner_v0.NUM_ACTIONS


def rllib_state(encoder=(32, 16), head=(), seed=0) -> dict[str, np.ndarray]:
    """Random weights under the names of RLlib's PPO module with separate encoders."""
    rng = np.random.default_rng(seed)
    state = {}
    for encoder_prefix, head_prefix, outputs in (
        ("encoder.actor_encoder.net.mlp.", "pi.net.mlp.", ACTIONS),
        ("encoder.critic_encoder.net.mlp.", "vf.net.mlp.", 1),
    ):
        inputs = OBS
        for prefix, sizes in ((encoder_prefix, encoder), (head_prefix, (*head, outputs))):
            for index, size in enumerate(sizes):
                # In RLlib's Sequential, each linear layer is followed by its activation.
                state[f"{prefix}{2 * index}.weight"] = rng.normal(scale=0.2, size=(size, inputs))
                state[f"{prefix}{2 * index}.bias"] = rng.normal(scale=0.2, size=size)
                inputs = size
    state["pi.log_std_clip_param_const"] = np.array([20.0])
    return state


def forward(state: dict, prefixes: tuple[str, str], x: np.ndarray, activation) -> np.ndarray:
    """What RLlib computes: every layer but the head's last followed by the activation."""
    layers = [
        (state[f"{prefix}{index}.weight"], state[f"{prefix}{index}.bias"])
        for prefix in prefixes
        for index in sorted(
            {int(n[len(prefix) :].split(".")[0]) for n in state if n.startswith(prefix)}
        )
    ]
    for k, (weight, bias) in enumerate(layers):
        x = x @ weight.T + bias
        x = activation(x) if k < len(layers) - 1 else x
    return x


def observations(count: int = 30) -> tuple[np.ndarray, np.ndarray]:
    env = spinner_v0.env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    obs, masks = [], []
    for _ in env.agent_iter(max_iter=count):
        o = env.last()[0]
        obs.append(o["observation"])
        masks.append(o["action_mask"] > 0)
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.array(obs), np.array(masks)


@pytest.mark.parametrize(
    ("head", "config", "activation"),
    [
        ((), None, np.tanh),
        ((), {"fcnet_activation": "relu"}, lambda x: np.maximum(x, 0.0)),
        ((8,), {"fcnet_activation": "tanh", "head_fcnet_activation": "tanh"}, np.tanh),
    ],
)
def test_the_converted_policy_computes_the_module(head, config, activation):
    state = rllib_state(head=head)
    agent = PolicyAgent(rllib_policy(state, config), value_target=ValueTarget("match", "match", 1))
    x, _ = observations()
    actor = ("encoder.actor_encoder.net.mlp.", "pi.net.mlp.")
    critic = ("encoder.critic_encoder.net.mlp.", "vf.net.mlp.")
    np.testing.assert_allclose(
        agent.logits(x), forward(state, actor, x, activation), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(
        agent.value(x), forward(state, critic, x, activation)[:, 0], atol=1e-4
    )


def test_a_policy_file_of_it_plays(tmp_path):
    path = tmp_path / "rllib.safetensors"
    value = ValueTarget("match", "match", 1.0)
    save_rllib_policy(rllib_state(), path, spinner_v0.ENCODING, value=value)
    _, header = load_policy(path, spinner_v0.ENCODING)
    assert (header.game, header.policy_layers, header.value_layers) == (
        "Spinner",
        (32, 16),
        (32, 16),
    )
    assert (header.activation, header.value) == ("tanh", value)
    agent = make_agent(str(path), encoding=spinner_v0.ENCODING)
    x, masks = observations()
    for obs, mask in zip(x, masks, strict=True):
        assert mask[agent.act(obs, mask.astype(np.int8))]


def _without(state: dict, prefix: str) -> dict:
    return {name: value for name, value in state.items() if not name.startswith(prefix)}


@pytest.mark.parametrize(
    ("state", "config", "message"),
    [
        (
            {
                **_without(rllib_state(), "encoder."),
                "encoder.encoder.net.mlp.0.weight": np.ones((4, OBS)),
            },
            None,
            "vf_share_layers=False",
        ),
        (_without(rllib_state(), "vf."), None, "no critic"),
        (
            {**rllib_state(), "encoder.actor_encoder.net.mlp.1.weight": np.ones(32)},
            None,
            "not a linear",
        ),
        ({**rllib_state(), "pi.extra": np.ones(3)}, None, "outside an MLP"),
        (_without(rllib_state(), "pi.net.mlp.0.bias"), None, "not a weight and a bias"),
        (rllib_state(head=(8,)), None, "one activation"),
        (rllib_state(), {"fcnet_activation": "swish"}, "activation must be one of"),
    ],
)
def test_modules_it_cannot_hold_are_refused(state, config, message):
    with pytest.raises(ValueError, match=message):
        rllib_policy(state, config)


RLLIB_CHECK = """
import json, sys
import gymnasium as gym, numpy as np, torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from spinner_env import spinner_v0
from spinner_env.agents.policy import PolicyAgent, ValueTarget
from spinner_env.agents.rllib import rllib_policy

obs, masks = (np.array(a, dtype=np.float32) for a in json.loads(sys.stdin.read()))
space = gym.spaces.Dict({
    "observations": gym.spaces.Box(-np.inf, np.inf, (obs.shape[1],), np.float32),
    "action_mask": gym.spaces.Box(0.0, 1.0, (masks.shape[1],), np.float32),
})
gaps = []
for config in json.loads(sys.argv[1]):
    torch.manual_seed(0)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, observation_space=space,
        action_space=gym.spaces.Discrete(masks.shape[1]), model_config=config,
    ).build()
    batch = lambda: {"obs": {"observations": torch.tensor(obs), "action_mask": torch.tensor(masks)}}
    with torch.no_grad():
        logits = module.forward_inference(batch())["action_dist_inputs"].numpy()
        values = module.compute_values(batch()).numpy()
    agent = PolicyAgent(rllib_policy(module.state_dict(), module.model_config),
                        value_target=ValueTarget("match", "match", 1.0))
    legal = masks > 0
    gaps.append([
        float(np.abs(np.where(legal, logits - agent.logits(obs), 0)).max()),
        float(np.abs(values - agent.value(obs)).max()),
        bool((np.where(legal, agent.logits(obs), -np.inf).argmax(1) == logits.argmax(1)).all()),
    ])
print(json.dumps(gaps))
"""


def test_rllibs_own_module_converts_exactly():
    """RLlib's action-masking module, built (no Ray started) in ``.venv-rllib``."""
    if not RLLIB_PYTHON.exists():
        skip_or_fail(f"{RLLIB_PYTHON} not found: `make rllib-venv` builds it")
    configs = [
        {"fcnet_hiddens": [64, 32], "vf_share_layers": False},
        {"fcnet_hiddens": [64], "fcnet_activation": "relu", "vf_share_layers": False},
        {
            "fcnet_hiddens": [32],
            "head_fcnet_hiddens": [16, 16],
            "head_fcnet_activation": "tanh",
            "vf_share_layers": False,
        },
    ]
    x, masks = observations()
    run = subprocess.run(
        [str(RLLIB_PYTHON), "-c", RLLIB_CHECK, json.dumps(configs)],
        input=json.dumps([x.tolist(), masks.astype(int).tolist()]),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    for logit_gap, value_gap, same_argmax in json.loads(run.stdout.strip().splitlines()[-1]):
        assert logit_gap < 1e-5
        assert value_gap < 1e-5
        assert same_argmax
