"""MaskablePPO self-play training: ``spinner-train --config configs/quick.yaml``.

The learner plays one seat (rotating) of every game of the game's batched engine
(:func:`spinner_env.train.vec_env.make_vec_env`, ``n_envs`` games in one call); the other
seats are drawn, every episode and seat by seat, from an opponent pool that holds fixed
opponents (any ``spinner_env.agents.make_agent`` spec) and frozen snapshots of the learner, a new
snapshot every ``opponents.snapshot_every`` steps (the oldest dropped past ``max_snapshots``).

The config is checked against :mod:`spinner_env.train.config` before anything runs. Writes under
``out_dir``: ``config.yaml``, TensorBoard logs (``tb/``), periodic checkpoints
(``checkpoints/model_<steps>_steps.zip``), the final model (``final.zip``), its policy
alone (``<name>.safetensors``, small and safe to share: what ``spinner_env.agents.PolicyAgent``
loads) and ``trained.json``, the steps asked for and trained. PPO trains whole rollouts of
``ppo.n_steps`` x ``n_envs`` steps: a ``total_timesteps`` that is not a multiple is rounded up
to one, and the run says so before it starts (:func:`planned_steps`).
An existing run directory is refused unless ``--resume`` (continue from its latest
checkpoint up to ``total_timesteps``) or ``--overwrite`` (start again). ``init_from`` (or
``--init-from``) starts from saved weights (a ``.zip`` model or a policy file). Every
``eval.every`` steps the learner plays ``eval.matches`` full matches on duplicate deals
(``spinner_env.train.evaluate``) against each opponent of ``eval.against``; the win rates
go to the log as ``eval/win_rate_<name>``.
"""

from __future__ import annotations

import json
import math
import re
import time
import zipfile
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from spinner_env.agents import make_agent
from spinner_env.agents.features import ObservationFeatures
from spinner_env.agents.policy import SUFFIX as POLICY_SUFFIX
from spinner_env.agents.policy import (
    PolicyAgent,
    PolicyHeader,
    PriorPolicy,
    ValueTarget,
    load_policy,
    save_policy,
)
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.config import (
    TrainConfig,
    check_command,
    check_out_dir,
    config_help,
    load_config,
)
from spinner_env.train.evaluate import Estimate, tournament
from spinner_env.train.imitate import pretrain
from spinner_env.train.vec_env import WithFeatures, make_vec_env
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import VecEnv
from threadpoolctl import threadpool_limits

from spinner_env.core.agent import Agent
from spinner_env.files import atomic_write, prepare_out_dir, write_text_atomic
from spinner_env.games import game_spec

TRAINED = "trained.json"
"""The run's file of the steps asked for (``total_timesteps``) and trained."""


