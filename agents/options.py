"""The ``key=value,key=value`` options of an agent spec (``name:options``, as
:func:`spinner_env.agents.make_agent` reads it), read alike for every player that takes them."""

from __future__ import annotations


def parse_options(name: str, text: str) -> dict[str, str]:
    """``key=value,key=value`` as a dict; ValueError for an item that is not one."""
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise ValueError(f"{name} option {item!r} is not key=value")
        if key in options:
            raise ValueError(f"{name} option {key!r} is given twice")
        options[key] = value
    return options


__all__ = ["parse_options"]
