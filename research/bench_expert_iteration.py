"""The expert-iteration labeller's speed: labelled decisions per CPU second, on 1 and 2 workers.

The labeller (``label`` of ``research/expert_iteration.py``) plays a config's deals with
the network and asks the search for every labelled decision; the deals are the executor's
tasks. For each worker count: the labelled decisions, the wall time, the CPU time of this
process and its worker processes together, the decisions per CPU second and per wall
second, and the speed-up in wall time over 1 worker (the same decisions on every count:
the labels are identical). The CPU time of the workers counts their start (imports, the
agents built once per worker), as a run pays it.

    python research/bench_expert_iteration.py --deals 4   # spinner_2p_expert_iteration.yaml

``--smoke``: one-hand matches, a small fresh network, PIMC over one determinization.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import tempfile
import time
from pathlib import Path

from dagger import starting_policy
from expert_iteration import label
from spinner_env.agents.policy import save_policy
from spinner_env.train.config import TrainConfig, load_config
from spinner_env.train.executor import Executor
from spinner_env.train.ppo import limit_threads

from spinner_env.games import game_spec

CONFIG = Path(__file__).resolve().parent / "configs" / "spinner_2p_expert_iteration.yaml"
"""The study's config, in research/configs/."""
SMOKE = {
    "name": "smoke",
    "game": "spinner",
    "num_players": 2,
    "total_timesteps": 1,
    "env": {"num_hands": 1},
    "ppo": {"policy_kwargs": {"net_arch": [32]}},
    "opponents": {"baselines": {"heuristic": 1}},
    "expert_iteration": {"operator": "pimc:rollout={policy},determinizations=1", "deals": 2},
}


def cpu_seconds() -> float:
    """This process's CPU time and that of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(config: TrainConfig, policy: Path, workers: int) -> tuple[int, float, float]:
    """Labelled decisions, wall seconds and CPU seconds of one labelling on ``workers``."""
    executor = Executor(workers=workers)
    wall, cpu = time.perf_counter(), cpu_seconds()
    demos = label(config, policy, [], config.seed, executor)
    return len(demos), time.perf_counter() - wall, cpu_seconds() - cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(CONFIG))
    parser.add_argument("--deals", type=int, default=4, help="deals labelled per worker count")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    limit_threads(1)
    if args.smoke:
        config = TrainConfig.from_dict(SMOKE)
    else:
        config = load_config(args.config)
        section = dataclasses.replace(config.expert_iteration, deals=args.deals)
        config = config.replace(expert_iteration=section)
    assert config.expert_iteration is not None
    print(
        f"{config.name}: operator {config.expert_iteration.operator}, "
        f"{config.expert_iteration.deals} deals, label share {config.expert_iteration.label_share}"
    )
    with tempfile.TemporaryDirectory() as folder:
        policy = Path(folder) / "network.safetensors"
        save_policy(
            starting_policy(config), policy, game_spec(config.game).encoding, config.features
        )
        print(
            f"{'workers':>8}{'decisions':>11}{'wall s':>9}{'CPU s':>9}{'per CPU s':>11}"
            f"{'per wall s':>12}{'speed-up':>10}"
        )
        first_wall = None
        for workers in args.workers:
            decisions, wall, cpu = measure(config, policy, workers)
            first_wall = first_wall or wall
            print(
                f"{workers:>8}{decisions:>11}{wall:>9.1f}{cpu:>9.1f}{decisions / cpu:>11.1f}"
                f"{decisions / wall:>12.1f}{first_wall / wall:>10.2f}"
            )


if __name__ == "__main__":
    main()