@dataclass
class OpponentPool:
    """Fixed opponents (agent specs) with sampling weights, plus the learner's snapshots.

    The snapshots share ``snapshot_weight`` equally; each opponent seat of each episode
    is drawn independently.
    """

    baselines: dict[str, float]
    snapshot_weight: float = 0.0
    max_snapshots: int = 5
    seed: int = 0
    snapshots: list[Agent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._agents = {}
        for spec in self.baselines:
            try:
                self._agents[spec] = make_agent(spec, seed=self.seed)
            except ValueError as error:
                raise ValueError(f"opponents.baselines: {error}") from error

    def add_snapshot(self, agent: Agent) -> None:
        self.snapshots.append(agent)
        del self.snapshots[: -self.max_snapshots]

    def members(self) -> tuple[list[Agent], np.ndarray]:
        agents = [self._agents[spec] for spec in self.baselines]
        weights = list(self.baselines.values())
        if self.snapshots and self.snapshot_weight > 0:
            agents += self.snapshots
            weights += [self.snapshot_weight / len(self.snapshots)] * len(self.snapshots)
        w = np.asarray(weights, dtype=float)
        return agents, w / w.sum()

    def __call__(self, rng: np.random.Generator, count: int) -> list[Agent]:
        agents, p = self.members()
        return [agents[i] for i in rng.choice(len(agents), size=count, p=p)]


def make_pool(config: TrainConfig, seed: int) -> OpponentPool:
    """The config's opponent pool (``opponents``: fixed opponents and snapshot settings)."""
    return OpponentPool(
        baselines=dict(config.opponents.baselines),
        snapshot_weight=config.opponents.snapshot_weight,
        max_snapshots=config.opponents.max_snapshots,
        seed=seed,
    )


def make_training_env(config: TrainConfig, pool: OpponentPool) -> VecEnv:
    """The learner's ``n_envs`` games as an SB3 VecEnv, all stepped in one call on the
    game's batched engine; the config's ``features`` follow each observation."""
    vec_env: VecEnv = make_vec_env(
        config.n_envs,
        config.num_players,
        pool,
        game=config.game,
        skip_forced=config.skip_forced,
        **config.env,
    )
    features = config.observation_features()
    return vec_env if features is None else WithFeatures(vec_env, features)


def limit_threads(threads: int) -> None:
    """Torch and numpy's BLAS to ``threads`` threads each."""
    torch.set_num_threads(threads)
    # numpy's BLAS too (the snapshots' and trained opponents' forward passes): on a busy
    # machine its spinning threads made a 32-row pass 15 times slower (45 ms against 3).
    threadpool_limits(threads, user_api="blas")


def value_target(config: TrainConfig) -> ValueTarget:
    """What a policy trained by ``config`` has its critic predict (PPO's and the cloning's
    value loss alike): the discounted return under the config's reward and episode."""
    env = config.env
    return ValueTarget(env.get("reward", "match"), env.get("episode", "match"), config.ppo.gamma)


def make_model(config: TrainConfig, vec_env: VecEnv, tensorboard: Path, seed: int) -> MaskablePPO:
    """A fresh MaskablePPO learner of the config's network and settings on ``vec_env``
    (with the config's ``prior``, a :class:`PriorPolicy` that starts as its prior)."""
    kwargs = config.ppo.model_kwargs()
    where = config.prior_slice()
    if where is not None:
        kwargs["policy_kwargs"].update(prior=config.prior, prior_slice=(where.start, where.stop))
    return MaskablePPO(
        "MlpPolicy" if where is None else PriorPolicy,
        vec_env,
        seed=seed,
        device="cpu",
        tensorboard_log=str(tensorboard),
        verbose=0,
        **kwargs,
    )


def init_weights(model: MaskablePPO, path: Path, config: TrainConfig) -> None:
    """Start ``model`` from saved weights (the rest of ``config`` applies): a policy file
    (``.safetensors``, the config's game, network, features, their weights and residuals
    and prior: :func:`check_starts_as`) or a ``MaskablePPO.save`` ``.zip`` (its tensors
    only)."""
    if path.suffix != POLICY_SUFFIX:
        model.set_parameters(str(path), exact_match=True, device="cpu")
        return
    policy, header = load_policy(path, game_spec(config.game).encoding)
    check_starts_as(header, f"init_from: {str(path)!r}", config)
    try:
        model.policy.load_state_dict(policy.state_dict(), strict=True)
    except RuntimeError:
        raise ValueError(
            f"init_from: {str(path)!r} holds another network than ppo.policy_kwargs"
        ) from None


def check_starts_as(header: PolicyHeader, what: str, config: TrainConfig) -> None:
    """ValueError, beginning with ``what`` (the file), unless the policy file of
    ``header`` reads the config's ``features`` with its ``feature_weights`` and
    ``feature_residuals`` and has its ``prior``: what a config that starts from it names."""
    if list(header.features) != list(config.features):
        raise ValueError(
            f"{what} reads the features {list(header.features)}, the config {config.features}"
        )
    if header.prior != config.prior:
        raise ValueError(f"{what} has the prior {header.prior}, the config {config.prior}")
    wanted = {name: list(values) for name, values in config.feature_weights.items()}
    if {name: list(values) for name, values in header.feature_weights.items()} != wanted:
        raise ValueError(
            f"{what} has the feature weights {dict(header.feature_weights)}, "
            f"the config's feature_weights {wanted}"
        )
    held = {name: r.as_dict() for name, r in header.feature_residuals.items()}
    if held != {name: r.as_dict() for name, r in config.residuals.items()}:
        raise ValueError(
            f"{what} adds learned residuals to its features {sorted(held) or 'none'}; the "
            f"config's feature_residuals {config.feature_residuals} must name files that carry "
            "the same (the file itself does)"
        )


def start_from_init(model: MaskablePPO, config: TrainConfig) -> None:
    """:func:`init_weights` from the config's ``init_from``, if it names one."""
    if config.init_from:
        init_weights(model, config.init_file(), config)


def clone_teacher(model: MaskablePPO, config: TrainConfig, pool: OpponentPool) -> None:
    """The config's ``pretrain`` section, if any: fit the fresh policy to its teacher's
    play against the pool (:mod:`spinner_env.train.imitate`) and say how closely it follows."""
    if config.pretrain is None:
        return
    start = time.time()
    report = pretrain(model.policy, config.pretrain, config, pool)
    fitted = "cloned" if config.pretrain.actor else "fitted the value head to"
    print(
        f"pretrain: {fitted} {config.pretrain.imitate!r} in {time.time() - start:.0f} s, "
        f"cross-entropy {report.losses[-1]:.3f}, the teacher's move on "
        f"{report.holdout_accuracy:.1%} of {report.holdout_size} held-out decisions"
    )


def snapshot(
    policy: Any, num_timesteps: int, features: ObservationFeatures | None = None
) -> PolicyAgent:
    """A frozen copy of the learner's policy (reading ``features``) as a pool opponent;
    it samples its moves."""
    agent = PolicyAgent.frozen_copy(policy, f"snapshot_{num_timesteps}", features)
    agent.deterministic = False
    return agent


def save_model(model: BaseAlgorithm, path: Path) -> None:
    """``model.save`` in one step: a reader never finds a half-written zip."""
    with atomic_write(path, "wb") as f:
        model.save(f)


class PeriodicCallback(BaseCallback):
    """Runs :meth:`on_schedule` every ``every`` environment steps, counted from step 0
    (so a resumed run keeps the schedule of the run it continues)."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self.next_at = every

    def _on_training_start(self) -> None:
        self.next_at = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            self.on_schedule()
        return True

    @abstractmethod
    def on_schedule(self) -> None:
        """The job to run on the schedule."""


class SelfPlayCallback(PeriodicCallback):
    """Adds a frozen snapshot of the learner to the pool on a schedule."""

    def __init__(
        self, pool: OpponentPool, every: int, features: ObservationFeatures | None = None
    ) -> None:
        super().__init__(every)
        self.pool = pool
        self.features = features

    def on_schedule(self) -> None:
        self.pool.add_snapshot(snapshot(self.model.policy, self.num_timesteps, self.features))
        self.logger.record("selfplay/snapshots", len(self.pool.snapshots))


class CheckpointEvery(PeriodicCallback):
    """Saves the whole model as ``folder/model_<steps>_steps.zip`` on a schedule."""

    def __init__(self, folder: Path, every: int) -> None:
        super().__init__(every)
        self.folder = folder

    def on_schedule(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        save_model(self.model, self.folder / f"model_{self.num_timesteps}_steps.zip")


class EvaluationCallback(PeriodicCallback):
    """Full matches on duplicate deals (``spinner_env.train.evaluate``) against each opponent on a
    schedule: the learner (its most likely moves) in one seat, the opponent in the others.
    ``history`` keeps ``(steps, opponent name, match win rate)`` of every evaluation."""

    def __init__(self, config: TrainConfig, against: Sequence[str], every: int, matches: int):
        super().__init__(every)
        self.config = config
        self.matches = matches
        encoding = game_spec(config.game).encoding
        self.opponents = [make_agent(spec, seed=config.seed, encoding=encoding) for spec in against]
        self.history: list[tuple[int, str, Estimate]] = []

    def on_schedule(self) -> None:
        self.evaluate()

    def evaluate(self) -> dict[str, Estimate]:
        with torch.random.fork_rng():  # building the copy draws initial weights: not training's
            learner = PolicyAgent.frozen_copy(
                self.model.policy, "learner", self.config.observation_features()
            )
        rates = {}
        for opponent in self.opponents:
            report = tournament(
                [learner] + [opponent] * (self.config.num_players - 1),
                self.config.num_players,
                self.matches,
                self.config.seed + 10_000,
                self.config.game,
                self.config.env,
                progress=False,
            )
            rate = rates[opponent.name] = report.agents[learner.name]["match_win"]
            self.history.append((self.num_timesteps, opponent.name, rate))
            self.logger.record(f"eval/win_rate_{opponent.name}", rate.mean)
        if self.verbose:
            print(
                f"[eval @ {self.num_timesteps}] "
                + ", ".join(f"{k}: {v.percent()}" for k, v in rates.items())
            )
        return rates


def latest_checkpoint(out: Path) -> Path | None:
    """The run's latest model: ``final.zip`` once written, else its highest-step checkpoint."""
    if (out / "final.zip").is_file():
        return out / "final.zip"
    steps = {
        int(m[1]): path
        for path in (out / "checkpoints").glob("model_*_steps.zip")
        if (m := re.fullmatch(r"model_(\d+)_steps\.zip", path.name))
    }
    return steps[max(steps)] if steps else None


def trained_steps(checkpoint: Path) -> tuple[int, int]:
    """The steps and PPO updates a ``MaskablePPO.save`` archive has trained, read from
    its JSON ``data`` alone (SB3 pickles some of its other entries)."""
    try:
        with zipfile.ZipFile(checkpoint) as archive:
            data = json.loads(archive.read("data"))
        return int(data["num_timesteps"]), int(data["_n_updates"])
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile) as error:
        raise ValueError(f"{str(checkpoint)!r} is not a MaskablePPO checkpoint: {error}") from None


