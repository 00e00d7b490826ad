"""spinner_env.files: whole-file writes that an error cannot leave half done."""

from pathlib import Path

import pytest

from spinner_env.files import atomic_write, write_bytes_atomic, write_text_atomic


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    write_text_atomic(target, "new")
    write_bytes_atomic(tmp_path / "weights.bin", b"\x00\x01")
    assert target.read_text() == "new"
    assert (tmp_path / "weights.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "weights.bin"]


def test_an_error_while_writing_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "model.pt"
    target.write_bytes(b"trained")
    with pytest.raises(RuntimeError), atomic_write(target, "wb") as f:
        f.write(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"trained"
    assert [p.name for p in tmp_path.iterdir()] == ["model.pt"]


def test_atomic_write_refuses_append_and_read_modes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode"), atomic_write(tmp_path / "x", "a"):
        pass


def test_a_new_file_gets_the_mode_open_gives_and_a_replaced_file_keeps_its_own(
    tmp_path: Path,
) -> None:
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("made by open()")
    new = tmp_path / "new.txt"
    write_text_atomic(new, "made atomically")
    assert new.stat().st_mode == fresh.stat().st_mode
    fresh.chmod(0o640)
    write_text_atomic(fresh, "replaced")
    assert fresh.stat().st_mode & 0o777 == 0o640
