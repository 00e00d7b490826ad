"""How much network a cloned teacher needs: one set of a teacher's decisions
(``train.imitate.collect``) fitted into fresh MaskablePPO policies of several sizes
(``train.imitate.fit``), each measured by how often it picks the teacher's move on held-out
decisions and by duplicate matches against an opponent (``train.evaluate``).

    python research/clone_capacity.py --config spinner_2p_clone --samples 300000 \
        --archs 64,64 128,128 256,256 512,512 --matches 200
    python research/clone_capacity.py --smoke       # a few hundred decisions: a check that it runs

The config gives the game, the teacher (its ``pretrain.imitate``), the opponent pool the
teacher plays against, the PPO settings of the fresh policies and the cloning's epochs.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from tempfile import TemporaryDirectory

from spinner_env.agents.policy import PolicyAgent
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.config import PolicyConfig, load_config
from spinner_env.train.evaluate import tournament
from spinner_env.train.imitate import collect, fit
from spinner_env.train.ppo import limit_threads, make_model, make_pool, make_training_env


def net_arch(text: str) -> PolicyConfig:
    """``"256,256"`` as a policy of two layers of 256 (``PolicyConfig`` checks the widths)."""
    try:
        return PolicyConfig([int(width) for width in text.split(",")])
    except ValueError as error:
        message = f"--archs {text!r}: expected layer widths like 256,256 ({error})"
        raise ValueError(message) from None


def run(
    config_name: str,
    samples: int,
    archs: Sequence[PolicyConfig],
    epochs: int | None,
    opponent: str,
    matches: int,
) -> None:
    config = load_config(config_name)
    if config.pretrain is None:
        raise ValueError(f"{config_name}: the config has no pretrain section (no teacher)")
    epochs = epochs or config.pretrain.epochs
    limit_threads(1)
    pool = make_pool(config, config.seed)
    start = time.perf_counter()
    demos = collect(config, pool, config.pretrain.imitate, samples, config.seed)
    print(
        f"{len(demos)} decisions of {config.pretrain.imitate!r} in "
        f"{time.perf_counter() - start:.0f} s; fitting {epochs} epochs each"
    )
    print(f"{'net_arch':>12} {'parameters':>11} {'held-out agreement':>19} {'fit s':>6}", end="")
    print(f"  vs {opponent}")
    with TemporaryDirectory() as logs:
        for arch in archs:
            sized = config.replace(ppo=dataclasses.replace(config.ppo, policy_kwargs=arch))
            model = make_model(sized, make_training_env(sized, pool), Path(logs), sized.seed)
            start = time.perf_counter()
            report = fit(
                model.policy,
                demos,
                epochs,
                config.pretrain.batch_size,
                config.pretrain.learning_rate,
                config.ppo.vf_coef,
                seed=config.seed,
            )
            seconds = time.perf_counter() - start
            clone = PolicyAgent.frozen_copy(model.policy, "clone")
            result = tournament(
                [clone] + [opponent] * (config.num_players - 1),
                config.num_players,
                matches,
                seed=config.seed + 10_000,
                game=config.game,
                rules=config.env,
                progress=False,
                first_only=True,
            ).agents["clone"]["match_win"]
            parameters = sum(p.numel() for p in model.policy.parameters())
            widths = ",".join(map(str, arch.net_arch or []))
            print(
                f"{widths:>12} {parameters:>11,} {report.holdout_accuracy:>19.1%} {seconds:>6.0f}"
                f"  {result.mean:.1%} [{result.low:.1%}, {result.high:.1%}]"
            )


def main(argv: Sequence[str] | None = None) -> None:
    parser = ArgumentParser(prog="clone_capacity", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config", default="spinner_2p_clone", help="a YAML file or a shipped config's name"
    )
    parser.add_argument("--samples", type=int, default=300_000)
    parser.add_argument("--archs", nargs="+", default=["64,64", "128,128", "256,256", "512,512"])
    parser.add_argument("--epochs", type=int, help="default: the config's pretrain.epochs")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--matches", type=int, default=200, help="matches against the opponent")
    parser.add_argument("--smoke", action="store_true", help="a tiny run: a check that it runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.samples, args.archs, args.epochs, args.matches = 300, ["16"], 1, 1
    with fail_cleanly(parser, args.debug):
        archs = [net_arch(text) for text in args.archs]
        run(args.config, args.samples, archs, args.epochs, args.opponent, args.matches)


if __name__ == "__main__":
    main()