def prepare_run_dir(config: TrainConfig, out: Path, resume: bool, overwrite: bool) -> Path | None:
    """Check the run directory before any work; return the checkpoint to resume from.

    An existing, non-empty directory is refused unless ``resume`` (it must hold a run of
    the same config, ``total_timesteps`` aside) or ``overwrite`` (it must hold a run,
    which is deleted; anything else is left alone).
    """
    if resume and overwrite:
        raise ValueError("--resume and --overwrite exclude each other")
    saved = out / "config.yaml"
    if resume:
        if not saved.is_file():
            raise ValueError(f"nothing to resume in {str(out)!r}: no config.yaml there")
        previous = TrainConfig.from_dict(yaml.safe_load(saved.read_text()), str(saved))
        changed = _differences(previous.as_dict(), config.as_dict()) - {"total_timesteps"}
        if changed:
            raise ValueError(
                f"--resume: the config differs from the run's {str(saved)!r} in "
                f"{', '.join(sorted(changed))}"
            )
        checkpoint = latest_checkpoint(out)
        if checkpoint is None:
            raise ValueError(f"nothing to resume in {str(out)!r}: no checkpoint saved yet")
        return checkpoint
    how = "pass --resume to continue it or --overwrite to start again"
    prepare_out_dir(out, overwrite, saved.name, "training run", how)
    return None


