"""One executor for match-shaped work: here, in local processes, or as Ray tasks.

Work is a list of items (a deal of a lineup, say) and a *start*: a picklable callable that
builds the function playing one item (building agents from their specs is the costly part,
so each worker process does it once and plays many items). The items go out in batches,
a task each, and the results come back in the order of the items, whatever order the
tasks finished in. An item's result depends only on the item and the start (every match
reseeds its agents from its deal), so every backend returns the same results.

Backends (:class:`Executor`):

- in-process (``workers=1``, the default): no pickling, agents may be objects;
- local processes (``workers=N``): N spawned processes;
- Ray (``ray=True``): one Ray task per batch, on the cluster that ``ray_address`` or
  ``RAY_ADDRESS`` names, else on a local Ray started for the run (with ``workers``
  CPUs if given) and stopped after it. ``workers`` caps the tasks in flight. A task whose
  worker or node died is run again (``max_retries``); a task that raised stops the run
  with its error.

Ray is imported only when a Ray executor runs (the ``cluster`` extra installs it).
A progress bar counts the finished items on every backend.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import multiprocessing
import os
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

from threadpoolctl import threadpool_limits
from tqdm import tqdm

Item = TypeVar("Item")
Result = TypeVar("Result")

Start = Callable[[], Callable[[Item], Result]]
"""Builds the function that plays one item; picklable for processes and Ray."""

RAY_MISSING = 'Ray is not installed: --ray needs the cluster extra (pip install -e ".[cluster]")'


@dataclass(frozen=True)
class Executor:
    """Where work runs: here, in ``workers`` processes, or as Ray tasks (``ray``)."""

    workers: int | None = None
    """Processes (default 1: here); with Ray, at most this many tasks at a time and the
    CPUs of a local Ray (default: all the cluster's CPUs)."""
    ray: bool = False
    ray_address: str | None = None
    """The Ray cluster to join (default ``RAY_ADDRESS``, else a local Ray for the run)."""
    items_per_task: int | None = None
    """Items in one task (default: about ``TASKS_PER_WORKER`` tasks per worker)."""
    max_retries: int = 3
    """Ray: how often a task whose worker or node died is run again."""

    TASKS_PER_WORKER = 8
    """Enough tasks per worker to even out their lengths, few enough to keep each task
    long next to its overhead."""

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.items_per_task is not None and self.items_per_task < 1:
            raise ValueError(f"items per task must be at least 1, got {self.items_per_task}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be at least 0, got {self.max_retries}")
        if self.ray_address is not None and not self.ray:
            raise ValueError("a Ray address without --ray: add --ray to run on Ray")
        if self.ray and importlib.util.find_spec("ray") is None:  # now, not after the work
            raise ValueError(RAY_MISSING)

    @property
    def in_process(self) -> bool:
        """Whether the work runs in this process (agents may then be objects, not specs)."""
        return not self.ray and (self.workers or 1) == 1

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Executor:
        """From the options :func:`add_arguments` adds."""
        return cls(args.workers, args.ray, args.ray_address)

    def map(
        self,
        start: Start[Item, Result],
        items: Sequence[Item],
        *,
        progress: bool = True,
        unit: str = "item",
    ) -> Iterator[Result]:
        """Every item's result, in the order of ``items``; a bar counts finished items."""
        with tqdm(total=len(items), unit=unit, disable=not progress) as bar:
            if self.in_process:
                play = start()
                for item in items:
                    yield play(item)
                    bar.update()
                return
            backend = _on_ray if self.ray else _in_processes
            yield from _in_order(backend(self, start, items), bar)

    def batches(self, items: Sequence[Item], parallelism: int) -> list[Sequence[Item]]:
        """``items`` cut into consecutive batches, a task each."""
        size = self.items_per_task or math.ceil(len(items) / (parallelism * self.TASKS_PER_WORKER))
        size = max(1, size)
        return [items[i : i + size] for i in range(0, len(items), size)]


SERIAL = Executor()


def add_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--workers``, ``--ray`` and ``--ray-address``, for a command that plays ``what``."""
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"processes for {what} (default 1); with --ray, tasks at a time (same results)",
    )
    parser.add_argument(
        "--ray", action="store_true", help=f"play {what} as Ray tasks (the cluster extra)"
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="HOST:PORT",
        help="the Ray cluster to join (default RAY_ADDRESS, else a local Ray for the run)",
    )


def one_thread_each() -> None:
    """One thread for torch and numpy's BLAS: agents decide one position at a time, where
    extra threads only wait (and on a busy machine, spin)."""
    threadpool_limits(1, user_api="blas")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _in_order(finished: Iterable[tuple[int, list[Result]]], bar: tqdm) -> Iterator[Result]:
    """The results of batches that finish in any order, in the order of the batches."""
    waiting: dict[int, list[Result]] = {}
    next_batch = 0
    for index, results in finished:
        bar.update(len(results))
        waiting[index] = results
        while next_batch in waiting:
            yield from waiting.pop(next_batch)
            next_batch += 1


_built: tuple[str, Callable[[Any], Any]] | None = None
"""What this worker process built to play the items of one run: (the run's key, it)."""


def run_batch(key: str, start: Start[Item, Result], batch: Sequence[Item]) -> list[Result]:
    """One task: a batch of items played in a worker process, which builds what plays them
    once per run (``key``) and keeps it for the run's later tasks."""
    global _built
    if _built is None or _built[0] != key:
        _built = None  # the previous run's agents go before this run's are built
        one_thread_each()  # the processes are the parallelism
        _built = (key, start())
    play = _built[1]
    return [play(item) for item in batch]


def _in_processes(
    executor: Executor, start: Start[Item, Result], items: Sequence[Item]
) -> Iterator[tuple[int, list[Result]]]:
    workers = executor.workers or 1
    batches = executor.batches(items, workers)
    key = uuid.uuid4().hex
    # spawn, not fork: a forked copy of a process that has started torch's threads can hang.
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context)
    try:
        pending = {pool.submit(run_batch, key, start, b): i for i, b in enumerate(batches)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                # A task's error (or a worker that died: BrokenProcessPool) ends the run.
                yield pending.pop(future), future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def import_ray() -> Any:
    """Ray, or the one-line error that names the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ValueError(RAY_MISSING) from None


def _on_ray(
    executor: Executor, start: Start[Item, Result], items: Sequence[Item]
) -> Iterator[tuple[int, list[Result]]]:
    ray = import_ray()
    address = executor.ray_address or os.environ.get("RAY_ADDRESS")
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, logging_level="warning")
        else:
            ray.init(
                num_cpus=executor.workers,
                include_dashboard=False,
                logging_level="warning",
            )
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        parallelism = min(executor.workers or cpus, cpus)
        batches = executor.batches(items, parallelism)
        in_flight = executor.workers or len(batches)
        task = ray.remote(num_cpus=1, max_retries=executor.max_retries)(run_batch)
        key, start_ref = uuid.uuid4().hex, ray.put(start)
        queue = list(enumerate(batches))
        queue.reverse()
        pending: dict[Any, int] = {}
        try:
            while queue or pending:
                while queue and len(pending) < in_flight:
                    index, batch = queue.pop()
                    pending[task.remote(key, start_ref, batch)] = index
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    index = pending.pop(ref)
                    try:
                        results = ray.get(ref)
                    except ray.exceptions.RayTaskError as error:
                        raise error.cause from error  # the task's own error, as it raised it
                    yield index, results
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()
