"""An RLlib PPO module's weights as a policy file (``examples/rllib_ppo.py`` writes one).

RLlib's default PPO module (``DefaultPPOTorchRLModule``, and the action-masking module
built on it) with separate actor and critic encoders (``vf_share_layers=False``) is an
MLP actor and an MLP critic on flat observations: the encoders' hidden layers, each
followed by ``fcnet_activation``, then the heads' hidden layers (``head_fcnet_hiddens``,
each followed by ``head_fcnet_activation``) and a linear output layer. That is the
``MaskableActorCriticPolicy`` of a policy file once every hidden layer has the same
activation, so :func:`rllib_policy` copies the linear layers one for one; the converted
network computes the same logits and value (``tests/test_rllib_convert.py`` checks it).

The weights are read from the module's state dict (``module.state_dict()``, or the
learner's ``get_state`` of the module: tensors or arrays by name), never by unpickling a
checkpoint, and the policy file holds only those numbers and its header. This module
imports torch and Stable-Baselines3, not Ray, so it runs in any venv with the ``train``
extra (``.venv-rllib`` has it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents.policy import PolicyHeader, ValueTarget, save_policy

from spinner_env.core.encoding import Encoding

ACTOR = ("encoder.actor_encoder.net.mlp.", "pi.net.mlp.")
CRITIC = ("encoder.critic_encoder.net.mlp.", "vf.net.mlp.")
"""The prefixes of the actor's (critic's) encoder and head layers in the state dict."""
SHARED = "encoder.encoder."
"""The prefix of an encoder that the actor and the critic share (``vf_share_layers``)."""
_CONSTANTS = {"pi.log_std_clip_param_const", "vf.log_std_clip_param_const"}
"""Buffers of RLlib's heads that are not weights (continuous actions only)."""
_LAYER = re.compile(r"(\d+)\.(weight|bias)")


def rllib_policy(
    state: Mapping[str, Any], model_config: Mapping[str, Any] | None = None
) -> MaskableActorCriticPolicy:
    """The policy of an RLlib PPO module's ``state`` (its state dict), whose
    ``model_config`` names the activations (RLlib's defaults where it does not: ``tanh``
    in the encoders, ``relu`` in the heads' hidden layers); ValueError for a module this
    layout cannot hold."""
    config = dict(model_config or {})
    tensors = {name: _array(value) for name, value in state.items()}
    if any(name.startswith(SHARED) for name in tensors):
        raise ValueError(
            "the module's actor and critic share their encoder (RLlib's default, "
            "vf_share_layers=True), which a policy file cannot hold: train with "
            "vf_share_layers=False"
        )
    left = sorted(
        set(tensors) - _CONSTANTS - {n for n in tensors if n.startswith((*ACTOR, *CRITIC))}
    )
    if left:
        raise ValueError(f"the state has weights outside an MLP actor and critic: {left}")
    (actor, actor_head), (critic, critic_head) = (
        _linear_layers(tensors, prefixes) for prefixes in (ACTOR, CRITIC)
    )
    activation = str(config.get("fcnet_activation", "tanh")).lower()
    head_activation = str(config.get("head_fcnet_activation", "relu")).lower()
    if (actor_head > 1 or critic_head > 1) and head_activation != activation:
        raise ValueError(
            f"the heads' hidden layers use {head_activation} and the encoders {activation}: "
            "a policy file has one activation (head_fcnet_hiddens=[] or the same activation)"
        )
    if critic[0][0].shape[1] != actor[0][0].shape[1]:
        raise ValueError("the actor and the critic read observations of different sizes")
    header = PolicyHeader(
        game="",  # save_policy names the game
        obs_size=int(actor[0][0].shape[1]),
        num_actions=int(actor[-1][0].shape[0]),
        policy_layers=tuple(int(weight.shape[0]) for weight, _ in actor[:-1]),
        value_layers=tuple(int(weight.shape[0]) for weight, _ in critic[:-1]),
        activation=activation,
    )
    # Through the file format's own check, so that an activation it cannot hold is refused
    # here with the names it can.
    policy = PolicyHeader.from_metadata(header.metadata()).build()
    _copy(actor, [*policy.mlp_extractor.policy_net, policy.action_net])
    _copy(critic, [*policy.mlp_extractor.value_net, policy.value_net])
    return policy.eval()


def save_rllib_policy(
    state: Mapping[str, Any],
    path: str | Path,
    encoding: Encoding,
    model_config: Mapping[str, Any] | None = None,
    value: ValueTarget | None = None,
) -> Path:
    """Write the RLlib PPO module's ``state`` (see :func:`rllib_policy`) as a policy file
    for ``encoding``'s game, its critic trained on ``value``'s returns if given."""
    return save_policy(rllib_policy(state, model_config), path, encoding, value=value)


Layer = tuple[np.ndarray, np.ndarray]
"""A linear layer's weight and bias."""


def _linear_layers(
    tensors: Mapping[str, np.ndarray], prefixes: Sequence[str]
) -> tuple[list[Layer], int]:
    """One network's linear layers, its encoder's then its head's, and the head's count."""
    encoder, head = (_indexed(tensors, prefix) for prefix in prefixes)
    if not encoder or not head:
        which = "actor" if prefixes == ACTOR else "critic"
        raise ValueError(
            f"the state has no {which} encoder and head ({prefixes[0]}*, {prefixes[1]}*): "
            "not a PPO module's state, or an env runner's inference-only module, which has "
            "no critic (take the learner's: algorithm.learner_group.get_state("
            'components="learner/rl_module/MODULE_ID"))'
        )
    layers = encoder + head
    for (weight, _), (next_weight, _) in pairwise(layers):
        if weight.shape[0] != next_weight.shape[1]:
            raise ValueError(f"the layers of {prefixes[0]}* and {prefixes[1]}* do not chain")
    return layers, len(head)


def _indexed(tensors: Mapping[str, np.ndarray], prefix: str) -> list[Layer]:
    """The (weight, bias) pairs under ``prefix``, by their index in the Sequential."""
    found: dict[int, dict[str, np.ndarray]] = {}
    for name, tensor in tensors.items():
        if name.startswith(prefix):
            match = _LAYER.fullmatch(name[len(prefix) :])
            if match is None or tensor.ndim != (2 if match[2] == "weight" else 1):
                raise ValueError(f"{name} is not a linear layer's weight or bias")
            found.setdefault(int(match[1]), {})[match[2]] = tensor
    layers = []
    for index in sorted(found):
        if set(found[index]) != {"weight", "bias"}:
            raise ValueError(f"{prefix}{index} is not a weight and a bias")
        layers.append((found[index]["weight"], found[index]["bias"]))
    return layers


def _array(value: Any) -> np.ndarray:
    """A tensor (on any device) or an array as a float32 array."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float32)


def _copy(layers: list[Layer], modules: Sequence[torch.nn.Module]) -> None:
    linears = [module for module in modules if isinstance(module, torch.nn.Linear)]
    with torch.no_grad():
        for (weight, bias), linear in zip(layers, linears, strict=True):
            linear.weight.copy_(torch.from_numpy(weight))
            linear.bias.copy_(torch.from_numpy(bias))
