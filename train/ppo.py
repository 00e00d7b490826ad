"""MaskablePPO self-play training: ``python -m train.ppo --config configs/quick.yaml``.

The learner plays one seat (rotating) of :class:`spinner_env.wrappers.SingleAgentEnv`;
the other seats are drawn, every episode and seat by seat, from an opponent pool that
holds the baselines and frozen snapshots of the learner, a new snapshot every
``opponents.snapshot_every`` steps (the oldest dropped past ``max_snapshots``).

Writes under ``out_dir``: TensorBoard logs (``tb/``), periodic checkpoints
(``checkpoints/``), the final model (``final.zip``) and its policy alone
(``<name>.safetensors``, small and safe to share: what ``agents.PolicyAgent`` loads).
``init_from`` (or ``--init-from``) starts from a saved model's weights. Every
``eval.every`` steps the learner plays ``eval.matches`` full matches against each
baseline of ``eval.against`` (sb3-contrib's maskable ``evaluate_policy``); the win rates
go to the log as ``eval/win_rate_<name>``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from agents import BASELINES, make_agent
from agents.base import Agent
from agents.policy import SUFFIX as POLICY_SUFFIX
from agents.policy import PolicyAgent, save_policy
from spinner_env.vector import make_vec_env
from spinner_env.wrappers import SingleAgentEnv
from train.games import game_spec


@dataclass
class OpponentPool:
    """Baselines with sampling weights, plus the learner's recent snapshots.

    The snapshots share ``snapshot_weight`` equally; each opponent seat of each episode
    is drawn independently.
    """

    baselines: dict[str, float]
    snapshot_weight: float = 0.0
    max_snapshots: int = 5
    seed: int = 0
    snapshots: list[Agent] = field(default_factory=list)

    def __post_init__(self) -> None:
        unknown = set(self.baselines) - set(BASELINES)
        if unknown:
            raise ValueError(f"unknown baselines in the opponent pool: {sorted(unknown)}")
        self._agents = {name: make_agent(name, seed=self.seed) for name in self.baselines}

    def add_snapshot(self, agent: Agent) -> None:
        self.snapshots.append(agent)
        del self.snapshots[: -self.max_snapshots]

    def members(self) -> tuple[list[Agent], np.ndarray]:
        agents = [self._agents[name] for name in self.baselines]
        weights = list(self.baselines.values())
        if self.snapshots and self.snapshot_weight > 0:
            agents += self.snapshots
            weights += [self.snapshot_weight / len(self.snapshots)] * len(self.snapshots)
        w = np.asarray(weights, dtype=float)
        return agents, w / w.sum()

    def __call__(self, rng: np.random.Generator, count: int) -> list[Agent]:
        agents, p = self.members()
        return [agents[i] for i in rng.choice(len(agents), size=count, p=p)]


def make_env(
    config: dict[str, Any], opponents: Any, env_overrides: dict[str, Any] | None = None
) -> SingleAgentEnv:
    """The learner's env for a config, with ``env_overrides`` on the AEC env's arguments."""
    spec = game_spec(config.get("game", "spinner"))
    env_args = {**config.get("env", {}), **(env_overrides or {})}
    aec = spec.raw_env(num_players=config["num_players"], **env_args)
    return SingleAgentEnv(aec, opponents, skip_forced=config.get("skip_forced", False))


def make_pool(config: dict[str, Any], seed: int) -> OpponentPool:
    """The config's opponent pool (``opponents``: baselines and snapshot settings)."""
    opp = config.get("opponents", {})
    return OpponentPool(
        baselines=dict(opp.get("baselines", {"random": 1.0})),
        snapshot_weight=float(opp.get("snapshot_weight", 0.0)),
        max_snapshots=int(opp.get("max_snapshots", 5)),
        seed=seed,
    )


def make_training_env(config: dict[str, Any], pool: OpponentPool) -> VecEnv:
    """The learner's ``n_envs`` games as an SB3 VecEnv: ``backend: aec`` (the default) steps
    a ``SingleAgentEnv`` per game; ``backend: batched`` (Spinner) all games in one call."""
    n_envs = int(config.get("n_envs", 1))
    if config.get("backend", "aec") == "batched":
        if config.get("game", "spinner") != "spinner":
            raise ValueError("backend: batched plays Spinner only (game: spinner)")
        return make_vec_env(
            n_envs,
            config["num_players"],
            pool,
            skip_forced=config.get("skip_forced", False),
            **config.get("env", {}),
        )
    return DummyVecEnv([lambda: Monitor(make_env(config, pool)) for _ in range(n_envs)])


def snapshot(policy: Any, num_timesteps: int) -> PolicyAgent:
    """A frozen copy of the learner's policy as a pool opponent; it samples its moves."""
    agent = PolicyAgent.frozen_copy(policy, f"snapshot_{num_timesteps}")
    agent.deterministic = False
    return agent


