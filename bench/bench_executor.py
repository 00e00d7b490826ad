"""What the executor's backends gain on a search-bound evaluation, and what a task costs.

1. Speed-up: ``ismcts:time=0.03`` against ``heuristic`` (``spinner-evaluate``'s duplicate
   deals, one deal a task), wall time on 1 and 2 workers: local processes
   (``--workers N``) and Ray tasks (a local Ray with 2 CPUs, at most N tasks at a time:
   ``--ray --workers N``), each pair in one run so that a busy machine slows both alike.
   The target: 2 Ray workers at least 1.8 times as fast as 1. The time budget is CPU time
   of the deciding thread, so the work per decision does not shrink on a busy machine.
2. Per-task overhead: tasks that do nothing (one item each) on 2 workers, wall time per
   task, after a warm-up round that starts the workers.

Ray's start (``ray.init``) is timed apart. ``--smoke``: processes only, a small
evaluation of fast baselines (no Ray: the smoke run is part of the test suite).

    python bench/bench_executor.py --matches 24
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable

from spinner_env.train.evaluate import tournament
from spinner_env.train.executor import Executor

AGENTS = ["ismcts:time=0.03", "heuristic"]
SMOKE_AGENTS = ["heuristic", "greedy"]


class Nothing:
    """A start whose items do nothing: what is left is the cost of a task."""

    def __call__(self) -> Callable[[int], int]:
        return self.play

    def play(self, item: int) -> int:
        return item


def evaluation_seconds(agents: list[str], matches: int, hands: int, executor: Executor) -> float:
    started = time.perf_counter()
    rules = {"num_hands": hands}
    tournament(agents, 2, matches, 0, rules=rules, progress=False, executor=executor)
    return time.perf_counter() - started


def task_overhead_ms(tasks: int, executor: Executor) -> float:
    items = list(range(tasks))
    list(executor.map(Nothing(), items, progress=False))  # warm-up: the workers start
    started = time.perf_counter()
    list(executor.map(Nothing(), items, progress=False))
    return 1000 * (time.perf_counter() - started) / tasks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=24, help="matches per configuration")
    parser.add_argument("--hands", type=int, default=3, help="hands per match")
    parser.add_argument("--tasks", type=int, default=400, help="empty tasks for the overhead")
    parser.add_argument("--no-ray", action="store_true", help="processes only")
    parser.add_argument("--smoke", action="store_true", help="processes, baselines, seconds")
    args = parser.parse_args(argv)
    agents = AGENTS
    if args.smoke:
        agents, args.matches, args.hands, args.tasks, args.no_ray = SMOKE_AGENTS, 8, 1, 20, True
    backends = ["processes"]
    if not args.no_ray and importlib.util.find_spec("ray") is not None:
        backends.append("ray")
    elif not args.no_ray:
        print('Ray is not installed (pip install -e ".[cluster]"): processes only')
    print(f"{' vs '.join(agents)}, {args.matches} matches of {args.hands} hands, one deal a task")
    ray = None
    if "ray" in backends:
        import ray

        started = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
        print(f"ray.init (local, 2 CPUs): {time.perf_counter() - started:.1f} s")
    try:
        for backend in backends:
            on_ray = backend == "ray"
            seconds = {
                workers: evaluation_seconds(
                    agents, args.matches, args.hands, Executor(workers, on_ray, items_per_task=1)
                )
                for workers in (1, 2)
            }
            print(
                f"1. {backend:<9} 1 worker {seconds[1]:7.1f} s, 2 workers {seconds[2]:7.1f} s: "
                f"speed-up {seconds[1] / seconds[2]:.2f}x"
            )
        for backend in backends:
            executor = Executor(2, backend == "ray", items_per_task=1)
            overhead = task_overhead_ms(args.tasks, executor)
            print(
                f"2. {backend:<9} {overhead:.2f} ms per task ({args.tasks} empty tasks, 2 workers)"
            )
    finally:
        if ray is not None:
            ray.shutdown()


if __name__ == "__main__":
    main()
