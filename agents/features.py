"""Observation features: facts a policy reads beside the observation, computed from it.

A trained policy sees the environment's observation vector; some facts a strong player
uses are a search away from it, and a network fitted to a few hundred thousand decisions
does not find them. Mexican Train's ``plan`` is one: which tiles of the hand make the
longest chain from the own train's open end (M3.2), the hand's plan as
:func:`~spinner_env.agents.mexican_train_expert.longest_chain` finds it for the expert,
and which tiles fit another train open now (its layout:
:data:`spinner_env.batched.mexican_train_plan.PLAN_LAYOUT`; compiled, as training asks for
it at every decision).
Cloning the expert with ``plan`` beside the observation matches its moves far more often,
and wins far more matches, than from the observation alone (docs/league.md#mexican_train_4p
has the figures and their commands).

Mexican Train's ``expert`` is one value per action: how the hand-written expert values
each legal placement against its best one
(:func:`~spinner_env.batched.mexican_train_expert.expert_advantages`: 0 for its choice, down
to -1 for a gap of 30 of its points or more, and for every other action). A policy whose
file names it as its *prior* (:class:`~spinner_env.agents.policy.ActionPrior`) adds it to
its action logits: it starts as the expert's play and learns corrections to it.

A feature reads the observation only (what the player may know, M7), so the same policy
plays in the AEC env, the batched engine and the web game. A policy file names the
features its network reads (:class:`~spinner_env.agents.policy.PolicyHeader`), and
:class:`ObservationFeatures` appends them to each observation before the network runs:

    features = ObservationFeatures(("plan",), mexican_train_v0.ENCODING)
    net_input = features(observations)     # (N, 1277) -> (N, 1551)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from spinner_env import mexican_train_v0
from spinner_env.aec import Encoding
from spinner_env.batched.mexican_train_expert import expert_advantages
from spinner_env.batched.mexican_train_plan import PLAN_SIZE, plan_features


@dataclass(frozen=True)
class Feature:
    """One named feature: the game whose observations it reads (an ``Encoding``'s
    ``game_name``), its size, and the function from observations (rows) to its values
    (rows of ``size``)."""

    game: str
    size: int
    compute: Callable[[np.ndarray], np.ndarray]


FEATURES: dict[str, Feature] = {
    "plan": Feature(mexican_train_v0.ENCODING.game_name, PLAN_SIZE, plan_features),
    "expert": Feature(
        mexican_train_v0.ENCODING.game_name, mexican_train_v0.NUM_ACTIONS, expert_advantages
    ),
}
"""Every feature a policy may read, by the name configs and policy files use."""


@dataclass(frozen=True)
class ActionPrior:
    """An action prior: the policy's logits are its network's plus ``scale`` times the
    values of ``feature``, one per action, that its input carries (an observation feature
    such as Mexican Train's ``expert``). With the network's output at zero the policy plays
    the prior's best action: it starts as the player the feature scores for, and training
    learns corrections to it (residual learning)."""

    feature: str
    scale: float

    def __post_init__(self) -> None:
        if not isinstance(self.feature, str) or self.feature not in FEATURES:
            raise ValueError(
                f"prior.feature must be an observation feature ({', '.join(FEATURES)}), "
                f"got {self.feature!r}"
            )
        scale = self.scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < 1e6:
            raise ValueError(f"prior.scale must be a positive number, got {scale!r}")

    def check_fits(self, features: ObservationFeatures, num_actions: int) -> slice:
        """Where the prior sits in the input of a network reading ``features`` with
        ``num_actions`` actions; ValueError if it is not among them or not one value per
        action."""
        if self.feature not in features.names:
            raise ValueError(
                f"the prior {self.feature!r} is not among the features {list(features.names)}"
            )
        where = features.slice_of(self.feature)
        if where.stop - where.start != num_actions:
            raise ValueError(
                f"the prior {self.feature!r} has {where.stop - where.start} values, "
                f"not one per action ({num_actions})"
            )
        return where


class ObservationFeatures:
    """Appends the named features to observations of the game of ``encoding``; no names,
    the observation as it is. ValueError for a name that is not a feature of that game."""

    def __init__(self, names: Sequence[str], encoding: Encoding) -> None:
        names = tuple(names)
        for name in names:
            feature = FEATURES.get(name)
            if feature is None:
                raise ValueError(
                    f"no observation feature {name!r}; the features are {', '.join(FEATURES)}"
                )
            if feature.game != encoding.game_name:
                raise ValueError(
                    f"the observation feature {name!r} reads {feature.game} observations, "
                    f"not {encoding.game_name}"
                )
        if len(set(names)) != len(names):
            raise ValueError(f"observation features are named twice: {list(names)}")
        self.names = names
        self.obs_size = encoding.obs_size
        self.size = encoding.obs_size + sum(FEATURES[name].size for name in names)

    def slice_of(self, name: str) -> slice:
        """Where the feature ``name`` sits in the network's input; ValueError if it is not
        one of :attr:`names`."""
        if name not in self.names:
            raise ValueError(f"the feature {name!r} is not among {list(self.names)}")
        start = self.obs_size
        for other in self.names[: self.names.index(name)]:
            start += FEATURES[other].size
        return slice(start, start + FEATURES[name].size)

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """One observation (1-D) or a batch (rows), each with the features after it."""
        x = np.asarray(observations, np.float32)
        if not self.names:
            return x
        rows = x if x.ndim == 2 else x[None]
        extra = [FEATURES[name].compute(rows) for name in self.names]
        out = np.concatenate([rows, *extra], axis=1)
        return out if x.ndim == 2 else out[0]
