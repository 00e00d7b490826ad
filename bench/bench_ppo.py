"""MaskablePPO environment steps per second on the batched adapter, at several widths.

Every run takes one config whole (PPO settings, env arguments, opponent pool) and builds
the env as ``spinner_env.train.ppo`` does; the pool also holds one snapshot of the
starting policy, as a training run's pool does after its first ``snapshot_every`` steps.
Each run learns the same number of steps on one torch thread. The time is split into
collecting rollouts (env, opponents, policy forward) and PPO's gradient updates, which the
env does not touch. The wider rows keep the rollout size (``n_envs * n_steps``) and raise
``n_envs``, which a batched env makes cheap.

    python bench/bench_ppo.py --config configs/quick.yaml --timesteps 20000
    python bench/bench_ppo.py --smoke     # 256 steps, rollouts of 256, one wide row: does it run
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Sequence

import torch
from sb3_contrib import MaskablePPO
from spinner_env.train.config import TrainConfig, load_config
from spinner_env.train.ppo import make_pool, make_training_env, snapshot


def steps_per_second(config: TrainConfig, timesteps: int) -> dict[str, float]:
    """Learn ``timesteps`` steps; the rates overall and of rollout collection alone."""
    pool = make_pool(config, seed=0)
    env = make_training_env(config, pool)
    env.seed(0)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, device="cpu", verbose=0, **config.ppo.model_kwargs()
    )
    if pool.snapshot_weight > 0:
        pool.add_snapshot(snapshot(model.policy, 0))
    update_time = 0.0
    update = model.train

    def timed_update() -> None:
        nonlocal update_time
        start = time.perf_counter()
        update()
        update_time += time.perf_counter() - start

    model.train = timed_update
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    total = time.perf_counter() - start
    steps = model.num_timesteps
    return {
        "steps": steps,
        "steps_per_s": steps / total,
        "rollout_steps_per_s": steps / (total - update_time),
        "update_share": update_time / total,
    }


def with_rollout(config: TrainConfig, n_envs: int, n_steps: int) -> TrainConfig:
    """The config with ``n_envs`` games of ``n_steps`` steps per rollout."""
    return config.replace(n_envs=n_envs, ppo=dataclasses.replace(config.ppo, n_steps=n_steps))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="quick", help="a YAML file or a shipped config's name")
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--batched-n-envs", type=int, nargs="*", default=[64, 256])
    parser.add_argument("--smoke", action="store_true", help="256 steps, rollouts of 256")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    config = load_config(args.config)
    if args.smoke:
        args.timesteps, args.batched_n_envs = 256, [16]
        config = with_rollout(config, 4, 64)
    rollout = config.n_envs * config.ppo.n_steps

    runs: list[tuple[str, TrainConfig]] = [(f"batched, n_envs={config.n_envs}", config)]
    for n_envs in args.batched_n_envs:
        n_steps = max(1, rollout // n_envs)
        wide = with_rollout(config, n_envs, n_steps)
        runs.append((f"batched, n_envs={n_envs} n_steps={n_steps}", wide))

    print(f"config {args.config}, opponents {config.opponents}, {args.timesteps} steps per run")
    print(f"{'env':<38} {'steps/s':>9} {'rollout steps/s':>16} {'update share':>13} {'x first':>7}")
    base = None
    for label, run_config in runs:
        stats = steps_per_second(run_config, args.timesteps)
        base = base or stats["steps_per_s"]
        print(
            f"{label:<38} {stats['steps_per_s']:>9,.0f} {stats['rollout_steps_per_s']:>16,.0f} "
            f"{stats['update_share']:>13.0%} {stats['steps_per_s'] / base:>7.1f}"
        )


if __name__ == "__main__":
    main()
