"""A normal (non-editable) install puts nothing generic on ``sys.path``, and the package
alone, without extras, does what needs none and names the extra for what does.

The repository keeps ``agents/`` and ``train/`` at the top, but the wheel installs them as
``spinner_env.agents`` and ``spinner_env.train``, so a researcher's own ``agents`` package
or ``train.py`` keeps working next to ours. The wheel is built from this checkout and
installed, without its dependencies, into a fresh virtualenv that borrows this one's
site-packages as a plain path (so this checkout's editable install is not seen), and
everything runs from a directory that holds its own ``agents/`` and ``train.py``.

The bare install (``pip install spinner-env``, no extra) is the same wheel with its core
dependencies alone, in a virtualenv of its own (pip's cache serves them: about half a
minute). The sdist is built as a package index gets it and checked with twine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
from importlib.metadata import metadata, packages_distributions, requires
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from spinner_env.extras import EXTRA_OF_MODULE, MissingExtraError, needs_extras

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
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout's sources: setuptools writes build/ and *.egg-info next to
    the sources it builds."""
    copy = tmp_path_factory.mktemp("source") / "spinner-env"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    return copy


@pytest.fixture(scope="module")
def wheel(source: Path) -> Path:
    """The wheel built from the checkout."""
    dist = source.parent / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(dist), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (built,) = dist.glob("spinner_env-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> tuple[Path, Path]:
    """(the fresh virtualenv's python, its site-packages) with the wheel installed."""
    work = tmp_path_factory.mktemp("install")
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
    # pyproject.toml lists the packages by name: a folder left off it (a new game's) would
    # install without its modules.
    checkout = [
        init.relative_to(ROOT).as_posix() for init in (ROOT / "spinner_env").rglob("__init__.py")
    ]
    assert [init for init in checkout if init not in files] == []


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
     "spinner-play", "spinner-web", "spinner-demo",
     "spinner-policy-iteration"],
)  # fmt: skip
def test_console_scripts_run_from_the_installed_wheel(installed, tmp_path, script):
    python, _ = installed
    done = subprocess.run(
        [str(python.parent / script), "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


SHIPPED_PRODUCT = """
import numpy as np
from importlib.metadata import entry_points

from spinner_env.agents import COMMITTED, make_agent
from spinner_env.agents.policy import read_header
from spinner_env.agents.specs import CHECKPOINTS
from spinner_env.games import game_named_in_files
from spinner_env.train.config import load_config, shipped_configs

for name in COMMITTED:  # every shipped agent plays a legal move of its own game
    game = game_named_in_files(read_header(CHECKPOINTS / f"{name}.safetensors").game)
    env = game.env_module.env(num_players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    agent = make_agent(name, seed=0, encoding=game.encoding)
    action = agent.act(obs["observation"], obs["action_mask"], None)
    assert obs["action_mask"][action] == 1, (name, action)
commands = {script.name for script in entry_points(group="console_scripts")}
for name in shipped_configs():  # every shipped config loads, checked, for a command we install
    config = load_config(name)
    assert config.command in commands, (name, config.command)
print(len(COMMITTED), len(shipped_configs()))
"""


def test_the_wheel_plays_every_shipped_agent_and_loads_every_shipped_config(installed, tmp_path):
    """Issue 52: what ships works from a non-editable install, and research/ is not in it."""
    python, _ = installed
    done = subprocess.run(
        [str(python), "-c", SHIPPED_PRODUCT], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    agents, configs = map(int, done.stdout.split())
    assert agents >= 8 and configs >= 10
    files = subprocess.run(
        [str(python), "-c", LIST_INSTALLED_FILES], cwd=tmp_path, capture_output=True, text=True
    ).stdout.split()
    assert not [name for name in files if "research" in name]


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


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """The bin/ folder of a fresh virtualenv holding the wheel and its core dependencies
    alone: ``pip install spinner-env`` with no extra."""
    work = tmp_path_factory.mktemp("bare")
    venv.create(work / "venv", with_pip=True)
    bin_ = work / "venv" / "bin"
    subprocess.run(
        [str(bin_ / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    return bin_


def test_the_bare_install_lacks_the_extras(bare):
    done = subprocess.run(
        [str(bare / "python"), "-c", "import torch"], capture_output=True, text=True
    )
    assert "No module named 'torch'" in done.stderr


def test_the_bare_install_evaluates_the_hand_written_players(bare, tmp_path):
    done = subprocess.run(
        [str(bare / "spinner-evaluate"), "--agents", "heuristic", "random", "--matches", "2",
         "--no-progress", "--records-dir", "records"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert re.search(r"^heuristic +\d+\.\d% \[", done.stdout, re.MULTILINE)
    assert len(list((tmp_path / "records").glob("*.json"))) == 2


TRAIN = "needs the train extra (no module named 'torch'): pip install 'spinner-env[train]'"


@pytest.mark.parametrize(
    "command, line",
    [
        (["spinner-evaluate", "--agents", "spinner_2p", "random"],
         f"spinner-evaluate: error: the trained agent 'spinner_2p' {TRAIN}"),
        (["spinner-evaluate", "--agents", "heuristic", "random", "--out", "eval"],
         "spinner-evaluate: error: --out's chart needs the train extra (no module named "
         "'matplotlib'): pip install 'spinner-env[train]'"),
        (["spinner-play", "--opponents", "spinner_2p"],
         f"spinner-play: the trained agent 'spinner_2p' {TRAIN}"),
        (["spinner-train", "--config", "quick"], f"spinner-train: error: spinner-train {TRAIN}"),
        (["spinner-policy", "--help"], f"spinner-policy: error: spinner-policy {TRAIN}"),
        (["spinner-web"],
         "spinner-web: error: spinner-web needs the web extra (no module named 'fastapi'): "
         "pip install 'spinner-env[web]'"),
    ],
)  # fmt: skip
def test_what_needs_an_extra_says_which_in_one_line(bare, tmp_path, command, line):
    done = subprocess.run(
        [str(bare / command[0]), *command[1:]],
        cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert (done.returncode, done.stderr.splitlines()) == (2, [line])


def test_make_agent_without_torch_is_an_import_error_and_a_value_error(bare, tmp_path):
    code = """
from spinner_env.agents import make_agent
try:
    make_agent("spinner_2p")
except ImportError as error:
    assert isinstance(error, ValueError)
    print(error)
"""
    done = subprocess.run(
        [str(bare / "python"), "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.strip() == f"the trained agent 'spinner_2p' {TRAIN}", done.stderr


def test_each_module_named_for_an_extra_is_installed_by_that_extra():
    """:data:`EXTRA_OF_MODULE` against the package's extras: the module's distribution (as
    this environment, which installs them all, knows it) is a requirement of its extra."""
    requirements = [Requirement(text) for text in requires("spinner-env") or []]

    def normal(name: str) -> str:
        return name.lower().replace("_", "-")

    distributions = packages_distributions()
    for module, extra in EXTRA_OF_MODULE.items():
        of_extra = {
            normal(r.name) for r in requirements if r.marker and r.marker.evaluate({"extra": extra})
        }
        assert {normal(d) for d in distributions[module]} & of_extra, (module, extra)


def test_the_sdist_carries_what_the_readme_links_and_shows(source):
    """What a package index gets: every file the README links or shows (RULES.md, docs/,
    the pictures), the licence and the changelog; twine finds its metadata well formed."""
    dist = source.parent / "sdist"
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", str(dist),
         str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (sdist,) = dist.glob("spinner_env-*.tar.gz")
    with tarfile.open(sdist) as archive:
        files = {name.partition("/")[2] for name in archive.getnames()}
    readme = (ROOT / "README.md").read_text()
    linked = {
        target.partition("#")[0]
        for target in re.findall(r"\]\(([^)\s]+)\)|src=\"([^\"]+)\"", readme)
        for target in target
        if target and not re.match(r"[a-z]+:|#", target)
    }
    assert linked, "the README links files"
    assert linked | {"LICENSE", "CHANGELOG.md"} <= files, sorted(linked - files)
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_make_clean_removes_what_builds_leave(tmp_path):
    done = subprocess.run(
        ["make", "-n", "clean"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    removed = {word for line in done.stdout.splitlines() for word in line.split()[2:]}
    assert {"site", "build", "dist", ".venv"} <= removed


def test_make_install_takes_torch_from_the_index_it_is_given(tmp_path):
    """The CPU build from PyTorch's own index where TORCH_INDEX names it; the configured
    index otherwise (this machine's, which holds the CPU wheel)."""

    def torch_line(*more: str) -> str:
        done = subprocess.run(
            ["make", "-n", "install", f"VENV={tmp_path / 'venv'}", *more],
            cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        (line,) = [line for line in done.stdout.splitlines() if "torch==" in line]
        return line.split("install -q ", 1)[1].strip()

    assert torch_line() == "torch==2.13.0"
    cpu = "https://download.pytorch.org/whl/cpu"
    assert torch_line(f"TORCH_INDEX={cpu}") == f"torch==2.13.0 --index-url {cpu}"


def test_a_missing_module_of_an_extra_names_the_extra():
    with pytest.raises(MissingExtraError) as error, needs_extras("the thing"):
        raise ModuleNotFoundError("No module named 'torch.nn'", name="torch.nn")
    assert isinstance(error.value, ValueError) and isinstance(error.value, ImportError)
    assert str(error.value) == (
        "the thing needs the train extra (no module named 'torch'): "
        "pip install 'spinner-env[train]'"
    )
    # A module of no extra stays as it was.
    with pytest.raises(ModuleNotFoundError) as error, needs_extras("the thing"):
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")
    assert not isinstance(error.value, MissingExtraError)


def test_the_metadata_has_its_links_its_licence_and_a_changelog():
    urls = dict(
        url.split(", ", 1) for url in metadata("spinner-env").get_all("Project-URL") or []
    )
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    home = "https://github.com/spinner-env/spinner-env"
    assert all(url.startswith(home) for url in urls.values())
    assert "Copyright (c) 2026 spinner-env contributors" in (ROOT / "LICENSE").read_text()
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert headings[:2] == ["Unreleased", metadata("spinner-env")["Version"]]
