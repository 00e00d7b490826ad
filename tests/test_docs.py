"""The README documents the code as it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spinner_env import mexican_train_v0, spinner_v0

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _table_rows(section: str) -> list[tuple[str, str, int]]:
    """(name, slice, size) rows of the first observation table after ``section``."""
    start = README.index("| `hand` |", README.index(section))
    rows = []
    for line in README[start:].splitlines():
        match = re.match(r"\| `(\w+)` \| (\d+:\d+) \| (\d+) \|", line)
        if not match:
            break
        rows.append((match[1], match[2], int(match[3])))
    return rows


@pytest.mark.parametrize(
    "module, section",
    [
        (spinner_v0, "## The Spinner environment"),
        (mexican_train_v0, "## The Mexican Train environment"),
    ],
)
def test_observation_table_matches_the_layout(module, section):
    expected, offset = [], 0
    for name, size, _ in module.OBSERVATION_LAYOUT:
        expected.append((name, f"{offset}:{offset + size}", size))
        offset += size
    assert _table_rows(section) == expected
    text = README[README.index(section) :].replace("\n", " ")
    assert f"float32 vector of {module.OBSERVATION_SIZE}" in text
    assert f"Discrete({module.NUM_ACTIONS})" in text


def test_readme_names_the_test_command():
    assert "make test" in README
