"""Agents from their specs: :func:`make_agent` reads the names the command lines, configs and
opponents take (the package docstring lists them), and :data:`COMMITTED` names the shipped
policies.

The search players (``pimc``, ``ismcts``) build their rollout agent from a spec with
:func:`make_agent`, so this module cannot import them: :mod:`spinner_env.agents.search`
adds its players to :data:`SEARCH_PLAYERS` as it loads (the agents package loads it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from spinner_env.agents.baselines import GreedyAgent, RandomAgent
from spinner_env.agents.expert import ExpertAgent
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.agents.jittered import JITTERED, make_jittered_player
from spinner_env.agents.options import parse_options

from spinner_env.core.agent import Agent
from spinner_env.core.encoding import Encoding
from spinner_env.extras import needs_extras
from spinner_env.suggest import did_you_mean

BASELINES: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "expert": ExpertAgent,
}

CHECKPOINTS = Path(__file__).parent / "checkpoints"
COMMITTED: tuple[str, ...] = (
    "spinner_2p",
    "spinner_4p",
    "spinner_4p_residual",
    "mexican_train_4p",
    "mexican_train_2p",
    "spinner_2p_policy_iteration",
    "spinner_2p_clone",
    "spinner_4p_clone",
)
"""The committed policies by name (``checkpoints/<name>.safetensors``); each file's header
says its game (``spinner_env.agents.policy.read_header``)."""
DEFAULT_CHECKPOINT = CHECKPOINTS / "spinner_2p.safetensors"
"""The committed 2-player Spinner policy; the spec ``checkpoint`` names it."""

SearchPlayerMaker = Callable[[str, Mapping[str, str], int | None], Agent]
"""Builds the search player of a name from its ``key=value`` options and a seed."""
SEARCH_PLAYERS: dict[str, SearchPlayerMaker] = {}
"""The search players by name, each with its maker (filled by
:mod:`spinner_env.agents.search`, module docstring)."""


def committed_policy(spec: str) -> Path | None:
    """The file of the committed policy ``spec`` names (``checkpoint`` or a name in
    :data:`COMMITTED`); None for any other spec. The files ship with the package."""
    if spec == "checkpoint":
        return DEFAULT_CHECKPOINT
    if spec in COMMITTED:
        return CHECKPOINTS / f"{spec}.safetensors"
    return None


def make_agent(spec: str, seed: int | None = None, encoding: Encoding | None = None) -> Agent:
    """An agent from a baseline name, ``checkpoint`` (the committed one), a policy file, a
    search player's ``name:key=value,...`` or a jittered ``heuristic:jitter=J,seed=S``;
    given the game's ``encoding``, a policy made for another game is refused here."""
    if spec in BASELINES:
        return BASELINES[spec](seed=seed)
    name, _, options = spec.partition(":")
    if name in SEARCH_PLAYERS:
        return SEARCH_PLAYERS[name](name, parse_options(name, options), seed)
    if name in JITTERED:
        return make_jittered_player(name, parse_options(name, options), seed)
    if name == "openspiel":
        with needs_extras(f"the OpenSpiel bot {spec!r}"):
            # pyspiel is only needed for OpenSpiel's bots.
            from spinner_env.agents.openspiel import make_openspiel_agent

            return make_openspiel_agent(options, seed)
    path = committed_policy(spec) or Path(spec)
    if not path.is_file() and _names_a_file(path):
        raise ValueError(f"no such policy file {spec!r}")
    if not path.is_file():
        names = [*BASELINES, "checkpoint", *COMMITTED, *SEARCH_PLAYERS, "openspiel"]
        raise ValueError(
            f"unknown agent {spec!r}{did_you_mean(name, names)}: not one of "
            f"{', '.join(BASELINES)}, 'checkpoint', {', '.join(COMMITTED)}, "
            f"{', '.join(SEARCH_PLAYERS)} (with :key=value options), heuristic or expert with "
            ":jitter=J,seed=S, openspiel:BOT,key=value, "
            "or a checkpoint file"
        )
    with needs_extras(f"the trained agent {spec!r}"):
        # torch is only needed for trained agents.
        from spinner_env.agents.policy import PolicyAgent

        return PolicyAgent.load(path, encoding, seed=seed)


def _names_a_file(path: Path) -> bool:
    """Whether a spec that names no agent was meant as a file: a folder or a policy suffix."""
    return len(path.parts) > 1 or path.suffix in (".safetensors", ".zip", ".pt")


__all__ = [
    "BASELINES",
    "CHECKPOINTS",
    "COMMITTED",
    "DEFAULT_CHECKPOINT",
    "SEARCH_PLAYERS",
    "committed_policy",
    "make_agent",
]
