"""A griffe extension for the API reference: our docstrings keep a few reST and Google
style habits that Markdown and griffe's Google parser would otherwise show as they are.

- Sphinx roles (:class:`SingleAgentEnv`, :func:`~spinner_env.core.encoding.layout_slices`) become
  code spans (a ``~`` keeps the last name only).
- A paragraph ending in ``::`` before an indented example ends in one colon (the indented
  lines are a code block in Markdown too).
- An ``Args:`` entry that names several parameters at once (``reward, episode: as the
  game's raw_env``) becomes one entry per parameter, each with the whole description.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")
_LITERAL_BLOCK = re.compile(r"(\S)::\n\n")
_SHARED_ENTRY = re.compile(r"^( +)(\w+(?:, \w+)+): (.*)$")


def _as_code(match: re.Match[str]) -> str:
    name = match[2].rsplit(".", 1)[-1] if match[1] else match[2]
    return f"`{name}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def split_shared_entries(text: str) -> str:
    """``a, b: text`` (and its more indented continuation lines) as ``a: text`` and
    ``b: text``."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        entry = _SHARED_ENTRY.match(lines[i])
        if entry is None:
            out.append(lines[i])
            i += 1
            continue
        indent, names, first = entry[1], entry[2].split(", "), entry[3]
        end = i + 1
        while end < len(lines) and lines[end].strip() and _indent(lines[end]) > len(indent):
            end += 1
        for name in names:
            out += [f"{indent}{name}: {first}", *lines[i + 1 : end]]
        i = end
    return "\n".join(out)


class ReSTHabits(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            text = _ROLE.sub(_as_code, obj.docstring.value)
            text = _LITERAL_BLOCK.sub(r"\1:\n\n", text)
            obj.docstring.value = split_shared_entries(text)
