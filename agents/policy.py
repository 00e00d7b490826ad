"""An agent that plays a trained MaskablePPO policy (a checkpoint of ``train.ppo``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

from agents.base import Agent, EngineView


class PolicyAgent(Agent):
    """Plays the policy's most likely legal action (or samples it, ``deterministic=False``).

    Reads only the observation and the mask, so it plays any seat of any player count the
    observation was laid out for. The policy is treated as frozen: a plain MLP policy is
    copied once into numpy arrays, because one observation at a time runs several times
    faster through numpy than through torch.
    """

    def __init__(
        self,
        policy: MaskableActorCriticPolicy,
        name: str = "policy",
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.policy = policy.eval()
        self.name = name
        self.deterministic = deterministic
        self._layers = _numpy_layers(policy)

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, seed: int | None = None):
        """A checkpoint: a whole model saved by ``MaskablePPO.save`` (``.zip``) or only its
        policy saved by ``policy.save`` (``.pt``, what ``agents/checkpoints`` holds)."""
        path = Path(path)
        if path.suffix == ".zip":
            policy = MaskablePPO.load(path, device="cpu").policy
        else:
            policy = MaskableActorCriticPolicy.load(str(path), device="cpu")
        return cls(policy, name=path.stem, deterministic=deterministic, seed=seed)

    @classmethod
    def frozen_copy(cls, policy: MaskableActorCriticPolicy, name: str) -> PolicyAgent:
        """A snapshot of a policy under training, unaffected by later updates."""
        snapshot = type(policy)(**policy._get_constructor_parameters())
        snapshot.load_state_dict(policy.state_dict())
        return cls(snapshot.to("cpu"), name=name)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's action logits before masking, for one observation or a batch
        (observations along the first axis)."""
        if self._layers is not None:
            x = np.asarray(observation, dtype=np.float32)
            for weight, bias, activation in self._layers:
                x = x @ weight.T + bias
                if activation is not None:
                    x = activation(x)
            return x
        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32, device=policy.device)
            batch = obs if obs.ndim == 2 else obs[None]
            features = policy.extract_features(batch, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent).cpu().numpy()
        return logits if obs.ndim == 2 else logits[0]

    def choose(self, observation: np.ndarray, legal: np.ndarray, view: EngineView | None) -> int:
        logits = self.logits(observation)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(legal, p=probs / probs.sum()))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row, as :meth:`act` decides (a batched opponent of
        ``spinner_env.vector``); sampling adds Gumbel noise to the logits, which draws
        each legal action with its softmax probability."""
        logits = self.logits(observations)
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        return np.argmax(np.where(action_masks != 0, logits, -np.inf), axis=1)


_ACTIVATIONS = {
    torch.nn.Tanh: np.tanh,
    torch.nn.ReLU: lambda x: np.maximum(x, 0.0),
}


def _numpy_layers(policy: MaskableActorCriticPolicy) -> list[tuple[Any, Any, Any]] | None:
    """The actor of an MLP policy on flat observations as (weight, bias, activation)
    layers, or None when the policy is anything else (then torch runs it)."""
    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        return None
    modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    layers: list[tuple[Any, Any, Any]] = []
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            weight = module.weight.detach().cpu().numpy().copy()
            bias = module.bias.detach().cpu().numpy().copy()
            layers.append((weight, bias, None))
        elif type(module) in _ACTIVATIONS and layers and layers[-1][2] is None:
            weight, bias, _ = layers[-1]
            layers[-1] = (weight, bias, _ACTIVATIONS[type(module)])
        else:
            return None
    return layers
