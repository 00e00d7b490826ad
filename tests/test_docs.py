"""The README documents the code as it is."""

from __future__ import annotations

import re
from pathlib import Path

from spinner_env.spinner_v0 import NUM_ACTIONS, OBSERVATION_LAYOUT, OBSERVATION_SIZE

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _table_rows(first_name: str) -> list[tuple[str, str, int]]:
    """(name, slice, size) rows of the README table that starts with ``first_name``."""
    start = README.index(f"| `{first_name}` |")
    rows = []
    for line in README[start:].splitlines():
        match = re.match(r"\| `(\w+)` \| (\d+:\d+) \| (\d+) \|", line)
        if not match:
            break
        rows.append((match[1], match[2], int(match[3])))
    return rows


def test_spinner_observation_table_matches_the_layout():
    expected, offset = [], 0
    for name, size, _ in OBSERVATION_LAYOUT:
        expected.append((name, f"{offset}:{offset + size}", size))
        offset += size
    assert _table_rows("hand") == expected
    assert f"float32 vector of {OBSERVATION_SIZE}" in README.replace("\n", " ")
    assert f"Discrete({NUM_ACTIONS})" in README


def test_readme_names_the_test_command():
    assert "make test" in README
