"""The documentation site builds with ``mkdocs build --strict``, its generated tables are
the code's own, every Python example in it (docs/**/*.md and README.md) runs, and every
command line of the README and the user guide names a command, script, make target,
option and config that exist (a config for that very command).

A ```python block runs in a fresh interpreter, in an empty folder, and must exit 0. A block
that must not run (it needs a file or a service the tests do not have) is preceded by the
line ``<!-- no-run -->``; use it sparingly: an example that does not run is not checked.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from spinner_env.train.config import load_config

from spinner_env import mexican_train_v0, spinner_v0

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
NO_RUN = "<!-- no-run -->"
FENCE = re.compile(r"^(?P<indent> *)```python\n(?P<code>.*?)^(?P=indent)```$", re.M | re.S)
ENVIRONMENTS = (spinner_v0, mexican_train_v0)


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """(line, code) of each ```python block of ``page`` not marked ``<!-- no-run -->``."""
    text = page.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        if before != NO_RUN:
            line = text.count("\n", 0, match.start()) + 1
            blocks.append((line, textwrap.dedent(match["code"])))
    return blocks


EXAMPLES = [
    pytest.param(code, id=f"{page.name}:{line}")
    for page in PAGES
    for line, code in python_blocks(page)
]


def test_pages_have_examples():
    ids = [example.id for example in EXAMPLES]
    assert len(ids) >= 10
    assert any(id_.startswith("README.md:") for id_ in ids)


def test_blocks_are_found_and_no_run_skips_one(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nprint(1)\n```\n\n<!-- no-run -->\n```python\nimport missing\n```\n"
        "- a list\n\n    ```python\n    x = 2\n    ```\n"
    )
    assert python_blocks(page) == [(3, "print(1)\n"), (13, "x = 2\n")]


GUIDE = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # not docs/results/
OURS = re.compile(r"^(?:[A-Z_]+=\S* )*(?:\S*/bin/)?(?:spinner-[a-z-]+|python|make)(?: |$)")


def shell_lines(page: Path) -> list[str]:
    """The lines of ``page``'s shell blocks (```bash and plain fences), continuations joined."""
    lines, block = [], None
    for line in page.read_text().splitlines():
        fence = re.match(r" *```(\w*)", line)
        if fence and block is None:
            block = [] if fence[1] in ("bash", "sh", "") else None
            if block is None:
                block = "other"
        elif fence:
            if block != "other":
                lines += "\n".join(block).replace("\\\n", " ").splitlines()
            block = None
        elif block is not None and block != "other":
            block.append(line.strip())
    return lines


def command_lines(page: Path) -> list[list[str]]:
    """The words of each command line in ``page``'s shell blocks that runs one of ours: a
    console script, a script of bench/, research/ or examples/, or a make target."""
    commands = []
    for line in shell_lines(page):
        if OURS.match(line) and not line.startswith("python -c"):
            words = shlex.split(line, comments=True)
            while re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words = words[1:]  # environment variables before the command
            commands.append([words[0].rsplit("/bin/", 1)[-1], *words[1:]])
    return commands


@functools.cache
def console_scripts() -> dict[str, str]:
    """pyproject.toml's [project.scripts]: name -> "module:function"."""
    section = (ROOT / "pyproject.toml").read_text().split("[project.scripts]\n", 1)[1]
    return dict(re.findall(r'^([\w-]+) = "([\w.:]+)"$', section.split("\n\n", 1)[0], re.M))


