"""Ray in our tests talks over loopback only.

Every test that starts Ray (a local ``ray.init()`` or a cluster of ``ray start`` nodes)
runs it through a :class:`RaySandbox`, which conftest.py's ``ray_sandbox`` fixture hands
out, so that it talks over loopback only.
Left alone, Ray registers its node under the machine's interface address (even when told
``127.0.0.1``), holds its connections there, and reports usage statistics to outside
hosts. The sandbox runs the command in a network namespace of its own in which only the
loopback interface is up (``unshare --net``, then ``ip link set lo up``), with usage
statistics off and a fresh ``HOME``, so that a stale ``~/.ray/auth_token`` from another
cluster cannot refuse a joining node. Where namespaces are not permitted (not root, no
``unshare``), the Ray tests skip saying why, and fail under ``CI=true``.

The namespace is for our tests and CI only: users run Ray as they always do (the RLlib
example joins the cluster ``RAY_ADDRESS`` names).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
RLLIB_PYTHON = ROOT / ".venv-rllib" / "bin" / "python"

# Brings loopback up inside the new namespace, then becomes the command ("$@").
_LOOPBACK_ONLY = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def skip_or_fail(reason: str) -> NoReturn:
    """Skip a test whose prerequisite is missing, except in CI, where that is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the Ray tests must run)")
    pytest.skip(reason)


@cache
def namespaces_refused() -> str | None:
    """Why a loopback-only network namespace cannot be made here, or None if it can."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip (util-linux, iproute2) not found"
    probe = subprocess.run(
        [*_LOOPBACK_ONLY, "true"], capture_output=True, text=True, timeout=30, check=False
    )
    if probe.returncode != 0:
        return f"a network namespace is not permitted here: {probe.stderr.strip()}"
    return None


def ray_python() -> Path:
    """A Python that imports Ray: this one if it can, else RLlib's venv (``make rllib-venv``)."""
    if importlib.util.find_spec("ray") is not None:
        return Path(sys.executable)
    if RLLIB_PYTHON.exists():
        return RLLIB_PYTHON
    skip_or_fail(f"no Python with Ray here: `make rllib-venv` builds {RLLIB_PYTHON}")


@dataclass(frozen=True)
class RaySandbox:
    """Runs commands that start Ray inside a loopback-only network namespace.

    Each ``run`` is a namespace of its own: a cluster's head, its other nodes and the
    driver must be started by one command (a shell script) to see each other.
    """

    home: Path
    temp_dir: Path

    @property
    def env(self) -> dict[str, str]:
        """The caller's environment, with Ray local, quiet and isolated."""
        env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
        env.update(
            HOME=str(self.home),
            RAY_USAGE_STATS_ENABLED="0",
            # Where ray.init() and `ray start` keep sessions and sockets (short: socket
            # paths are limited to 107 bytes).
            RAY_TMPDIR=str(self.temp_dir),
        )
        return env

    def run(
        self, argv: Sequence[str], *, timeout: float, cwd: Path = ROOT
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*_LOOPBACK_ONLY, *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env,
            cwd=cwd,
            check=False,
        )
