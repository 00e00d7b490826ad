"""A normal (non-editable) install puts nothing generic on ``sys.path``.

The repository keeps ``agents/`` and ``train/`` at the top, but the wheel installs them as
``spinner_env.agents`` and ``spinner_env.train``, so a researcher's own ``agents`` package
or ``train.py`` keeps working next to ours. The wheel is built from this checkout and
installed, without its dependencies, into a fresh virtualenv that borrows this one's
site-packages as a plain path (so this checkout's editable install is not seen), and
everything runs from a directory that holds its own ``agents/`` and ``train.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

USER_CODE = """
import sys

import agents
import train

assert agents.MINE and train.MINE, "the user's own agents/ and train.py come first"

import spinner_env

site = {site!r}
assert spinner_env.__file__.startswith(site), spinner_env.__file__
assert not any(name.split(".")[0] in ("torch", "numba") for name in sys.modules)

from spinner_env.agents import HeuristicAgent, make_agent
from spinner_env.games.spinner.rules import SpinnerRules
from spinner_env.batched.vector import SpinnerVectorEnv

env = SpinnerVectorEnv(2, SpinnerRules(num_players=2), opponents="heuristic")
obs, info = env.reset(seed=0)
assert obs.shape[0] == 2
training = ("torch", "stable_baselines3", "sb3_contrib")
assert not any(name.split(".")[0] in training for name in sys.modules), "the vector env is light"
assert isinstance(make_agent("heuristic"), HeuristicAgent)
assert make_agent("checkpoint").name  # the committed policy file ships in the wheel
print("ok")
"""


NOT_SOURCES = (".git", ".venv", "build", "runs", "*.egg-info", "__pycache__", ".*_cache", ".hyp*")

LIST_INSTALLED_FILES = """
from importlib.metadata import distribution
print(" ".join(str(path) for path in distribution("spinner-env").files))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh virtualenv's python, its site-packages) with the wheel installed."""
    work = tmp_path_factory.mktemp("install")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(work / "dist"), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (work / "dist").glob("spinner_env-*.whl")
    venv.create(work / "venv", with_pip=True)
    python = work / "venv" / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    # The dependencies come from this virtualenv, added as a plain path: its .pth files
    # (this checkout's editable install among them) are not processed.
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    return python, site


def test_wheel_installs_nothing_under_a_generic_top_level_name(installed):
    python, _ = installed
    files = subprocess.run(
        [str(python), "-c", LIST_INSTALLED_FILES],
        cwd=python.parent, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    in_site_packages = [name for name in files if not name.startswith("..")]  # not bin/ scripts
    top_level = {name.split("/")[0] for name in in_site_packages}
    assert top_level == {"spinner_env", "spinner_env-0.1.0.dist-info"}
    assert "spinner_env/agents/checkpoints/spinner_2p.safetensors" in files
    assert "spinner_env/web/static/app.js" in files
    assert "spinner_env/configs/exploit.yaml" in files


def test_users_own_agents_and_train_next_to_an_installed_spinner_env(installed, tmp_path):
    python, site = installed
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("MINE = True\n")
    (tmp_path / "train.py").write_text("MINE = True\n")
    (tmp_path / "check.py").write_text(USER_CODE.format(site=str(site)))
    done = subprocess.run(
        [str(python), "check.py"], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize(
    "script",
    ["spinner-train", "spinner-league", "spinner-evaluate", "spinner-exploit", "spinner-policy",
     "spinner-play", "spinner-web", "spinner-demo"],
)  # fmt: skip
def test_console_scripts_run_from_the_installed_wheel(installed, tmp_path, script):
    python, _ = installed
    done = subprocess.run(
        [str(python.parent / script), "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_a_shipped_config_is_found_by_name_outside_a_checkout(installed, tmp_path):
    """``spinner-exploit`` reads its default config, ``exploit``, from the wheel; the bad
    target is what it then refuses."""
    python, _ = installed
    done = subprocess.run(
        [str(python.parent / "spinner-exploit"), "--target", "grandmaster"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("spinner-exploit: error: unknown agent 'grandmaster'")
