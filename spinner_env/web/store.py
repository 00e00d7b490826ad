"""The games the web server holds: in memory, each also on disk, a bounded number.

Every change is written at once as the table's JSON (the engine's ``to_dict`` plus the
seats and the log) with an atomic replace, so a server restarted at any moment finds
every game as it was after its last answered request. When a new game would exceed
``max_games``, the least recently used game is dropped, file and all (``on_drop`` sees
it first: the app keeps its match record).

:class:`RecordShelf` holds what the replay viewer opens: the records directory's files
and uploaded records.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from spinner_env.files import write_text_atomic
from spinner_env.play import Table
from spinner_env.records import Record, load_record, parse_record

GAME_ID = re.compile(r"[0-9a-f]{16}")
log = logging.getLogger(__name__)


class UnknownGameError(KeyError):
    """No game with that id is held (never created, dropped, or not an id at all)."""


class GameStore:
    def __init__(
        self,
        data_dir: Path,
        max_games: int,
        on_drop: Callable[[str, Table], None] | None = None,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        self.data_dir = data_dir
        self.max_games = max_games
        self.on_drop = on_drop
        self.lock = threading.Lock()
        """Held by a request for its whole read-change-write of a game."""
        self._tables: OrderedDict[str, Table] = OrderedDict()
        data_dir.mkdir(parents=True, exist_ok=True)
        self._load_all()

    def _load_all(self) -> None:
        files = [p for p in self.data_dir.glob("*.json") if GAME_ID.fullmatch(p.stem)]
        files.sort(key=lambda p: p.stat().st_mtime)
        for path in files[: -self.max_games]:
            path.unlink()  # beyond the bound (a smaller --max-games): the oldest go
        for path in files[-self.max_games :]:
            try:
                self._tables[path.stem] = Table.from_dict(json.loads(path.read_text("utf-8")))
            except (ValueError, OSError) as err:
                log.warning("skipping unreadable saved game %s: %s", path, err)

    def __len__(self) -> int:
        return len(self._tables)

    def get(self, game_id: str) -> Table:
        table = self._tables.get(game_id) if GAME_ID.fullmatch(game_id) else None
        if table is None:
            raise UnknownGameError(game_id)
        self._tables.move_to_end(game_id)
        return table

    def add(self, table: Table) -> str:
        game_id = secrets.token_hex(8)
        self._tables[game_id] = table
        while len(self._tables) > self.max_games:
            dropped, old = self._tables.popitem(last=False)
            if self.on_drop is not None:
                self.on_drop(dropped, old)
            (self.data_dir / f"{dropped}.json").unlink(missing_ok=True)
        self.save(game_id)
        return game_id

    def save(self, game_id: str) -> None:
        table = self._tables[game_id]
        write_text_atomic(self.data_dir / f"{game_id}.json", json.dumps(table.to_dict()))


RECORD_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json")
"""A record's file name in the records directory: no separators, no leading dot."""
UPLOAD_ID = re.compile(r"upload-[0-9a-f]{16}")


class UnknownRecordError(KeyError):
    """No record by that name in the records directory, nor an upload by that id."""


class RecordShelf:
    """The match records the replay viewer opens: files directly inside ``folder`` (a name
    with a separator, a dot file, or a symlink resolving outside the folder is refused:
    nothing else on the machine can be read through it) and up to ``max_uploads``
    uploaded records, held in memory only (the least recently used goes first).
    Loaded records are kept for ``max_cached`` files, keyed by size and modification
    time, so stepping through one replays it once."""

    def __init__(self, folder: Path, max_uploads: int = 16, max_cached: int = 8) -> None:
        self.folder = folder.resolve()
        self.max_uploads = max_uploads
        self.max_cached = max_cached
        self._uploads: OrderedDict[str, Record] = OrderedDict()
        self._cache: OrderedDict[tuple[str, int, int], Record] = OrderedDict()

    def listing(self) -> list[dict[str, int | str]]:
        """Every record file's name, size and modification time (seconds), newest first;
        empty when the folder does not exist."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in self.folder.iterdir():
            if RECORD_FILE.fullmatch(path.name) and self._inside(path):
                stat = path.stat()
                found.append(
                    {"name": path.name, "bytes": stat.st_size, "modified": int(stat.st_mtime)}
                )
        return sorted(found, key=lambda f: (-int(f["modified"]), str(f["name"])))

    def _inside(self, path: Path) -> bool:
        try:
            resolved = path.resolve(strict=True)
        except OSError:
            return False
        return resolved.parent == self.folder and resolved.is_file()

    def get(self, record_id: str) -> Record:
        """The record ``record_id`` names (a file name or an upload's id); ValueError if
        the file is not a valid record."""
        if UPLOAD_ID.fullmatch(record_id):
            if record_id not in self._uploads:
                raise UnknownRecordError(record_id)
            self._uploads.move_to_end(record_id)
            return self._uploads[record_id]
        path = self.folder / record_id
        if not RECORD_FILE.fullmatch(record_id) or not self._inside(path):
            raise UnknownRecordError(record_id)
        stat = path.stat()
        key = (record_id, stat.st_size, stat.st_mtime_ns)
        if key not in self._cache:
            self._cache[key] = load_record(path)
            while len(self._cache) > self.max_cached:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return self._cache[key]

    def upload(self, text: bytes) -> str:
        """Hold an uploaded record (ValueError if it is not one); its id."""
        record = parse_record(text)
        upload_id = f"upload-{secrets.token_hex(8)}"
        self._uploads[upload_id] = record
        while len(self._uploads) > self.max_uploads:
            self._uploads.popitem(last=False)
        return upload_id
