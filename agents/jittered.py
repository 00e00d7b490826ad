"""Hand-written players with perturbed weights: opponent styles a trained agent has not met.

``make_agent("heuristic:jitter=0.2,seed=3")`` (or ``expert:...``) is the player with every
float weight, every game's, its default times ``exp(jitter * N(0, 1))``, drawn from
``seed`` (default 0): the same spec is the same player in every process, so evaluations
through worker processes or Ray (which build agents from their specs) can seat it. The
league and DAgger draw their jittered opponents with :func:`jittered_player` too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np
from spinner_env.agents.expert import ExpertAgent
from spinner_env.agents.heuristic import HandWrittenAgent, HeuristicAgent

JITTERED: dict[str, type[HandWrittenAgent]] = {
    player.name: player for player in (HeuristicAgent, ExpertAgent)
}
"""The players a ``name:jitter=...`` spec perturbs, by name."""

PlayerT = TypeVar("PlayerT", bound=HandWrittenAgent)


def jittered_weights(weights: Any, rng: np.random.Generator, jitter: float) -> Any:
    """A weights dataclass whose float fields are ``weights``' times ``exp(jitter * N(0,
    1))``; the sign of each weight is kept."""
    changes = {
        f.name: getattr(weights, f.name) * float(np.exp(jitter * rng.standard_normal()))
        for f in dataclasses.fields(weights)
        if isinstance(getattr(weights, f.name), float)
    }
    return dataclasses.replace(weights, **changes)


def jittered_player(
    player_class: type[PlayerT], rng: np.random.Generator, jitter: float, seed: int | None = None
) -> PlayerT:
    """A hand-written player of ``player_class`` (``HeuristicAgent`` or ``ExpertAgent``)
    whose float weights, every game's in the registry's order, are its defaults jittered
    (:func:`jittered_weights`); ``seed`` seeds its own randomness."""
    defaults = player_class().weights
    weights = {game: jittered_weights(defaults[game], rng, jitter) for game in defaults}
    return player_class(seed=seed, weights=weights)


def make_jittered_player(
    name: str, options: Mapping[str, str], seed: int | None = None
) -> HandWrittenAgent:
    """``heuristic`` or ``expert`` from ``jitter=J`` (required, >= 0) and ``seed=S`` (the
    weights' draw, default 0) options, named by its spec; ValueError for anything else."""
    unknown = set(options) - {"jitter", "seed"}
    if unknown:
        raise ValueError(
            f"unknown option {sorted(unknown)[0]!r} for {name}: it takes jitter and seed"
        )
    if "jitter" not in options:
        raise ValueError(f"{name} with options needs jitter=J (the weights' log-scale spread)")
    try:
        jitter = float(options["jitter"])
    except ValueError:
        text = options["jitter"]
        raise ValueError(f"option jitter={text!r} for {name} is not a number") from None
    if not 0 <= jitter < math.inf:
        raise ValueError(f"jitter must be a finite number >= 0, got {options['jitter']!r}")
    text = options.get("seed", "0")
    if not text.isdigit():
        raise ValueError(f"option seed={text!r} for {name} is not a whole number >= 0")
    rng = np.random.default_rng(int(text))
    player = jittered_player(JITTERED[name], rng, jitter, seed)
    player.name = name + ":" + ",".join(f"{k}={v}" for k, v in options.items())
    return player


__all__ = ["JITTERED", "jittered_player", "jittered_weights", "make_jittered_player"]
