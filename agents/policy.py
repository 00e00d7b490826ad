"""An agent that plays a trained MaskablePPO policy (a checkpoint of ``train.ppo``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.base import Agent, EngineView


class PolicyAgent(Agent):
    """Plays the policy's most likely legal action (or samples it, ``deterministic=False``).

    Reads only the observation and the mask, so it plays any seat of any player count the
    observation was laid out for.
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
        """The policy's action logits before masking."""
        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32, device=policy.device)[None]
            features = policy.extract_features(obs, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            return policy.action_net(latent)[0].cpu().numpy()

    def choose(self, observation: np.ndarray, legal: np.ndarray, view: EngineView | None) -> int:
        logits = self.logits(observation)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(legal, p=probs / probs.sum()))
