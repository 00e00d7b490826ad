"""A training run's learning curve: the match win rate of every checkpoint it saved.

Each checkpoint (``checkpoints/model_<steps>_steps.zip``, then ``final.zip``) plays the
first match of ``--episodes`` batched games (``train.league.win_rate``: its seat drawn,
``--against`` at every other seat, full matches), all from the same ``--seed``, so every
point meets the same deals. ``--start`` adds the policy the run's config builds before any
training (``init_from``'s weights, or fresh ones: with a ``prior``, the prior's player). A
checkpoint plays its most likely moves, as the evaluator plays a policy file.

    python bench/checkpoint_curve.py runs/mexican_train_4p_long --against expert --start
    python bench/checkpoint_curve.py --smoke    # a tiny run of its own: does it run
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from spinner_env.agents.policy import PolicyAgent
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.config import TrainConfig, load_config
from spinner_env.train.evaluate import wilson_interval
from spinner_env.train.league import win_rate
from spinner_env.train.ppo import (
    limit_threads,
    make_model,
    make_pool,
    make_training_env,
    start_from_init,
    train,
)


def checkpoints(run: Path) -> list[Path]:
    """The run's saved models, in the order of their steps, ``final.zip`` last."""
    steps = {
        int(m[1]): path
        for path in (run / "checkpoints").glob("model_*_steps.zip")
        if (m := re.fullmatch(r"model_(\d+)_steps\.zip", path.name))
    }
    found = [steps[k] for k in sorted(steps)]
    return [*found, run / "final.zip"] if (run / "final.zip").is_file() else found


def curve(
    run: Path, against: str, episodes: int, seed: int, start: bool
) -> list[tuple[str, float]]:
    """(checkpoint, match win rate) of each of the run's checkpoints, the start first if
    ``start``; ValueError for a directory that holds no run."""
    if not (run / "config.yaml").is_file():
        raise ValueError(f"{str(run)!r} holds no training run (no config.yaml)")
    config = load_config(run / "config.yaml")
    limit_threads(config.torch_threads)
    model = make_model(config, make_training_env(config, make_pool(config, 0)), run / "tb", 0)
    start_from_init(model, config)
    matches = config.replace(env={**config.env, "reward": "match", "episode": "match"})
    points: list[tuple[str, float]] = []
    for path in [None] * start + checkpoints(run):
        if path is not None:
            model.set_parameters(str(path), exact_match=True, device="cpu")
        agent = PolicyAgent.frozen_copy(model.policy, "learner", config.observation_features())
        rate = win_rate(agent, against, matches, episodes, seed)
        points.append((path.name if path else "start", rate))
    return points


def smoke_run(folder: Path) -> Path:
    """A tiny 2-player Spinner run with two checkpoints, in ``folder``."""
    config = TrainConfig.from_dict(
        {
            "name": "tiny",
            "num_players": 2,
            "total_timesteps": 256,
            "n_envs": 16,
            "checkpoint_every": 128,
            "env": {"reward": "hand_score", "episode": "hand", "num_hands": 1},
            "ppo": {"n_steps": 8, "batch_size": 64, "policy_kwargs": {"net_arch": [16]}},
            "opponents": {"baselines": {"heuristic": 1}},
        }
    )
    train(config, folder, progress_bar=False)
    return folder


def main(argv: Sequence[str] | None = None) -> None:
    parser = ArgumentParser("checkpoint_curve.py", __doc__.splitlines()[0])
    parser.add_argument("run", type=Path, nargs="?", help="the run's directory (out_dir)")
    parser.add_argument("--against", default="expert", help="the opponent at every other seat")
    parser.add_argument("--episodes", type=int, default=2048, help="matches per checkpoint")
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--start", action="store_true", help="the policy before training too")
    parser.add_argument("--smoke", action="store_true", help="a tiny run of its own, 16 matches")
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug), tempfile.TemporaryDirectory() as folder:
        if args.smoke:
            args.run, args.episodes = smoke_run(Path(folder) / "run"), 16
        elif args.run is None:
            parser.error("give the run's directory (or --smoke)")
        print(f"{args.run}: {args.episodes} matches a point against {args.against}")
        started = time.time()
        for name, rate in curve(args.run, args.against, args.episodes, args.seed, args.start):
            low, high = wilson_interval(rate, args.episodes)
            print(f"{name:<28} {100 * rate:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]", flush=True)
        print(f"{time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
