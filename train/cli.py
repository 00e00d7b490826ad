"""What the command lines share: bad input is one line on stderr and exit status 2.

Every training command (``spinner-train``, ``spinner-evaluate``, ``spinner-exploit``, also run
as ``python -m spinner_env.train.ppo`` and so on) parses with :class:`ArgumentParser` and runs
its work inside :func:`fail_cleanly`: a ``ValueError`` (bad input, raised with a message that
says what is wrong) or an ``OSError`` (a file that cannot be read or written) ends the command
with that one line and status 2. ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """argparse with ``--debug``, whose usage errors take one line (and status 2)."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description)
        self.add_argument("--debug", action="store_true", help="on an error, show the traceback")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


@contextmanager
def fail_cleanly(parser: argparse.ArgumentParser, debug: bool) -> Iterator[None]:
    """Turn bad input met in the body into the command's one-line error (unless ``debug``)."""
    try:
        yield
    except (ValueError, OSError) as error:
        if debug:
            raise
        message = str(error) if isinstance(error, ValueError) else _describe_os_error(error)
        one_line = " ".join(message.split())
        print(f"{parser.prog}: error: {one_line}", file=sys.stderr)
        raise SystemExit(2) from None


def _describe_os_error(error: OSError) -> str:
    where = f" {error.filename!r}" if error.filename else ""
    return f"{error.strerror or error}{':' if where else ''}{where}"


# Console scripts (pyproject's [project.scripts]). Each command's main() returns its result
# to Python callers; a console script would take that value for an exit status.
def train() -> None:
    from spinner_env.train import ppo

    ppo.main()


def evaluate() -> None:
    from spinner_env.train import evaluate

    evaluate.main()


def exploit() -> None:
    from spinner_env.train import exploit

    exploit.main()


def league() -> None:
    from spinner_env.train import league

    league.main()