@functools.cache
def help_text(command: str) -> str:
    """``command --help``, run from the package (whatever the installed scripts are)."""
    module, function = console_scripts()[command].split(":")
    code = f"import sys; from {module} import {function}; sys.argv[0] = {command!r}; {function}()"
    done = subprocess.run(
        [sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def command_line_error(words: list[str]) -> str | None:
    """What is wrong with one command line, or None."""
    name, args = words[0], words[1:]
    if name == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        return None if args[0] in targets else f"no make target {args[0]!r}"
    if name == "python":
        script = args[0]
        return None if script == "-m" or (ROOT / script).is_file() else f"no script {script}"
    if name not in console_scripts():
        return f"no console script {name!r}"
    options = {arg.split("=", 1)[0] for arg in args if arg.startswith("--")}
    known = set(re.findall(r"--[\w-]+", help_text(name)))
    if options - known:
        return f"{name} has no option {', '.join(sorted(options - known))}"
    if "--config" in args:
        given = args[args.index("--config") + 1]
        config = load_config(ROOT / given if (ROOT / given).is_file() else given)
        if config.command not in (None, name):
            return f"the config is for {config.command}, not {name}"
    return None


def test_every_command_line_of_the_guide_exists():
    lines = [(page.name, words) for page in GUIDE for words in command_lines(page)]
    assert len(lines) > 40
    assert {words[0] for _, words in lines} >= {"make", "python", "spinner-train", "spinner-play"}
    errors = [
        f"{page}: {' '.join(words)}: {error}"
        for page, words in lines
        if (error := command_line_error(words)) is not None
    ]
    assert errors == []


def test_every_console_script_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    assert [name for name in console_scripts() if f"`{name}`" not in readme] == []


def test_readme_links_resolve():
    """The README's links are relative paths in the repository, as GitHub shows them."""
    links = re.findall(r"\]\(([^)#\s]+)[^)]*\)", (ROOT / "README.md").read_text())
    local = [link for link in links if "://" not in link]
    assert "docs/environments.md" in local
    assert [link for link in local if not (ROOT / link).is_file()] == []


@pytest.mark.parametrize("code", EXAMPLES)
def test_example_runs(code: str, tmp_path: Path):
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 0, f"{code}\n--- stderr ---\n{result.stderr[-4000:]}"


def _require_mkdocs() -> None:
    """Skip where mkdocs is not installed, except in CI (CI=true), where that fails."""
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs is not installed: make install installs the docs extra")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")


def _docs_module(name: str) -> ModuleType:
    """One of the site's build scripts in docs/ (the MkDocs hooks, the griffe extension)."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGE = SimpleNamespace(file=SimpleNamespace(src_path="example.md"))  # what the hook reads


@pytest.mark.parametrize("env_module", ENVIRONMENTS, ids=lambda m: m.__name__)
def test_observation_table_is_the_layout(env_module: ModuleType):
    _require_mkdocs()
    name = env_module.__name__.rsplit(".", 1)[1]
    page = _docs_module("hooks").on_page_markdown(f"<!-- generated: observation {name} -->", PAGE)
    rows = [line.split(" | ") for line in page.splitlines()[2:]]
    assert [(row[0].strip("| `"), row[1], int(row[2])) for row in rows] == [
        (key, f"{part.start}:{part.stop}", part.stop - part.start)
        for key, part in env_module.OBSERVATION_SLICES.items()
    ]
    assert rows[-1][1].endswith(f":{env_module.OBSERVATION_SIZE}")


def test_unknown_generated_table_fails_the_build():
    _require_mkdocs()
    hooks = _docs_module("hooks")
    for marker in ("observation chess_v0", "colours spinner_v0"):
        with pytest.raises(ValueError, match=r"example\.md: no generated table"):
            hooks.on_page_markdown(f"text\n<!-- generated: {marker} -->\n", PAGE)


def test_an_args_entry_naming_several_parameters_documents_each():
    _require_mkdocs()
    split = _docs_module("griffe_docstrings").split_shared_entries
    text = "Args:\n    n: B.\n    reward, episode: as raw_env (a;\n        b).\n    seat: x.\n"
    assert split(text) == (
        "Args:\n    n: B.\n    reward: as raw_env (a;\n        b).\n"
        "    episode: as raw_env (a;\n        b).\n    seat: x.\n"
    )
    prose = "Reward, episode: in prose, not indented."
    assert split(prose) == prose


def test_site_builds_strict(tmp_path: Path):
    _require_mkdocs()
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-6000:]
    environments = (site / "environments" / "index.html").read_text()
    assert "generated:" not in environments
    for env_module in ENVIRONMENTS:
        assert f"Discrete({env_module.NUM_ACTIONS})" in environments
        for part in env_module.OBSERVATION_SLICES.values():
            assert f"<td>{part.start}:{part.stop}</td>" in environments
    # The rules page is RULES.md itself, every numbered rule included.
    rules = (site / "rules" / "index.html").read_text()
    numbers = re.findall(r"\*\*([SM]\d+\.\d+)\*\*", (ROOT / "RULES.md").read_text())
    assert len(numbers) > 50
    assert all(f"<strong>{number}</strong>" in rules for number in numbers)
    # The API reference is generated from the docstrings of every package.
    for page, name in [
        ("api/agents", "spinner_env.agents.make_agent"),
        ("api/train", "spinner_env.train.evaluate.tournament"),
        ("api/wrappers", "spinner_env.wrappers.SingleAgentEnv"),
        ("api/batched", "spinner_env.games.spinner.batched.BatchedSpinner"),
    ]:
        assert f'id="{name}"' in (site / page / "index.html").read_text(), name
