"""What a policy may read beside its observation, for any game: a hand-written player's
valuation of each legal move read from observations (:class:`Valuation`), a learned
correction to it (:class:`Residual`) and what that correction reads (:class:`InputGroup`),
and a named feature of a game's observations (:class:`Feature`).

Each game declares its own in its package's ``features`` module (its record's
``features_path``: :mod:`spinner_env.games.spinner.features`); :mod:`spinner_env.agents.features`
gathers them by name for the policies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

ADVANTAGE_POINTS = 30.0
"""The value gap, in a hand-written player's points, that :func:`advantages` scales to -1."""


def advantages(values: np.ndarray) -> np.ndarray:
    """Each action's value (rows of them; ``-inf`` for an action that is not legal, ``inf``
    for going out) less the best of its row, over :data:`ADVANTAGE_POINTS`, clipped to
    [-1, 0]: 0 for the best (every way of going out), -1 for the actions that are not legal
    (all of them where nothing is valued) -> float32."""
    best = values.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):  # inf - inf where the best goes out
        gap = np.where(values == best, 0.0, (values - best) / ADVANTAGE_POINTS)
    gap = np.where(np.isfinite(best), gap, np.where(values == np.inf, 0.0, -1.0))
    return np.clip(gap, -1.0, 0.0).astype(np.float32)


@dataclass(frozen=True)
class InputGroup:
    """One named group: its size and the function from the observations (rows), the row of
    each move and its action id to one row of ``size`` numbers per move."""

    name: str
    size: int
    compute: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Residual:
    """A learned correction to a valuation's scores: a small network of each move's terms
    (:meth:`Valuation.terms`, all linear weights) and of the valuation's input groups it
    names (``inputs``, :meth:`Valuation.group_inputs`), standardised by ``mean`` and
    ``scale``, through hidden layers of tanh to one number, in the score's units (points),
    added to every finite score. ``layers`` are (weight, bias) pairs, the last one's weight a single
    row. Policy iteration fits it (``spinner_env.train.policy_iteration``); a policy file
    carries it as numbers (``feature_residuals``, read without unpickling)."""

    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    inputs: tuple[str, ...] = ()
    """The valuation's input groups it reads after the terms, in order
    (:attr:`Valuation.input_groups`); none: the terms alone."""

    def __post_init__(self) -> None:
        size = self.mean.shape[0] if self.mean.ndim == 1 else -1
        if size < 1 or self.scale.shape != (size,) or not (self.scale > 0).all():
            raise ValueError("a residual's mean and scale must be rows of one size, scale > 0")
        width = size
        for k, (weight, bias) in enumerate(self.layers):
            if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
                raise ValueError(
                    f"a residual's layer {k} must map {width} numbers: weight (out, {width}) "
                    f"and bias (out,), got {weight.shape} and {bias.shape}"
                )
            width = weight.shape[0]
        if not self.layers or width != 1:
            raise ValueError("a residual's last layer must give one number")
        arrays = [self.mean, self.scale, *(a for layer in self.layers for a in layer)]
        if not all(np.isfinite(a).all() for a in arrays):
            raise ValueError("a residual's numbers must be finite")

    @property
    def size(self) -> int:
        """How many numbers it reads a move: the terms, then its ``inputs``."""
        return int(self.mean.shape[0])

    def __call__(self, inputs: np.ndarray) -> np.ndarray:
        """The correction of each row of ``inputs`` (any leading shape, last axis: a move's
        terms, then its :meth:`Valuation.group_inputs`)."""
        x = (inputs - self.mean) / self.scale
        for weight, bias in self.layers[:-1]:
            x = np.tanh(x @ weight.T + bias)
        weight, bias = self.layers[-1]
        return (x @ weight.T + bias)[..., 0]

    def as_dict(self) -> dict[str, Any]:
        """Plain lists, as a policy file's header keeps them."""
        return {
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "layers": [{"weight": w.tolist(), "bias": b.tolist()} for w, b in self.layers],
            "inputs": list(self.inputs),
        }

    @classmethod
    def from_dict(cls, data: Any, what: str) -> Residual:
        """Read :meth:`as_dict`'s form (``inputs`` may be left out: format 6, which had
        none); ValueError naming ``what`` if it is not one."""
        layers = data.get("layers") if isinstance(data, dict) else None
        inputs = data.get("inputs", []) if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or not {"mean", "scale", "layers"} <= set(data) <= {"mean", "scale", "layers", "inputs"}
            or not isinstance(layers, list)
            or not all(
                isinstance(layer, dict) and set(layer) == {"weight", "bias"} for layer in layers
            )
            or not isinstance(inputs, list)
            or not all(isinstance(name, str) for name in inputs)
        ):
            raise ValueError(
                f"{what} must be an object of mean, scale, layers (each a weight and a bias) "
                "and inputs (names)"
            )
        try:
            return cls(
                _numbers(data["mean"]),
                _numbers(data["scale"]),
                tuple((_numbers(layer["weight"]), _numbers(layer["bias"])) for layer in layers),
                tuple(inputs),
            )
        except ValueError as error:
            raise ValueError(f"{what}: {error}") from None


