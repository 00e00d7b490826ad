"""The executor's Ray backend on real Ray, in the loopback-only sandbox (``ray_sandbox``,
tests/ray_sandbox.py): a local Ray that ``--ray`` starts, and a cluster of a head and a
second node joined with ``ray start`` (small object stores), stopped with ``ray stop`` when
the command ends, failed or not. An evaluation on either gives the JSON of ``--workers 1``
(apart from the command line); a node whose raylet is killed mid-run loses no deal; a task
that raises ends the run with its error."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from ray_sandbox import RaySandbox, ray_python
from spinner_env.train.evaluate import main as evaluate_main

CLUSTER_ADDRESS = "127.0.0.1:6390"
SECOND_NODE_PORT = 6391
"""The second node's raylet port: how the kill finds its process."""

# Given Ray's Python and a command line: starts the head and the second node, runs the
# command, and stops both whatever happens (the trap).
_CLUSTER = textwrap.dedent(
    f"""
    set -eu
    ray="$(dirname "$1")/ray"
    trap '"$ray" stop --force >/dev/null 2>&1 || true' EXIT
    store=100000000
    "$ray" start --head --port={CLUSTER_ADDRESS.split(":")[1]} --num-cpus=1 \\
        --object-store-memory=$store --include-dashboard=false --disable-usage-stats >&2
    "$ray" start --address={CLUSTER_ADDRESS} --num-cpus=1 --object-store-memory=$store \\
        --node-manager-port={SECOND_NODE_PORT} --disable-usage-stats >&2
    shift
    "$@"
    """
)

EVALUATION = [
    "--agents", "random", "greedy", "heuristic", "--matches", "6", "--rule", "num_hands=2",
    "--seed", "3", "--league", "--no-progress",
]  # fmt: skip


def _on_cluster(sandbox: RaySandbox, *argv: str, timeout: float = 240):
    python = str(ray_python())
    run = sandbox.run(["bash", "-c", _CLUSTER, "cluster", python, *argv], timeout=timeout)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    return run


def _json_without_command(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("command")
    return data


def _serial(tmp_path: Path) -> dict:
    evaluate_main([*EVALUATION, "--workers", "1", "--out", str(tmp_path / "serial")])
    return _json_without_command(tmp_path / "serial.json")


def test_a_local_ray_gives_the_json_of_one_worker(ray_sandbox: RaySandbox, tmp_path):
    out = tmp_path / "ray"
    argv = ["-m", "spinner_env.train.evaluate", *EVALUATION, "--ray", "--workers", "2"]
    run = ray_sandbox.run([str(ray_python()), *argv, "--out", str(out)], timeout=240)
    assert run.returncode == 0, run.stderr[-4000:]
    assert _json_without_command(out.with_suffix(".json")) == _serial(tmp_path)


def test_a_two_node_cluster_gives_the_json_of_one_worker(ray_sandbox: RaySandbox, tmp_path):
    out = tmp_path / "cluster"
    python = str(ray_python())
    argv = [python, "-m", "spinner_env.train.evaluate", *EVALUATION, "--ray"]
    _on_cluster(ray_sandbox, *argv, "--ray-address", CLUSTER_ADDRESS, "--out", str(out))
    assert _json_without_command(out.with_suffix(".json")) == _serial(tmp_path)


# The driver: a run of one deal a task, the second node's raylet killed once the first
# deal is back, then the same deals played here.
_KILL = textwrap.dedent(
    f"""
    import json, os, signal, time
    import ray
    from spinner_env.train.evaluate import DealPlayerStart
    from spinner_env.train.executor import SERIAL, Executor

    def second_raylet():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            if argv[0].endswith(b"/raylet") and b"--node_manager_port={SECOND_NODE_PORT}" in argv:
                return int(pid)
        raise SystemExit("no raylet of the second node")

    def alive():
        return sum(node["Alive"] for node in ray.nodes())

    start = DealPlayerStart(("ismcts:iterations=30", "heuristic"), "spinner", 4, {{"num_hands": 1}})
    deals = [((0, 1), deal) for deal in range(16)]
    ray.init(address="{CLUSTER_ADDRESS}", logging_level="warning")
    before = alive()
    played = Executor(ray=True, items_per_task=1).map(start, deals, progress=False)
    results = [next(played)]
    os.kill(second_raylet(), signal.SIGKILL)
    results += list(played)
    deadline = time.monotonic() + 60
    while alive() > 1 and time.monotonic() < deadline:
        time.sleep(0.5)
    after = alive()
    ray.shutdown()
    same = results == list(SERIAL.map(start, deals, progress=False))
    print(json.dumps({{"before": before, "after": after, "count": len(results), "same": same}}))
    """
)


def test_a_killed_node_loses_no_deal(ray_sandbox: RaySandbox):
    run = _on_cluster(ray_sandbox, str(ray_python()), "-c", _KILL, timeout=300)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report == {"before": 2, "after": 1, "count": 16, "same": True}


# A task that raises (here: at deal 3) ends the run with its error, and soon.
_FAILING = textwrap.dedent(
    """
    import time
    from spinner_env.train.executor import Executor

    class Failing:
        def __call__(self):
            return self.play

        def play(self, item):
            if item == 3:
                raise ValueError("deal 3 is bad")
            return item

    started = time.monotonic()
    try:
        list(Executor(2, ray=True, items_per_task=1).map(Failing(), list(range(8)), progress=False))
    except ValueError as error:
        print(f"raised in {time.monotonic() - started:.0f} s: {error}")
    """
)


def test_a_failing_ray_task_stops_the_run_with_its_error(ray_sandbox: RaySandbox):
    run = ray_sandbox.run([str(ray_python()), "-c", _FAILING], timeout=240)
    assert run.returncode == 0, run.stderr[-4000:]
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith("raised in ") and last.endswith(": deal 3 is bad"), run.stdout
    assert int(last.split()[2]) < 120