def _differences(a: dict[str, Any], b: dict[str, Any], where: str = "") -> set[str]:
    """The dotted keys whose values differ between two nested dicts."""
    keys = set()
    for key in a.keys() | b.keys():
        name = f"{where}{key}"
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            keys |= _differences(a[key], b[key], f"{name}.")
        elif a.get(key) != b.get(key):
            keys.add(name)
    return keys


def train(
    config: TrainConfig | dict[str, Any],
    out_dir: Path | None = None,
    progress_bar: bool = True,
    *,
    resume: bool = False,
    overwrite: bool = False,
    callbacks: Sequence[BaseCallback] = (),
) -> Path:
    """Train as the config says; return the path of the saved policy (``<name>.safetensors``).

    A dict is checked against the schema first. ``callbacks`` run alongside the config's.
    """
    if not isinstance(config, TrainConfig):
        config = TrainConfig.from_dict(config)
    if config.league is not None:
        raise ValueError("the config has a league section: train it with spinner-league")
    out = Path(out_dir or config.out_dir)
    config = config.replace(out_dir=str(out))
    # Everything that can refuse the run comes before anything is written or deleted.
    pool = make_pool(config, config.seed)
    scheduled: list[BaseCallback] = []
    if config.opponents.snapshot_every:
        scheduled.append(
            SelfPlayCallback(pool, config.opponents.snapshot_every, config.observation_features())
        )
    if config.checkpoint_every:
        scheduled.append(CheckpointEvery(out / "checkpoints", config.checkpoint_every))
    if config.eval.every:
        evaluation = EvaluationCallback(
            config, config.eval.against, config.eval.every, config.eval.matches
        )
        evaluation.verbose = 1
        scheduled.append(evaluation)
    checkpoint = prepare_run_dir(config, out, resume, overwrite)

    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "config.yaml", yaml.safe_dump(config.as_dict(), sort_keys=False))
    limit_threads(config.torch_threads)
    set_random_seed(config.seed)
    vec_env = make_training_env(config, pool)
    model = make_model(config, vec_env, out / "tb", config.seed)
    if checkpoint is None:
        vec_env.seed(config.seed)
        start_from_init(model, config)
        clone_teacher(model, config, pool)
    else:
        # Weights and optimizer state as tensors, the step count from the JSON beside
        # them: MaskablePPO.load would unpickle the archive's other entries.
        model.set_parameters(str(checkpoint), exact_match=True, device="cpu")
        model.num_timesteps, model._n_updates = trained_steps(checkpoint)
        done = model.num_timesteps
        if done >= config.total_timesteps:
            raise ValueError(
                f"--resume: {str(checkpoint)!r} has trained {done} steps, total_timesteps is "
                f"{config.total_timesteps}: raise --total-timesteps to train on"
            )
        # New deals for the steps to come, not a replay of the run's first ones.
        set_random_seed(config.seed + done)
        vec_env.seed(config.seed + done)
        if config.opponents.snapshot_every and done >= config.opponents.snapshot_every:
            # The pool's snapshots live in memory only: the resumed policy stands in for them.
            pool.add_snapshot(snapshot(model.policy, done, config.observation_features()))
        print(f"resuming {str(out)!r} from {checkpoint.name} at {done} steps")
    start, steps_before = time.time(), model.num_timesteps
    planned = planned_steps(config, steps_before)
    if planned != config.total_timesteps:
        print(
            f"PPO trains whole rollouts of n_steps x n_envs = {config.ppo.n_steps} x "
            f"{config.n_envs} = {rollout_steps(config):,} steps: total_timesteps "
            f"{config.total_timesteps:,} rounds up to {planned:,}"
        )
    model.learn(
        total_timesteps=planned - steps_before,
        callback=CallbackList([*scheduled, *callbacks]),
        progress_bar=progress_bar,
        tb_log_name=config.name,
        reset_num_timesteps=checkpoint is None,
    )
    elapsed = time.time() - start
    save_model(model, out / "final.zip")
    policy_path = out / f"{config.name}{POLICY_SUFFIX}"
    save_policy(
        model.policy,
        policy_path,
        game_spec(config.game).encoding,
        config.observation_features(),
        value_target(config),
    )
    steps = model.num_timesteps - steps_before
    trained = {
        "total_timesteps": config.total_timesteps,
        "trained_timesteps": model.num_timesteps,
        "seconds": round(elapsed, 1),
    }
    write_text_atomic(out / TRAINED, json.dumps(trained, indent=2))
    print(
        f"trained {steps} steps in {elapsed:.0f} s ({steps / elapsed:.0f} steps/s, "
        f"{model.num_timesteps} in all); saved {out / 'final.zip'}, {policy_path}"
    )
    return policy_path