def _numbers(values: Any) -> np.ndarray:
    """A list (of lists) of numbers as float64; ValueError for anything else."""

    def plain(v: Any) -> bool:
        if isinstance(v, list):
            return all(plain(x) for x in v)
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    if not isinstance(values, list) or not plain(values):
        raise ValueError(f"expected lists of numbers, got {str(values)[:60]!r}")
    try:
        return np.array(values, np.float64)
    except ValueError:
        raise ValueError("ragged lists of numbers") from None


@dataclass(frozen=True)
class Valuation:
    """A hand-written player's valuation of each legal placement, read from observations,
    with its weights as an argument: what a weighted feature (a game's ``expert``)
    computes, with the player's defaults or with weights a policy file
    carries (learned ones: ``spinner_env.train.policy_iteration``).

    ``scores(obs, mask, weights)`` gives rows of values (``-inf`` for an action that is not
    legal, ``inf`` for going out), ``legal(obs)`` the masks it reads, and
    ``player(weights, name)`` the player that makes the best-scored move as a batched policy
    (``act_batch``; where it has one, its ``compiled_twin``, which the batched engine and
    the search players' rollouts play in compiled code). Every score is
    linear in the weights named in ``linear_in`` (:meth:`terms` gives what each adds),
    typically all but a hand-size threshold. The first ``player_weights`` are the
    hand-written player's own; any after them (phase weights, such as
    :data:`~spinner_env.games.spinner.weights.PHASE_WEIGHT_NAMES`) only learning sets,
    and weights given without them keep their defaults.
    """

    weight_names: tuple[str, ...]
    default_weights: tuple[float, ...]
    linear_in: tuple[str, ...]
    legal: Callable[[np.ndarray], np.ndarray]
    scores: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    player_weights: int
    player: Callable[[np.ndarray, str], Any]
    score_terms: (
        Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None
    ) = None
    """Where the scores are linear in some weights: the score of each legal action (rows:
    the mask's legal entries in ``np.nonzero`` order) and what each weight adds to it per
    unit (columns: every weight), each observation read once, which :meth:`scored_terms`
    reads."""
    input_groups: tuple[InputGroup, ...] = ()
    """What a residual may read of each move beside its terms."""

    def __post_init__(self) -> None:
        if not 0 < self.player_weights <= len(self.weight_names):
            raise ValueError("player_weights must count some of the weight names")
        if bool(self.linear_in) != (self.score_terms is not None):
            raise ValueError("a valuation linear in some weights gives score_terms, others none")

    @property
    def defaults(self) -> np.ndarray:
        return np.array(self.default_weights, np.float64)

    @property
    def linear(self) -> list[int]:
        """The indices of the weights every score is linear in."""
        return [i for i, name in enumerate(self.weight_names) if name in self.linear_in]

    def linear_of(self, phases: bool) -> list[int]:
        """:attr:`linear`, without the weights after the player's own unless ``phases``."""
        return [i for i in self.linear if phases or i < self.player_weights]

    def checked(self, weights: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
        """``weights`` as float64, one finite number per weight name, or per weight of the
        player's own (the rest at their defaults: files and configs written before the
        phase weights); ValueError naming ``what`` otherwise."""
        try:
            array = np.asarray(weights, np.float64)
        except (TypeError, ValueError):
            array = None
        if array is not None and array.shape == (self.player_weights,):
            array = np.concatenate([array, self.defaults[self.player_weights :]])
        if array is None or array.shape != (len(self.weight_names),):
            own = self.weight_names[: self.player_weights]
            rest = len(self.weight_names) - self.player_weights
            raise ValueError(
                f"{what} must be {len(own)} numbers ({', '.join(own)})"
                + (
                    f", or those and {rest} more ({', '.join(self.weight_names[len(own) :])})"
                    if rest
                    else ""
                )
                + f", got {weights!r}"
            )
        if not np.isfinite(array).all():
            raise ValueError(f"{what} must be finite numbers, got {weights!r}")
        return array

    def advantages(
        self, observations: np.ndarray, weights: np.ndarray, residual: Residual | None = None
    ) -> np.ndarray:
        """:func:`advantages` of the scores with ``weights`` (and ``residual``,
        :meth:`corrected_scores`), each row read from its observation."""
        obs = np.ascontiguousarray(observations, np.float32)
        return advantages(self.corrected_scores(obs, self.legal(obs), weights, residual))

    def corrected_scores(
        self,
        observations: np.ndarray,
        mask: np.ndarray,
        weights: np.ndarray,
        residual: Residual | None,
    ) -> np.ndarray:
        """:attr:`scores` with ``weights``, plus ``residual`` of each finite one's
        :meth:`terms` (all linear weights); without a residual, the scores."""
        if residual is None:
            return self.scores(observations, mask, weights)
        self.check_residual(residual, "the residual")
        scores, rows, actions, terms = self.scored_terms(observations, mask, weights, True)
        if residual.inputs:
            obs = np.ascontiguousarray(observations, np.float32)
            groups = self.group_inputs(obs, rows, actions, residual.inputs)
            terms = np.concatenate([terms, groups], axis=1)
        scores[rows, actions] += residual(terms)
        return scores

    def group_inputs(
        self, observations: np.ndarray, rows: np.ndarray, actions: np.ndarray, groups: Sequence[str]
    ) -> np.ndarray:
        """The numbers of the input ``groups`` (side by side, in that order) of each move: the
        row of its observation and its action id, as :meth:`scored_terms` gives them. A
        residual reads a move's terms, then these."""
        by_name = {group.name: group for group in self.input_groups}
        parts = [by_name[name].compute(observations, rows, actions) for name in groups]
        return np.concatenate(parts, axis=1) if parts else np.zeros((len(rows), 0))

    def input_size(self, groups: Sequence[str], what: str) -> int:
        """How many numbers a residual reading ``groups`` reads of a move; ValueError
        naming ``what`` for a group this valuation does not have, or one named twice."""
        sizes = {group.name: group.size for group in self.input_groups}
        unknown = [name for name in groups if name not in sizes]
        if unknown or len(set(groups)) != len(groups):
            raise ValueError(
                f"{what} must be distinct names among this valuation's input groups "
                f"({', '.join(sizes) or 'none'}), got {list(groups)}"
            )
        return len(self.linear) + sum(sizes[name] for name in groups)

    def check_residual(self, residual: Residual, what: str) -> None:
        """ValueError naming ``what`` unless ``residual`` reads one term per linear weight
        and then its input groups."""
        size = self.input_size(residual.inputs, f"{what}'s inputs")
        if residual.size != size:
            raise ValueError(
                f"{what} reads {residual.size} numbers a move; this valuation gives "
                f"{size} ({len(self.linear)} terms, one per weight its scores are linear in, "
                f"then its inputs {list(residual.inputs)})"
            )

    def terms(
        self, observations: np.ndarray, mask: np.ndarray, weights: np.ndarray, phases: bool = False
    ) -> np.ndarray:
        """What each linear weight (:meth:`linear_of` ``phases``) adds to each action's
        score, per unit (rows, actions, weights), 0 where an action is not legal or goes
        out. Scores are linear in these weights, so their dot product with those of
        ``weights`` is the score less what the others add; the others are held at
        ``weights``' values. ValueError for a valuation linear in no weight."""
        base, rows, actions, terms = self.scored_terms(observations, mask, weights, phases)
        out = np.zeros((*base.shape, terms.shape[1]))
        out[rows, actions] = terms
        return out

    def scored_terms(
        self, observations: np.ndarray, mask: np.ndarray, weights: np.ndarray, phases: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`terms` of the finite scores only, without the rows of zeros: the scores
        with ``weights`` (rows, actions), the row and the action of each finite one, and
        its terms (one row each, in the order of ``np.nonzero``)."""
        linear = self.linear_of(phases)
        if not linear:
            raise ValueError("this valuation is linear in none of its weights: it has no terms")
        obs = np.ascontiguousarray(observations, np.float32)
        mask = np.ascontiguousarray(mask, np.int8)
        scores, terms = self.score_terms(obs, mask, weights)  # type: ignore[misc]
        rows, actions = np.nonzero(mask)
        base = np.full(mask.shape, -np.inf)
        base[rows, actions] = scores
        finite = np.isfinite(scores)
        return base, rows[finite], actions[finite], terms[finite][:, linear]


@dataclass(frozen=True)
class ValuationPolicy:
    """A valuation's best-scored move with ``weights`` and ``residual``
    (:meth:`Valuation.corrected_scores`; the lowest id among equals, the one legal action
    where nothing is scored), as a batched policy (``act_batch``): what a policy file
    whose network's own output is zero plays, without the network."""

    valuation: Valuation
    weights: np.ndarray
    residual: Residual | None = None
    name: str = "valuation"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, np.float32)
        masks = np.ascontiguousarray(masks, np.int8)
        scores = self.valuation.corrected_scores(obs, masks, self.weights, self.residual)
        unscored = np.finfo(np.float64).min  # a draw or a pass, alone legal
        return np.argmax(np.where(masks != 0, np.maximum(scores, unscored), -np.inf), axis=1)


@dataclass(frozen=True)
class Feature:
    """One named feature of one game: the game whose observations it reads (an
    ``Encoding``'s ``game_name``), its size, and the function from observations (rows) to
    its values (rows of ``size``). A feature with a ``valuation`` can also be computed
    with other weights than its player's (:meth:`values`)."""

    name: str
    game: str
    size: int
    compute: Callable[[np.ndarray], np.ndarray]
    valuation: Valuation | None = None

    def values(
        self,
        observations: np.ndarray,
        weights: np.ndarray | None = None,
        residual: Residual | None = None,
    ) -> np.ndarray:
        """The feature of each row; ``weights`` (only for a feature with a valuation)
        in place of the player's own, and a ``residual`` added to its scores."""
        if weights is None and residual is None:
            return self.compute(observations)
        if self.valuation is None:
            raise ValueError(f"the feature {self.name!r} takes no weights")
        if weights is None:
            weights = self.valuation.defaults
        return self.valuation.advantages(observations, weights, residual)


__all__ = [
    "ADVANTAGE_POINTS",
    "Feature",
    "InputGroup",
    "Residual",
    "Valuation",
    "ValuationPolicy",
    "advantages",
]
