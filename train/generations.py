"""What the runs of generations share: policy iteration's (``spinner-policy-iteration``) and
research's expert iteration (``research/expert_iteration.py``). A fresh policy of a config, a
policy file's strength against opponents on duplicate deals, and the command line.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents.policy import PolicyHeader
from spinner_env.train import executor as executors
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.config import (
    TrainConfig,
    check_command,
    check_out_dir,
    config_help,
    load_config,
)
from spinner_env.train.evaluate import tournament
from spinner_env.train.executor import SERIAL, Executor

from spinner_env.games import game_spec

EVAL_SEED = 7
"""Added to the config's seed for the evaluation deals, the same every generation."""


def fresh_policy(config: TrainConfig) -> MaskableActorCriticPolicy:
    """A fresh policy of the config's ``net_arch`` (tanh) reading its features (with their
    ``feature_weights``); with the prior, a policy that starts as the prior's player."""
    encoding = game_spec(config.game).encoding
    features = config.observation_features()
    widths = tuple(config.ppo.policy_kwargs.net_arch or (64, 64))
    size = encoding.obs_size if features is None else features.size
    header = PolicyHeader(
        encoding.game_name,
        size,
        encoding.num_actions,
        widths,
        widths,
        "tanh",
        tuple(config.features),
        prior=config.prior,
    )
    return header.build()


def strength(
    config: TrainConfig,
    policy: Path,
    against: dict[str, str],
    matches: int,
    executor: Executor = SERIAL,
) -> dict[str, dict[str, float]]:
    """The match win rate of the file ``policy`` against the other seats all of each of
    ``against`` (name: spec), ``matches`` duplicate matches on the same deals."""
    rates = {}
    for name, spec in against.items():
        seats = [str(policy)] + [spec] * (config.num_players - 1)
        report = tournament(
            seats,
            config.num_players,
            matches,
            config.seed + EVAL_SEED,
            config.game,
            config.env,
            False,
            executor=executor,
        )
        rates[name] = report.agents[policy.stem]["match_win"].as_dict()
    return rates


def describe_strength(rates: dict[str, dict[str, float]]) -> str:
    """Match win rates (``strength``'s) on one line."""
    return ", ".join(
        f"against {name} {m['mean']:.1%} [{m['low']:.1%}, {m['high']:.1%}]"
        for name, m in rates.items()
    )


Run = Callable[[TrainConfig, Path, Executor, bool, bool, str], tuple[Path, dict[str, Any]]]
"""A run of generations: (config, out dir, executor, overwrite, progress, command) -> the
last generation's file and the report."""


def generations_main(
    argv: Sequence[str] | None,
    prog: str,
    description: str,
    section: str,
    size: str,
    what: str,
    settings: Callable[[TrainConfig], Any],
    run: Run,
    report: str,
) -> tuple[Path, dict[str, Any]]:
    """The command line of a run of generations (``research/expert_iteration.py``,
    ``spinner-policy-iteration``): ``--config``, ``--out-dir``, ``--overwrite``, then
    ``--generations`` and ``--<size>`` overriding the config's ``section`` (``settings``
    reads it, or says it is missing), the executor's options for ``what``, ``--no-progress``."""
    parser = ArgumentParser(prog, description)
    parser.add_argument("--config", type=Path, required=True, help=config_help(prog))
    parser.add_argument("--out-dir", type=Path, default=None, help="default: the config's out_dir")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the earlier run in the out dir"
    )
    parser.add_argument("--generations", type=int, default=None, help="overrides the config")
    parser.add_argument(f"--{size}", type=int, default=None, help="overrides the config")
    executors.add_arguments(parser, what)
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug):
        executor = Executor.from_args(args)
        config = load_config(args.config)
        check_command(config, prog, args.config)
        check_out_dir(config, args.out_dir)
        overrides = {
            key: value
            for key, value in (("generations", args.generations), (size, getattr(args, size)))
            if value is not None
        }
        if overrides:
            config = config.replace(**{section: dataclasses.replace(settings(config), **overrides)})
        command = f"{prog} " + " ".join(argv if argv is not None else sys.argv[1:])
        path, results = run(
            config,
            Path(args.out_dir or config.out_dir),
            executor,
            args.overwrite,
            not args.no_progress,
            command,
        )
        print(f"wrote {path} and {path.parent / report}")
        return path, results
