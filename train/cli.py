"""What the command lines share: bad input is one line on stderr and exit status 2.

Every training command (``spinner-train``, ``spinner-evaluate``, ``spinner-exploit``, also run
as ``python -m spinner_env.train.ppo`` and so on) parses with :class:`ArgumentParser` and runs
its work inside :func:`fail_cleanly`: a ``ValueError`` (bad input, raised with a message that
says what is wrong) or an ``OSError`` (a file that cannot be read or written) ends the command
with that one line and status 2. ``--debug`` shows the traceback instead. A choice that is
none of a flag's choices is answered with the closest one ("did you mean").

The console scripts of commands that need an extra (``spinner-train``: ``train``,
``spinner-web``: ``web``) start here: where the extra is missing, they say which to install,
in one line with status 2, before any traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from spinner_env.extras import MissingExtraError, needs_extras
from spinner_env.suggest import did_you_mean


class ArgumentParser(argparse.ArgumentParser):
    """argparse with ``--debug``, whose usage errors take one line (and status 2)."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description)
        self.add_argument("--debug", action="store_true", help="on an error, show the traceback")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # argparse's own check, with the closest choice suggested.
        choices = action.choices
        if choices is None or value in choices:
            return
        listed = ", ".join(map(str, choices))
        hint = did_you_mean(str(value), map(str, choices)) if isinstance(value, str) else ""
        raise argparse.ArgumentError(
            action, f"invalid choice: {value!r}{hint} (choose from {listed})"
        )


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
def _main_of(prog: str, module: str) -> Callable[[], Any]:
    """``module``'s ``main``, imported; a missing extra ends the command ``prog`` with one
    line naming it, and status 2."""
    try:
        with needs_extras(prog):
            return importlib.import_module(module).main
    except MissingExtraError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def train() -> None:
    _main_of("spinner-train", "spinner_env.train.ppo")()


def evaluate() -> None:
    _main_of("spinner-evaluate", "spinner_env.train.evaluate")()


def exploit() -> None:
    _main_of("spinner-exploit", "spinner_env.train.exploit")()


def league() -> None:
    _main_of("spinner-league", "spinner_env.train.league")()


def policy_iteration() -> None:
    _main_of("spinner-policy-iteration", "spinner_env.train.policy_iteration")()


def policy() -> None:
    _main_of("spinner-policy", "spinner_env.agents.policy")()


def web() -> None:
    """``spinner-web``, whose main returns its exit status."""
    raise SystemExit(_main_of("spinner-web", "spinner_env.web.__main__")())
