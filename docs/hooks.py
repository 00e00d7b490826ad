"""MkDocs hooks: the API reference's sources, and the tables generated from the code.

A page asks for a generated table with a comment on a line of its own:

    <!-- generated: spaces spinner_v0 -->        the environment's spaces, from the env
    <!-- generated: observation spinner_v0 -->   the observation layout, from OBSERVATION_SLICES

(any registered game's env module likewise). An unknown table or environment fails the
build.
"""

from __future__ import annotations

import importlib
import re
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from mkdocs.plugins import event_priority

from spinner_env.games import GAMES

REPO = Path(__file__).resolve().parent.parent
ENVIRONMENTS = tuple(game.env_name for game in GAMES.values())
"""The env modules a page may ask tables of: every registered game's."""
_MARKER = re.compile(r"^<!-- generated: (\w+) (\w+) -->$", re.MULTILINE)

# The package installs agents/ and train/ as spinner_env.agents and spinner_env.train
# (setuptools' package-dir), a layout griffe cannot find from the repository. A folder of
# links shaped as the installed package lets mkdocstrings read the sources statically.
_PACKAGE_DIRS = {"agents": REPO / "agents", "train": REPO / "train"}
_api_sources: Path | None = None


@event_priority(100)  # before mkdocstrings' on_config, which starts the Python handler
def on_config(config: Any) -> Any:
    global _api_sources
    _remove_api_sources()
    _api_sources = Path(tempfile.mkdtemp(prefix="spinner_env_api_"))
    package = _api_sources / "spinner_env"
    package.mkdir()
    for entry in (REPO / "spinner_env").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, source in _PACKAGE_DIRS.items():
        (package / name).symlink_to(source)
    config.plugins["mkdocstrings"].config.handlers["python"]["paths"] = [str(_api_sources)]
    return config


def on_shutdown() -> None:
    _remove_api_sources()


def _remove_api_sources() -> None:
    if _api_sources is not None:
        shutil.rmtree(_api_sources, ignore_errors=True)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    def table(match: re.Match[str]) -> str:
        kind, name = match[1], match[2]
        if kind not in TABLES or name not in ENVIRONMENTS:
            raise ValueError(
                f"{page.file.src_path}: no generated table {kind!r} of {name!r} "
                f"(tables: {', '.join(TABLES)}; environments: {', '.join(ENVIRONMENTS)})"
            )
        return TABLES[kind](importlib.import_module(f"spinner_env.{name}"))

    return _MARKER.sub(table, markdown)


def spaces_table(module: ModuleType) -> str:
    """The environment's spaces as its own objects describe them, PettingZoo style (the
    import line heads the table)."""
    env = module.env(num_players=2)
    env.reset(seed=0)
    agent = env.agents[0]
    observation = env.observation_space(agent)["observation"]
    mask = env.observation_space(agent)["action_mask"]
    state = env.unwrapped.state_space
    name = module.__name__.rsplit(".", 1)[1]
    rows = [
        ("Agents", f"`player_0` ... `player_{{n-1}}`, by seat (n up to {module.MAX_PLAYERS})"),
        ("Action space", f"`Discrete({env.action_space(agent).n})`"),
        (
            "Observation space",
            f"`Dict(observation: Box({observation.shape[0]},) {observation.dtype}, "
            f"action_mask: Box({mask.shape[0]},) {mask.dtype})`",
        ),
        (
            "Observation values",
            f"{_number(observation.low.min())} to "
            f"{_number(observation.high.max())} (each part's range below)",
        ),
        ("State space (`state()`)", f"`Box({state.shape[0]},) {state.dtype}`"),
        ("Render modes", ", ".join(f"`{mode}`" for mode in env.metadata["render_modes"])),
    ]
    env.close()
    return _markdown_table(("Import", f"`from spinner_env import {name}`"), rows)


def observation_table(module: ModuleType) -> str:
    """One row per part of the observation vector: OBSERVATION_SLICES with the layout's
    meanings and each part's bounds (OBSERVATION_LOW / OBSERVATION_HIGH)."""
    rows = []
    for name, _, meaning in module.OBSERVATION_LAYOUT:
        part = module.OBSERVATION_SLICES[name]
        low = module.OBSERVATION_LOW[part]
        high = module.OBSERVATION_HIGH[part]
        rows.append(
            (
                f"`{name}`",
                f"{part.start}:{part.stop}",
                str(part.stop - part.start),
                f"{_number(low.min())}-{_number(high.max())}",
                meaning,
            )
        )
    return _markdown_table(("name", "slice", "size", "range", "contents"), rows)


TABLES = {"spaces": spaces_table, "observation": observation_table}


def _number(value: np.floating) -> str:
    return f"{float(value):g}"


def _markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
