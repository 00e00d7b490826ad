"""A griffe extension for the API reference: the docstrings are written with reST habits
that Markdown would print as they are. Sphinx roles (:class:`SingleAgentEnv`,
:func:`~spinner_env.aec.layout_slices`) become code spans (a ``~`` keeps the last name
only), and a paragraph ending in ``::`` before an indented example ends in one colon
(the indented lines are a code block in Markdown too)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")
_LITERAL_BLOCK = re.compile(r"(\S)::\n\n")


def _as_code(match: re.Match[str]) -> str:
    name = match[2].rsplit(".", 1)[-1] if match[1] else match[2]
    return f"`{name}`"


class SphinxRoles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            text = _ROLE.sub(_as_code, obj.docstring.value)
            obj.docstring.value = _LITERAL_BLOCK.sub(r"\1:\n\n", text)
