"""Fixtures shared by several test modules."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from ray_sandbox import RaySandbox, namespaces_refused, skip_or_fail

# research/ is no part of the package: its scripts import each other as run from there
# (`python research/dagger.py`), and the tests of them import them the same way.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "research"))


@pytest.fixture
def ray_sandbox(tmp_path: Path) -> Iterator[RaySandbox]:
    refused = namespaces_refused()
    if refused is not None:
        skip_or_fail(refused)
    home = tmp_path / "home"
    home.mkdir()
    temp_dir = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    try:
        yield RaySandbox(home=home, temp_dir=temp_dir)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
