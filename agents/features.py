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
}
"""Every feature a policy may read, by the name configs and policy files use."""


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

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """One observation (1-D) or a batch (rows), each with the features after it."""
        x = np.asarray(observations, np.float32)
        if not self.names:
            return x
        rows = x if x.ndim == 2 else x[None]
        extra = [FEATURES[name].compute(rows) for name in self.names]
        out = np.concatenate([rows, *extra], axis=1)
        return out if x.ndim == 2 else out[0]
