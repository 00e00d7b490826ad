"""Observation features: facts a policy reads beside the observation, computed from it.

A trained policy sees the environment's observation vector; some facts a strong player
uses are a search away from it, and a network fitted to a few hundred thousand decisions
does not find them. Each game declares its features in its package's ``features`` module
(its record's ``features_path``: :mod:`spinner_env.games.spinner.features`,
:mod:`spinner_env.games.mexican_train.features`), with the machinery of
:mod:`spinner_env.core.valuation`; :data:`FEATURES` gathers them by name. Mexican Train's
``plan`` (the hand's longest chain from its own train) is one; each game's ``expert`` is
one value per action: how that game's hand-written expert values each legal placement
against its best one (:func:`~spinner_env.core.valuation.advantages`: 0 for its choice,
down to -1 for a gap of 30 of its points or more, and for every other action), from its
compiled twin reading the observation. A policy whose file names it as its *prior*
(:class:`ActionPrior`) adds it to its action logits: it starts as the expert's play and
learns corrections to it.

A feature reads the observation only (what the player may know), so the same policy
plays in the AEC env, the batched engine and the web game. A policy file names the
features its network reads (:class:`~spinner_env.agents.policy.PolicyHeader`), and
:class:`ObservationFeatures` appends them to each observation before the network runs:

    features = ObservationFeatures(("plan",), mexican_train_v0.ENCODING)
    net_input = features(observations)     # (N, 1277) -> (N, 1551)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from spinner_env.core.encoding import Encoding
from spinner_env.core.valuation import (
    ADVANTAGE_POINTS,
    Feature,
    InputGroup,
    Residual,
    Valuation,
    ValuationPolicy,
    advantages,
)
from spinner_env.games import GAMES

FEATURES: dict[str, dict[str, Feature]] = {}
"""Every feature a policy may read, by the name configs and policy files use, then by the
game whose observations it reads (its encoding's ``game_name``)."""
for _game in GAMES.values():
    for _feature in _game.features():
        FEATURES.setdefault(_feature.name, {})[_feature.game] = _feature


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
                f"prior.feature must be an observation feature ({', '.join(sorted(FEATURES))}), "
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
    the observation as it is. ``weights`` gives a weighted feature (one with a
    :class:`Valuation`) other weights than its player's, by name. ValueError for a name
    that is not a feature of that game, or weights that do not fit their feature.
    ``residuals`` adds a learned :class:`Residual` to a weighted feature's scores, by name.
    """

    def __init__(
        self,
        names: Sequence[str],
        encoding: Encoding,
        weights: Mapping[str, Sequence[float]] | None = None,
        residuals: Mapping[str, Residual] | None = None,
    ) -> None:
        names = tuple(names)
        game = encoding.game_name
        for name in names:
            by_game = FEATURES.get(name)
            if by_game is None:
                known = ", ".join(sorted(FEATURES))
                raise ValueError(f"no observation feature {name!r}; the features are {known}")
            if game not in by_game:
                raise ValueError(
                    f"the observation feature {name!r} reads {' or '.join(by_game)} "
                    f"observations, not {game}"
                )
        if len(set(names)) != len(names):
            raise ValueError(f"observation features are named twice: {list(names)}")
        self.names = names
        self.game = game
        self._features = [FEATURES[name][game] for name in names]
        self.weights: dict[str, np.ndarray] = {}
        for name, values in (weights or {}).items():
            if name not in names:
                raise ValueError(f"weights for {name!r}, which is not among {list(names)}")
            valuation = FEATURES[name][game].valuation
            if valuation is None:
                raise ValueError(f"the feature {name!r} takes no weights")
            self.weights[name] = valuation.checked(values, f"the {name!r} feature's weights")
        self.residuals: dict[str, Residual] = {}
        for name, residual in (residuals or {}).items():
            if name not in names:
                raise ValueError(f"a residual for {name!r}, which is not among {list(names)}")
            valuation = FEATURES[name][game].valuation
            if valuation is None or not valuation.linear:
                raise ValueError(f"the feature {name!r} has no terms for a residual to read")
            valuation.check_residual(residual, f"the {name!r} feature's residual")
            self.residuals[name] = residual
        self.obs_size = encoding.obs_size
        self.size = encoding.obs_size + sum(feature.size for feature in self._features)

    def slice_of(self, name: str) -> slice:
        """Where the feature ``name`` sits in the network's input; ValueError if it is not
        one of :attr:`names`."""
        if name not in self.names:
            raise ValueError(f"the feature {name!r} is not among {list(self.names)}")
        index = self.names.index(name)
        start = self.obs_size + sum(feature.size for feature in self._features[:index])
        return slice(start, start + self._features[index].size)

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """One observation (1-D) or a batch (rows), each with the features after it."""
        x = np.asarray(observations, np.float32)
        if not self.names:
            return x
        rows = x if x.ndim == 2 else x[None]
        extra = [
            feature.values(rows, self.weights.get(feature.name), self.residuals.get(feature.name))
            for feature in self._features
        ]
        out = np.concatenate([rows, *extra], axis=1)
        return out if x.ndim == 2 else out[0]


__all__ = [
    "ADVANTAGE_POINTS",
    "FEATURES",
    "ActionPrior",
    "Feature",
    "InputGroup",
    "ObservationFeatures",
    "Residual",
    "Valuation",
    "ValuationPolicy",
    "advantages",
]
