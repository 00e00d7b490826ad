"""The house's shape (docs/adding_a_game.md): a game is its package of ``spinner_env/games``,
the layers above ask its record and name no game, and the core needs no PettingZoo.

Read from the code as text (the AST), so a file that names a game is found whether or not
it runs.
"""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from spinner_env.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
SHARED_ROOTS = ("spinner_env", "agents", "train")
"""The package's folders (agents/ and train/ install as spinner_env.agents and .train)."""
REGISTRY = {
    "spinner_env/games/__init__.py",  # the one line per game
    # Each game's env under the versioned name users import, as PettingZoo's
    # classic/connect_four_v3.py gathers its game's folder.
    *(f"spinner_env/{game.env_name}.py" for game in GAMES.values()),
}


def game_class_names() -> dict[str, str]:
    """Every class a game's package defines, by name, with its game (``raw_env``, which
    every game names alike, left out)."""
    names = {}
    for name in GAMES:
        for source in (ROOT / "spinner_env" / "games" / name).glob("*.py"):
            for node in ast.parse(source.read_text()).body:
                if isinstance(node, ast.ClassDef) and node.name != "raw_env":
                    names[node.name] = name
    return names


def names_of_games(source: Path, classes: dict[str, str]) -> set[str]:
    """How ``source`` names a game: imports of a game's package or of its versioned env,
    its classes by name, and its name as a string."""
    found = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("spinner_env.games."):
                found.add(f"import {node.module}")
            if node.module in ("spinner_env", "spinner_env.games"):
                found |= {
                    f"import {alias.name}"
                    for alias in node.names
                    if alias.name in GAMES or alias.name.endswith("_v0")
                }
        elif isinstance(node, ast.Import):
            found |= {
                f"import {a.name}" for a in node.names if a.name.startswith("spinner_env.games.")
            }
        elif isinstance(node, ast.Name) and node.id in classes:
            found.add(f"class {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in classes:
            found.add(f"class {node.attr}")
        elif isinstance(node, ast.Constant) and node.value in GAMES:
            found.add(f"string {node.value!r}")
    return found


def shared_sources() -> list[Path]:
    return [
        source
        for root in SHARED_ROOTS
        for source in sorted((ROOT / root).rglob("*.py"))
        if not source.relative_to(ROOT).as_posix().startswith("spinner_env/games/")
    ]


def test_only_the_registry_and_the_games_name_a_game():
    """Issue 51 item 2: the shared layers ask the record (``GameSpec``) and name no game."""
    classes = game_class_names()
    naming = {}
    for source in shared_sources():
        path = source.relative_to(ROOT).as_posix()
        if path not in REGISTRY:
            found = names_of_games(source, classes)
            if found:
                naming[path] = sorted(found)
    assert naming == {}


def test_imports_run_one_way_core_games_agents_training():
    """A game imports the core and no other game; neither imports the agents or training
    (a game's hand-written players build on ``spinner_env.core.agent``)."""
    above = ("spinner_env.agents", "spinner_env.train")
    for folder in ("core", *(f"games/{name}" for name in GAMES)):
        for source in (ROOT / "spinner_env" / folder).glob("*.py"):
            for node in ast.walk(ast.parse(source.read_text())):
                if not (isinstance(node, ast.ImportFrom) and node.module):
                    continue
                other = node.module.removeprefix("spinner_env.games.").split(".")[0]
                crossing = node.module.startswith("spinner_env.games.") and (
                    folder == "core" or f"games/{other}" != folder
                )
                if crossing or node.module.startswith(above):
                    pytest.fail(f"{source.relative_to(ROOT)} imports {node.module}")


def test_the_core_engines_and_batched_engines_import_without_pettingzoo():
    """Issue 51 item 3: PettingZoo is the env modules' and the AEC adapter's alone."""
    modules = ["spinner_env.core.encoding", "spinner_env.core.game", "spinner_env.batched.core"]
    for game in GAMES.values():
        modules += [
            f"spinner_env.games.{game.name}.rules",
            f"spinner_env.games.{game.name}.encoding",
            game.engine_path.partition(":")[0],
            game.opponents_path,
            game.rollouts_path.partition(":")[0],
        ]
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = None  # any import of it fails\n"
        f"for name in {modules!r}:\n"
        "    __import__(name)\n"
        "assert not any(m.split('.')[0] == 'pettingzoo' for m in sys.modules if sys.modules[m])\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-3000:]


def test_a_games_record_points_into_its_own_package():
    """The record's lazy paths load from the game's folder (the SB3 VecEnv and the other
    layers above find the game by its rules, not by a path of theirs)."""
    for name, game in GAMES.items():
        paths = [
            getattr(game, field.name)
            for field in dataclasses.fields(game)
            if field.name.endswith("_path") and getattr(game, field.name) is not None
        ]
        assert len(paths) >= 8 and all(p.startswith(f"spinner_env.games.{name}.") for p in paths)