def rollout_steps(config: TrainConfig) -> int:
    """The steps of one PPO rollout: ``n_steps`` in each of the ``n_envs`` games."""
    return config.ppo.n_steps * config.n_envs


def planned_steps(config: TrainConfig, steps_before: int = 0) -> int:
    """The steps a run will have trained at its end: from ``steps_before`` (a resumed
    run's), ``total_timesteps`` rounded up to whole rollouts (SB3's PPO collects a whole
    rollout before it checks the count)."""
    remaining = max(0, config.total_timesteps - steps_before)
    return steps_before + math.ceil(remaining / rollout_steps(config)) * rollout_steps(config)


def training_parser(prog: str, description: str) -> ArgumentParser:
    """A training command's arguments: the config, its overrides, ``--no-progress``."""
    parser = ArgumentParser(prog, description)
    parser.add_argument("--config", required=True, type=Path, help=config_help(prog))
    parser.add_argument("--out-dir", type=Path, default=None, help="overrides the config's out_dir")
    parser.add_argument(
        "--total-timesteps",
        type=int,
        default=None,
        help="overrides the config (rounded up to whole PPO rollouts, said before training)",
    )
    parser.add_argument("--seed", type=int, default=None, help="overrides the config's seed")
    parser.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="start from these weights (a .zip model or a .safetensors policy file)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def config_of(args: Any, command: str) -> TrainConfig:
    """The config file of :func:`training_parser`'s arguments, with their overrides; a config
    for another command than ``command``, or one that would write a committed agent's file
    name where the user did not ask (``--out-dir``), is refused."""
    config = load_config(args.config)
    check_command(config, command, args.config)
    check_out_dir(config, args.out_dir)
    overrides: dict[str, Any] = {}
    for key in ("total_timesteps", "seed", "init_from", "out_dir"):
        value = getattr(args, key)
        if value is not None:
            overrides[key] = str(value) if isinstance(value, Path) else value
    return config.replace(**overrides)


def main(argv: Sequence[str] | None = None) -> Path:
    parser = training_parser("spinner-train", "MaskablePPO self-play training")
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in out_dir from its latest checkpoint",
    )
    existing.add_argument(
        "--overwrite", action="store_true", help="delete the run in out_dir and start again"
    )
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug):
        return train(
            config_of(args, "spinner-train"),
            progress_bar=not args.no_progress,
            resume=args.resume,
            overwrite=args.overwrite,
        )


if __name__ == "__main__":
    main()
