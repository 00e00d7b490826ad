"""The games the web server holds: in memory, each also on disk, a bounded number.

Every change is written at once as the table's JSON (the engine's ``to_dict`` plus the
seats and the log) with an atomic replace, so a server restarted at any moment finds
every game as it was after its last answered request. When a new game would exceed
``max_games``, the least recently used game is dropped, file and all (``on_drop`` sees
it first: the app keeps its match record).
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
