"""Policy iteration by rollouts: a hand-written player's weights learned from the values of
its own moves, and the policy file that plays them (issue 24).

A config's ``policy_iteration`` section drives it; the config's ``prior`` names the
valuation whose weights are learned (Spinner's ``expert``,
:class:`~spinner_env.agents.features.Valuation`), starting from its ``feature_weights`` or
the player's defaults. Each generation:

1. **Roots.** Batches of games of the config's game (hand episodes) are played on the
   batched engine with the current weights at every seat (at the start, plus the
   prior's residual if the config's ``feature_residuals`` names one); at ``root_share``
   of the decisions that offer a choice the position is kept (the engine's record of it,
   the seat's observation and mask).
2. **Values.** Every legal move of every root is played on a copy of the record, and the
   hand played out with the current weights at every seat, in one compiled call for all
   (:func:`spinner_env.batched.rollout._play_out`; a player without a compiled twin,
   Mexican Train's expert or one with a residual, decides every step from Python, all
   rollouts at once); the move's value is the seat's hand
   score (``hand_score``: the others' mean points less its own, here in points). The copy
   keeps the hidden hands and the boneyard as they lie: one draw of them from the
   posterior that the play itself induces, where PIMC deals them uniformly, and the same
   draw for every move of a root, so their differences are paired.
3. **Fit.** The valuation's score of a move is linear in its weights (but a threshold), so
   each move's value less its root's mean, regressed by least squares on each of its
   score's terms less the root's mean of that term, gives the weights whose scores best
   predict the values (in points: a score gap of one is one point of hand score). Roots
   where a move goes out are left out (every way out is worth the same). This is one step
   of approximate policy iteration (the regression stands in for the greedy step over
   the moves' values), in the family of the valuation's weights: the player's own, and
   with the section's ``phases`` its phase weights too (Spinner's: how each weight
   changes as the hands near their end, ``spinner_env.games.spinner.weights``).
   With the section's ``residual``, a small network of the same terms is then fitted to
   what the linear fit leaves of the values (:func:`fit_residual`), and added to the
   scores: a valuation no longer linear, whose correction may depend on the position.
   Each fit is measured on roots it did not see (:func:`linear_check`, and the
   residual's own held-out roots): does it pick moves worth more than the weights before
   it? In Mexican Train it did not
   (docs/results/policy_iteration.md#policy-iteration-in-mexican-train).
4. **Play.** The fitted weights (and residual) are the next generation's player, and make
   its policy file: the config's network reading the valuation's feature with them, the
   feature as its prior, its own output at zero, so it plays the fitted scores' best move
   (the network is left for later training to correct). A player with a residual rolls
   out the next generation in Python (:class:`~spinner_env.agents.features.ValuationPolicy`
   on the batched engine), about fifteen times slower than the compiled player.

Every generation's policy file then plays duplicate matches against the config's
opponents (the evaluator's ``tournament``: whole matches under the config's rules). The
run writes ``generation_<k>.safetensors``, ``policy_iteration.json`` (weights, roots,
values, timings and win rates per generation) and ``policy_iteration.png``. Batches run on
:mod:`spinner_env.train.executor` (``--workers``, ``--ray``); each reseeds what it plays
from its seed, so every backend gives the same weights.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from spinner_env.agents.features import (
    FEATURES,
    ObservationFeatures,
    Residual,
    Valuation,
    ValuationPolicy,
)
from spinner_env.agents.policy import SUFFIX as POLICY_SUFFIX
from spinner_env.agents.policy import save_policy
from spinner_env.train.config import PolicyIterationConfig, ResidualConfig, TrainConfig
from spinner_env.train.evaluate import save_figure
from spinner_env.train.executor import SERIAL, Executor
from spinner_env.train.generations import (
    describe_strength,
    fresh_policy,
    generations_main,
    strength,
)
from spinner_env.train.ppo import limit_threads
from stable_baselines3.common.utils import set_random_seed

from spinner_env.batched.core import BatchStep, _step
from spinner_env.batched.policy_rollout import play_out_records
from spinner_env.batched.rollout import _play_out
from spinner_env.files import prepare_out_dir, write_text_atomic
from spinner_env.games import game_spec

REPORT = "policy_iteration.json"
"""Every generation's numbers, rewritten after each; it marks a run's folder."""
BATCH_SEED = 7919
"""Batch i of generation g plays from seed ``config.seed + BATCH_SEED * (g * 1000 + i)``."""
HOLDOUT = 0.1
"""The share of roots :func:`linear_check` leaves out where the config has no residual
(whose ``holdout`` it uses)."""
CHUNK_STEPS = 25
"""Roots are valued every this many steps, so that their records never pile up."""


@dataclass(frozen=True)
class Values:
    """Every legal move of some roots: its terms (rows: moves; columns: every weight the
    valuation is linear in, :attr:`Valuation.linear`), its value (points of hand score),
    the index of its root (a root's moves are consecutive) and the residual's input groups
    (:meth:`Valuation.group_inputs`; None where it reads the terms alone)."""

    terms: np.ndarray
    values: np.ndarray
    roots: np.ndarray
    num_roots: int
    inputs: np.ndarray | None = None

    @cached_property
    def moves_per_root(self) -> np.ndarray:
        return np.bincount(self.roots, minlength=self.num_roots)

    @staticmethod
    def concatenate(parts: Sequence[Values]) -> Values:
        offsets = np.cumsum([0] + [p.num_roots for p in parts[:-1]])
        inputs = [p.inputs for p in parts if p.inputs is not None]
        return Values(
            np.concatenate([p.terms for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.roots + offset for p, offset in zip(parts, offsets, strict=True)]),
            sum(p.num_roots for p in parts),
            np.concatenate(inputs) if inputs else None,
        )


def valuation_of(config: TrainConfig) -> Valuation:
    """The valuation the config's prior reads; ValueError unless there is one whose scores
    are linear in some of its weights."""
    if config.prior is None:
        raise ValueError("policy iteration needs a prior: the valuation whose weights it learns")
    encoding = game_spec(config.game).encoding
    valuation = FEATURES[config.prior.feature][encoding.game_name].valuation
    if valuation is None or not valuation.linear:
        raise ValueError(
            f"the prior {config.prior.feature!r} of {config.game} has no valuation linear in "
            "its weights, which policy iteration fits"
        )
    residual = config.policy_iteration and config.policy_iteration.residual
    if residual:
        valuation.input_size(residual.inputs, "policy_iteration.residual.inputs")
    return valuation


def starting_weights(config: TrainConfig) -> np.ndarray:
    """The prior's weights in the config's ``feature_weights``, else the player's own."""
    valuation = valuation_of(config)
    weights = config.feature_weights.get(config.prior.feature)
    if weights is None:
        return valuation.defaults
    return valuation.checked(weights, "feature_weights")


@dataclass(frozen=True)
class RolloutStart:
    """Builds what values one batch of roots (an executor item: the batch's seed), here,
    in a worker process or in a Ray task."""

    config: TrainConfig
    weights: tuple[float, ...]
    residual: Residual | None = None

    def __call__(self) -> Any:
        weights = np.array(self.weights)
        return lambda seed: rollout_values(self.config, weights, seed, self.residual)


def rollout_values(
    config: TrainConfig, weights: np.ndarray, seed: int, residual: Residual | None = None
) -> Values:
    """One batch (module docstring, steps 1 and 2): ``games`` games from ``seed``, every
    seat played by the valuation with ``weights``, and ``residual`` added to its scores:
    by the player's compiled twin (Spinner's expert), else, and with a residual, which no
    compiled player runs, by the valuation's batched policy in Python (Mexican Train's
    expert: its compiled valuation, a call per step)."""
    settings = _settings(config)
    valuation = valuation_of(config)
    spec = game_spec(config.game)
    engine = spec.engine()(
        settings.games,
        spec.raw_env(num_players=config.num_players, **config.env).rules,
        reward="hand_score",
        episode="hand",
        learner_seat=None,
    )
    kinds = np.full(engine.max_players, spec.opponents().OPPONENT_HEURISTIC, np.int64)
    declared = getattr(valuation.player(weights, "rollouts"), "compiled_twin", None)
    twin = None if residual is not None or declared is None else declared(engine.rules)
    if twin is not None and twin.kind == "heuristic":  # the kind every seat plays in _play_out
        python = None
        player = spec.opponents().heuristic_policy(twin.weights, "rollouts", engine.rules)
    else:
        python = player = ValuationPolicy(valuation, weights, residual)
    groups = settings.residual.inputs if settings.residual else []
    out = engine.reset(seed)
    rng = np.random.default_rng(seed)
    parts, pending = [], []
    for step in range(settings.steps):
        choice = (out.mask.sum(axis=1) >= 2) & (rng.random(settings.games) < settings.root_share)
        if choice.any():
            pending.append(
                (engine.games[choice].copy(), out.obs[choice].copy(), out.mask[choice].copy())
            )
        out = engine.step(player.act_batch(out.obs, out.mask))
        if pending and ((step + 1) % CHUNK_STEPS == 0 or step + 1 == settings.steps):
            games, obs, masks = (np.concatenate(column) for column in zip(*pending, strict=True))
            parts.append(
                _value_roots(engine, valuation, weights, kinds, games, obs, masks, python, groups)
            )
            pending = []
    return Values.concatenate(parts)


def _value_roots(
    engine: Any,
    valuation: Valuation,
    weights: np.ndarray,
    kinds: np.ndarray,
    games: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    player: Any = None,
    groups: Sequence[str] = (),
) -> Values:
    """Every legal move of the roots ``games`` (their seat's ``obs`` and ``masks``) played
    out to the end of the hand, with its terms and its input ``groups`` (float32, none
    without groups); roots where a move goes out are left out. Every seat plays as
    ``kinds`` says with ``weights``, in one compiled call, or where ``player`` is given,
    by its ``act_batch``."""
    scores, rows, actions, terms = valuation.scored_terms(obs, masks, weights, phases=True)
    keep = ~np.isinf(np.where(masks != 0, scores, 0.0)).any(axis=1)
    kept = keep[rows]  # a kept root's legal moves are all finite, so all among the rows
    games = games[keep]
    roots = (np.cumsum(keep) - 1)[rows[kept]]
    actions, terms = actions[kept], terms[kept]
    inputs = None
    if groups:
        obs = np.ascontiguousarray(obs, np.float32)
        inputs = valuation.group_inputs(obs, rows[kept], actions, groups).astype(np.float32)
    copies = games[roots]
    seats = copies["current"].copy()
    out = BatchStep.zeros(len(roots), engine.obs_size, engine.num_actions, engine.max_players)
    moves = np.ones(len(roots), np.bool_)
    _step(copies, engine.params, np.zeros(1, np.uint64), actions, moves, out)
    values = out.rewards[np.arange(len(roots)), seats].copy()
    on = ~out.done
    rest = copies[on]
    played = BatchStep.zeros(len(rest), engine.obs_size, engine.num_actions, engine.max_players)
    if player is not None:
        scores = play_out_records(rest, engine.params, player, played, engine.max_players)
    else:
        seeds = np.zeros(len(rest), np.uint64)  # the player draws nothing at random
        _play_out(rest, engine.params, kinds, weights[None], seeds, played)
        scores = played.rewards
    values[on] = scores[np.arange(len(rest)), seats[on]]
    return Values(terms, values * 100.0, roots, len(games), inputs)


def fit_weights(
    values: Values, valuation: Valuation, weights: np.ndarray, phases: bool = False
) -> np.ndarray:
    """The weights whose scores best predict the moves' values, each less its root's mean
    (least squares, module docstring step 3): the valuation's linear weights, its phase
    weights among them if ``phases`` (``values`` has a term of each); the others stay at
    ``weights``'."""
    fitted = valuation.linear_of(phases)
    columns = [valuation.linear.index(i) for i in fitted]
    terms = np.stack([_centred(values, values.terms[:, j]) for j in columns], 1)
    solution, *_ = np.linalg.lstsq(terms, _centred(values, values.values), rcond=None)
    out = weights.copy()
    out[fitted] = solution
    return out


def linear_check(
    values: Values, valuation: Valuation, weights: np.ndarray, phases: bool, holdout: float
) -> dict[str, float]:
    """How the least-squares step does on roots it did not see: the same fit made without
    ``holdout`` of the roots (every ``round(1 / holdout)``-th), and on those the mean value of
    the move it picks less that of ``weights``' pick (``held_out_gain``, points a decision,
    with its 95% interval). The run's own fit uses every root; this only measures it."""
    held = _held_out_moves(values, holdout)
    kept, roots = np.unique(values.roots[~held], return_inverse=True)
    seen = Values(values.terms[~held], values.values[~held], roots, len(kept))
    fitted = fit_weights(seen, valuation, weights, phases)
    before = values.terms @ weights[valuation.linear]
    after = values.terms @ fitted[valuation.linear]
    gains = _picked(values, held, after) - _picked(values, held, before)
    return _gain(gains)


def _held_out_moves(values: Values, holdout: float) -> np.ndarray:
    """The moves of every ``round(1 / holdout)``-th root (at least every other): the roots
    both held-out measures keep out of their fits, the same for both."""
    return values.roots % max(2, round(1 / holdout)) == 0


def _gain(gains: np.ndarray) -> dict[str, float]:
    return {
        "held_out_roots": len(gains),
        "held_out_gain": float(gains.mean()),
        "held_out_gain_interval": float(1.96 * gains.std() / np.sqrt(len(gains))),
    }


def _picked(values: Values, held: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The value of the move with the highest of ``scores`` (the first among equals: the
    lowest action id) at each root of the moves ``held``."""
    roots, scores = values.roots[held], scores[held]
    starts = np.flatnonzero(np.r_[True, roots[1:] != roots[:-1]])
    best = np.maximum.reduceat(scores, starts)
    first = np.full(len(starts), len(scores))
    index = np.flatnonzero(scores == np.repeat(best, np.diff(np.r_[starts, len(scores)])))
    np.minimum.at(first, np.searchsorted(starts, index, side="right") - 1, index)
    return values.values[held][first]


def _centred(values: Values, column: np.ndarray) -> np.ndarray:
    """``column`` (one number per move of ``values``) less its root's mean."""
    means = np.bincount(values.roots, column, values.num_roots) / values.moves_per_root
    return column - means[values.roots]


def fit_residual(
    values: Values,
    valuation: Valuation,
    weights: np.ndarray,
    settings: ResidualConfig,
    seed: int,
) -> tuple[Residual, dict[str, float]]:
    """A :class:`Residual` of the moves' terms and input groups (``settings.inputs``, which
    ``values`` holds) fitted to what the scores with ``weights`` leave of their values,
    both less their root's mean (:class:`ResidualConfig`), and how it does on the held-out
    roots: the mean value of the move it picks less that of the
    weights' pick (``held_out_gain``, points a decision, with its 95% interval), and both
    fits' mean squared error there."""
    linear = values.terms @ weights[valuation.linear]
    target = _centred(values, values.values - linear)
    held = _held_out_moves(values, settings.holdout)
    train_roots = np.unique(values.roots[~held])
    x = values.terms.astype(np.float32)
    if settings.inputs:
        if values.inputs is None:
            raise ValueError(f"no input groups in the values; the residual reads {settings.inputs}")
        x = np.concatenate([x, values.inputs.astype(np.float32)], axis=1)
    mean = x[~held].mean(axis=0)
    scale = x[~held].std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0).astype(np.float32)
    torch.manual_seed(seed)
    widths = [x.shape[1], *settings.layers]
    modules: list[torch.nn.Module] = []
    for wide, narrow in pairwise(widths):
        modules += [torch.nn.Linear(wide, narrow), torch.nn.Tanh()]
    out_layer = torch.nn.Linear(widths[-1], 1)
    torch.nn.init.zeros_(out_layer.weight)  # it starts as the linear fit
    torch.nn.init.zeros_(out_layer.bias)
    network = torch.nn.Sequential(*modules, out_layer)
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)
    inputs = torch.from_numpy((x - mean) / scale)
    targets = torch.from_numpy(target.astype(np.float32))
    rng = np.random.default_rng(seed)
    starts = np.searchsorted(values.roots, np.arange(values.num_roots + 1))
    for _ in range(settings.epochs):
        order = rng.permutation(train_roots)
        for first in range(0, len(order), settings.minibatch_roots):
            batch = order[first : first + settings.minibatch_roots]
            sizes = starts[batch + 1] - starts[batch]
            moves = np.repeat(starts[batch] - np.cumsum(sizes) + sizes, sizes) + np.arange(
                sizes.sum()
            )
            group = torch.from_numpy(np.repeat(np.arange(len(batch)), sizes))
            error = targets[moves] - network(inputs[moves])[:, 0]
            means = torch.zeros(len(batch)).index_add(0, group, error) / torch.from_numpy(
                sizes.astype(np.float32)
            )
            loss = ((error - means[group]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    residual = Residual(
        mean.astype(np.float64),
        scale.astype(np.float64),
        tuple(
            (m.weight.detach().double().numpy(), m.bias.detach().double().numpy())
            for m in network
            if isinstance(m, torch.nn.Linear)
        ),
        tuple(settings.inputs),
    )
    with torch.no_grad():  # the network's float32 twin of residual(x), at a tenth of the memory
        correction = network(inputs)[:, 0].double().numpy()
    return residual, _held_out(values, held, linear, correction, target)


def _held_out(
    values: Values,
    held: np.ndarray,
    linear: np.ndarray,
    correction: np.ndarray,
    target: np.ndarray,
) -> dict[str, float]:
    """:func:`fit_residual`'s measures on the held-out roots (``held``: their moves)."""
    gains = _picked(values, held, linear + correction) - _picked(values, held, linear)
    centred_correction = _centred(values, correction)[held]
    return {
        **_gain(gains),
        "held_out_error_linear": float(np.mean(target[held] ** 2)),
        "held_out_error": float(np.mean((target[held] - centred_correction) ** 2)),
    }


def policy_file(
    config: TrainConfig,
    weights: np.ndarray,
    generation: int,
    path: Path,
    residual: Residual | None = None,
) -> Path:
    """Generation ``generation``'s policy file: the config's fresh network reading the
    prior's feature with ``weights`` (and ``residual`` added to its scores), that feature
    as its prior and its own output at zero, so it plays the best-scored moves. Its hidden
    layers, which play no part yet, are drawn from the config's seed and the generation; it
    claims no value head (none is trained)."""
    learned = {**config.feature_weights, config.prior.feature: weights.tolist()}
    config = config.replace(feature_weights=learned)
    set_random_seed(config.seed + generation)
    encoding = game_spec(config.game).encoding
    features = ObservationFeatures(
        config.features,
        encoding,
        learned,
        {} if residual is None else {config.prior.feature: residual},
    )
    return save_policy(fresh_policy(config), path, encoding, features)


def policy_iteration(
    config: TrainConfig,
    out: Path,
    executor: Executor = SERIAL,
    overwrite: bool = False,
    progress: bool = False,
    command: str = "",
) -> tuple[Path, dict[str, Any]]:
    """Run the config's ``policy_iteration`` section as the module docstring says; the
    last generation's policy file and the report (``policy_iteration.json``'s content)."""
    settings = _settings(config)
    valuation = valuation_of(config)
    weights = starting_weights(config)
    limit_threads(config.torch_threads)
    prepare_out_dir(out, overwrite, REPORT, "policy iteration run")
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "config.yaml", yaml.safe_dump(config.as_dict(), sort_keys=False))
    residual = config.residuals.get(config.prior.feature)  # later ones fit their own
    files = [policy_file(config, weights, 0, out / f"generation_0{POLICY_SUFFIX}", residual)]
    against = {spec: spec for spec in settings.eval_against}
    report: dict[str, Any] = {
        "command": command,
        "weight_names": list(valuation.weight_names),
        "start": {
            "weights": weights.tolist(),
            "strength": strength(config, files[0], against, settings.eval_matches, executor),
        },
        "generations": [],
    }
    print(f"generation 0: {describe_strength(report['start']['strength'])}", flush=True)
    write_text_atomic(out / REPORT, json.dumps(report, indent=1))
    for number in range(1, settings.generations + 1):
        started = time.time()
        seeds = [config.seed + BATCH_SEED * (number * 1000 + i) for i in range(settings.batches)]
        start = RolloutStart(config, tuple(weights.tolist()), residual)
        values = Values.concatenate(
            list(executor.map(start, seeds, progress=progress, unit="batch"))
        )
        valued = time.time() - started
        holdout = settings.residual.holdout if settings.residual else HOLDOUT
        linear_fit = linear_check(values, valuation, weights, settings.phases, holdout)
        weights = fit_weights(values, valuation, weights, settings.phases)
        residual, residual_fit = None, None  # the start's residual fits the start's weights
        if settings.residual is not None:
            residual, residual_fit = fit_residual(
                values, valuation, weights, settings.residual, config.seed + number
            )
        path = out / f"generation_{number}{POLICY_SUFFIX}"
        files.append(policy_file(config, weights, number, path, residual))
        fitted = time.time() - started - valued
        rates = strength(
            config,
            files[-1],
            {**against, "previous": str(files[-2])},
            settings.eval_matches,
            executor,
        )
        generation = {
            "generation": number,
            "roots": values.num_roots,
            "moves_valued": len(values.values),
            "weights": weights.tolist(),
            "linear_fit": linear_fit,
            "residual_fit": residual_fit,
            "strength": rates,
            "value_seconds": valued,
            "fit_seconds": fitted,
            "eval_seconds": time.time() - started - valued - fitted,
        }
        report["generations"].append(generation)
        print(describe(generation), flush=True)
        write_text_atomic(out / REPORT, json.dumps(report, indent=1))
    plot(report, out / "policy_iteration.png", 1 / config.num_players)
    return files[-1], report


def describe(generation: dict[str, Any]) -> str:
    """A generation's numbers on one line."""
    linear, residual = generation.get("linear_fit"), generation.get("residual_fit")
    measures = [
        f"{what} {fit['held_out_gain']:+.3f} ± {fit['held_out_gain_interval']:.3f}"
        for what, fit in (
            ("the fit over the previous weights", linear),
            ("the residual over the fit", residual),
        )
        if fit is not None
    ]
    held = linear or residual
    held_out = (
        f"held out ({held['held_out_roots']} roots), the pick's gain in points a decision: "
        f"{', '.join(measures)}; "
        if held
        else ""
    )
    return (
        f"generation {generation['generation']}: {generation['roots']} roots, "
        f"{generation['moves_valued']} moves played out; {held_out}"
        f"{describe_strength(generation['strength'])} "
        f"(values {generation['value_seconds']:.0f} s, fit {generation['fit_seconds']:.0f} s, "
        f"evaluate {generation['eval_seconds']:.0f} s)"
    )


def plot(report: dict[str, Any], path: Path, fair_share: float) -> None:
    """Each generation's match win rate (95% intervals) against each fixed opponent
    (generation 0: the start), as a PNG; a dashed line at ``fair_share``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    points = [report["start"], *report["generations"]]
    for name in report["start"]["strength"]:
        rates = [p["strength"][name] for p in points]
        means = np.array([r["mean"] for r in rates])
        spread = [means - [r["low"] for r in rates], [r["high"] for r in rates] - means]
        ax.errorbar(range(len(rates)), means, yerr=spread, marker="o", capsize=4, label=name)
    ax.axhline(fair_share, color="grey", linestyle="--", label="fair share")
    ax.set_xlabel("generation (0: the start)")
    ax.set_ylabel("match win rate")
    ax.set_title("policy iteration by rollouts")
    ax.legend()
    save_figure(fig, path)
    plt.close(fig)


def _settings(config: TrainConfig) -> PolicyIterationConfig:
    if config.policy_iteration is None:
        raise ValueError(
            "the config needs a policy_iteration section: its generations, batches and games"
        )
    return config.policy_iteration


def main(argv: Sequence[str] | None = None) -> tuple[Path, dict[str, Any]]:
    return generations_main(
        argv,
        "spinner-policy-iteration",
        __doc__.split("\n\n")[0],
        "policy_iteration",
        "batches",
        "the rollout batches and evaluation deals",
        _settings,
        policy_iteration,
        REPORT,
    )


if __name__ == "__main__":
    main()
