"""Serve the web game and its replay viewer:
``python -m spinner_env.web [--port 8000] [--data-dir DIR] [--records-dir DIR]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from spinner_env.web.app import create_app

DEFAULT_DATA_DIR = Path.home() / ".local" / "share" / "spinner-env" / "web-games"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="spinner-web", description="Play Spinner or Mexican Train in a browser."
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="where each game is kept, so a restart loses none (default: %(default)s)",
    )
    parser.add_argument(
        "--max-games", type=int, default=64, help="games held at once (default: %(default)s)"
    )
    parser.add_argument(
        "--records-dir",
        type=Path,
        default=None,
        help="match records of finished and abandoned games, read by the replay viewer "
        f"(default: DATA_DIR/records, so {DEFAULT_DATA_DIR / 'records'} without --data-dir)",
    )
    parser.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        metavar="PATH",
        help="a checkpoint file the page may choose as an opponent (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        app = create_app(args.data_dir, args.max_games, args.checkpoint, args.records_dir)
    except (ValueError, OSError) as err:
        print(f"spinner-web: {err}", file=sys.stderr)
        return 2
    print(
        f"Open http://{args.host}:{args.port} "
        f"(games kept in {args.data_dir}, records in {app.state.records_dir})"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