class SelfPlayCallback(BaseCallback):
    """Adds a frozen snapshot of the learner to the pool on a schedule."""

    def __init__(self, pool: OpponentPool, every: int) -> None:
        super().__init__()
        self.pool = pool
        self.every = every
        self.next_at = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            self.pool.add_snapshot(snapshot(self.model.policy, self.num_timesteps))
            self.logger.record("selfplay/snapshots", len(self.pool.snapshots))
        return True


class BaselineEvalCallback(BaseCallback):
    """Full matches against each baseline on a schedule, with the maskable evaluator."""

    def __init__(self, config: dict[str, Any], against: Sequence[str], every: int, matches: int):
        super().__init__()
        self.every = every
        self.matches = matches
        self.next_at = every
        seed = config.get("seed", 0)
        # Evaluation plays whole matches for the zero-sum match reward, whatever training uses.
        self.envs = {
            name: Monitor(
                make_env(
                    config,
                    make_agent(name, seed=seed),
                    {"reward": "match", "episode": "match"},
                )
            )
            for name in against
        }
        for i, env in enumerate(self.envs.values()):
            env.reset(seed=seed + 10_000 + i)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            self.evaluate()
        return True

    def evaluate(self) -> dict[str, float]:
        rates = {}
        for name, env in self.envs.items():
            rewards, _ = evaluate_policy(
                self.model, env, n_eval_episodes=self.matches, return_episode_rewards=True
            )
            # The zero-sum match reward is positive exactly for the match's winners (S7.2).
            rates[name] = float(np.mean(np.asarray(rewards) > 0))
            self.logger.record(f"eval/win_rate_{name}", rates[name])
            self.logger.record(f"eval/mean_reward_{name}", float(np.mean(rewards)))
        if self.verbose:
            print(
                f"[eval @ {self.num_timesteps}] "
                + ", ".join(f"{k}: {v:.2f}" for k, v in rates.items())
            )
        return rates


def load_config(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        config = yaml.safe_load(f)
    for key in ("num_players", "total_timesteps"):
        if key not in config:
            raise ValueError(f"{path}: the config must set {key}")
    return config


def train(config: dict[str, Any], out_dir: Path | None = None, progress_bar: bool = True) -> Path:
    """Train as the config says; return the path of the saved policy (``<name>.safetensors``)."""
    out = Path(out_dir or config.get("out_dir", "runs/ppo"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(config))
    torch.set_num_threads(int(config.get("torch_threads", 1)))
    seed = int(config.get("seed", 0))
    set_random_seed(seed)

    pool = make_pool(config, seed)
    vec_env = make_training_env(config, pool)
    vec_env.seed(seed)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        seed=seed,
        device="cpu",
        tensorboard_log=str(out / "tb"),
        verbose=0,
        **config.get("ppo", {}),
    )
    if config.get("init_from"):
        # Weights only (a .zip from MaskablePPO.save): the rest of the config applies.
        model.set_parameters(str(config["init_from"]), exact_match=True, device="cpu")
    callbacks: list[BaseCallback] = []
    snapshot_every = config.get("opponents", {}).get("snapshot_every")
    if snapshot_every:
        callbacks.append(SelfPlayCallback(pool, int(snapshot_every)))
    if config.get("checkpoint_every"):
        callbacks.append(
            CheckpointCallback(
                max(1, int(config["checkpoint_every"]) // vec_env.num_envs),
                str(out / "checkpoints"),
                name_prefix="model",
            )
        )
    ev = config.get("eval", {})
    if ev.get("every"):
        evaluation = BaselineEvalCallback(
            config, ev.get("against", list(BASELINES)), int(ev["every"]), int(ev.get("matches", 20))
        )
        evaluation.verbose = 1
        callbacks.append(evaluation)
    start = time.time()
    model.learn(
        total_timesteps=int(config["total_timesteps"]),
        callback=CallbackList(callbacks),
        progress_bar=progress_bar,
        tb_log_name=config.get("name", "ppo"),
    )
    elapsed = time.time() - start
    model.save(out / "final.zip")
    policy_path = out / f"{config.get('name', 'ppo')}{POLICY_SUFFIX}"
    save_policy(model.policy, policy_path, game_spec(config.get("game", "spinner")).encoding)
    print(
        f"trained {model.num_timesteps} steps in {elapsed:.0f} s "
        f"({model.num_timesteps / elapsed:.0f} steps/s); saved {out / 'final.zip'}, {policy_path}"
    )
    return policy_path


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="MaskablePPO self-play training")
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--out-dir", type=Path, default=None, help="overrides the config's out_dir")
    parser.add_argument("--total-timesteps", type=int, default=None, help="overrides the config")
    parser.add_argument("--seed", type=int, default=None, help="overrides the config")
    parser.add_argument(
        "--init-from", type=Path, default=None, help="start from this model's weights (.zip)"
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    for key in ("total_timesteps", "seed", "init_from"):
        if getattr(args, key) is not None:
            config[key] = str(getattr(args, key)) if key == "init_from" else getattr(args, key)
    config.setdefault("name", args.config.stem)
    return train(config, args.out_dir, progress_bar=not args.no_progress)


if __name__ == "__main__":
    main()
