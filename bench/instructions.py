"""Instructions per decision of masked random play, counted by valgrind's callgrind.

Wall-clock rates on a shared machine move by tens of percent from run to run; an
instruction count barely moves, so this is how to compare two versions of the loop, or
``spinner_v0`` with ``connect_four_v3``, on a busy machine. It runs the AEC loop of
``bench_aec.py`` (``spinner_v0``, ``mexican_train_v0``, ``connect_four_v3``) and the
batched engines' loop of ``bench_speed.py`` (B = 1024, Spinner and Mexican Train) for 0
and for N decisions under callgrind and divides the difference by N, so imports and
start-up cancel out. Numba compiles for a fixed CPU
(``NUMBA_CPU_NAME=haswell``, AVX2: valgrind runs no AVX-512), so that a first run outside
valgrind fills the cache the counted runs load. Needs valgrind (``apt-get install
valgrind``).

    python bench/instructions.py                    # 2 players
    python bench/instructions.py --decisions 5000 --players 4
    python bench/instructions.py --smoke           # 100 decisions, B = 64: does it run
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from subprocess import CompletedProcess

LOOP = """
import sys
import numpy as np
sys.path.insert(0, {bench!r})
{play}
"""

ENVS = {
    "spinner_v0": "from bench_aec import play_decisions\n"
    "from spinner_env import spinner_v0\n"
    "print(play_decisions(lambda: spinner_v0.env(num_players={players}), {decisions}))",
    "connect_four_v3": "from bench_aec import play_decisions\n"
    "from pettingzoo.classic import connect_four_v3\n"
    "print(play_decisions(connect_four_v3.env, {decisions}))",
    "batched B=1024": "from bench_speed import play_batched\n"
    "from spinner_env.games.spinner.batched import BatchedSpinner\n"
    "from spinner_env.games.spinner.rules import SpinnerRules\n"
    "engine = BatchedSpinner(1024, SpinnerRules(num_players={players}))\n"
    "print(play_batched(engine, {decisions})['decisions'])",
    "mexican_train_v0": "from bench_aec import play_decisions\n"
    "from spinner_env import mexican_train_v0\n"
    "print(play_decisions(lambda: mexican_train_v0.env(num_players={players}), {decisions}))",
    "batched MT B=1024": "from bench_speed import play_batched\n"
    "from spinner_env.batched import BatchedMexicanTrain\n"
    "from spinner_env.games import GAMES\n"
    "rules = GAMES['mexican_train'].rules_class(num_players={players})\n"
    "print(play_batched(BatchedMexicanTrain(1024, rules), {decisions})['decisions'])",
}
BATCHED_DECISIONS = 200 * 1024
"""Decisions counted for the batched engine (the AEC loops take ``--decisions``)."""
RUN_ENV = {
    **os.environ,
    "PYTHONHASHSEED": "0",
    # Idle BLAS worker threads spin for a while, and callgrind counts every thread.
    "OPENBLAS_NUM_THREADS": "1",
    # The CPU and its features key numba's cache; unset features would be the host's.
    "NUMBA_CPU_NAME": "haswell",
    "NUMBA_CPU_FEATURES": "+avx2",
}
CALLGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def run_loop(env: str, decisions: int, players: int, tool: list[str]) -> CompletedProcess:
    script = LOOP.format(
        bench=str(Path(__file__).parent),
        play=ENVS[env].format(players=players, decisions=decisions),
    )
    return subprocess.run(
        [*tool, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=RUN_ENV,
        check=True,
    )


def instructions(env: str, decisions: int, players: int) -> tuple[int, int]:
    """Instructions callgrind counts for a whole process playing whole episodes until
    at least ``decisions``, and the number of decisions it made."""
    result = run_loop(env, decisions, players, CALLGRIND)
    match = re.search(r"Collected : (\d+)", result.stderr)
    if match is None:
        raise RuntimeError(f"callgrind printed no total:\n{result.stderr[-2000:]}")
    return int(match[1]), int(result.stdout.split()[-1])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", nargs="*", default=list(ENVS), choices=ENVS)
    parser.add_argument("--smoke", action="store_true", help="100 decisions, one batched step")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("instructions.py needs valgrind (apt-get install valgrind)")
    batched_decisions = 1024 if args.smoke else BATCHED_DECISIONS
    if args.smoke:
        args.decisions = 100
    per_decision = {}
    for env in args.envs:
        if env == "connect_four_v3" and importlib.util.find_spec("pygame") is None:
            print(f"{env:<16} skipped: pygame is not installed (pip install -e '.[bench]')")
            continue
        decisions = batched_decisions if env.startswith("batched") else args.decisions
        run_loop(env, 0, args.players, [])  # fills numba's cache, outside valgrind
        start_up, _ = instructions(env, 0, args.players)
        total, made = instructions(env, decisions, args.players)
        per_decision[env] = (total - start_up) / made
        print(f"{env:<16} {per_decision[env]:>10,.0f} instructions per decision")
    for env in ("spinner_v0", "batched B=1024"):
        if env not in per_decision or "connect_four_v3" not in per_decision:
            continue
        ratio = per_decision["connect_four_v3"] / per_decision[env]
        print(f"{env} does a decision in 1/{ratio:.2f} of connect_four_v3's instructions")


if __name__ == "__main__":
    main()
