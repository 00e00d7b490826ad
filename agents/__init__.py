"""Agents for the suite's games, all behind one interface (:class:`spinner_env.agents.base.Agent`).

``make_agent(spec)`` builds one from a name (``random``, ``greedy``, ``heuristic``,
``expert``), a
committed policy by name (:data:`COMMITTED`: ``spinner_2p``, ...; ``checkpoint`` is
``spinner_2p``, the 2-player Spinner policy, ``checkpoints/spinner_2p.safetensors``),
the path of a policy file from ``spinner-train`` (the safe format of
:mod:`spinner_env.agents.policy`;
Stable-Baselines3 pickles load only through ``PolicyAgent.load_trusted_sb3``), or a search
player with options, ``name:key=value,key=value`` (``ismcts:time=0.1``,
``pimc:determinizations=20,rollout=random``; see :mod:`spinner_env.agents.search`), a
hand-written player with jittered weights, ``heuristic:jitter=0.2,seed=3`` or ``expert:...``
(:mod:`spinner_env.agents.jittered`), or an OpenSpiel bot, ``openspiel:ismcts,simulations=200``
(:mod:`spinner_env.agents.openspiel`).
"""

from __future__ import annotations

from pathlib import Path

from spinner_env.agents.base import Agent, GameView, legal_actions
from spinner_env.agents.baselines import GreedyAgent, RandomAgent
from spinner_env.agents.expert import ExpertAgent, ExpertWeights
from spinner_env.agents.heuristic import HeuristicAgent, HeuristicWeights
from spinner_env.agents.jittered import JITTERED, make_jittered_player
from spinner_env.agents.search import SEARCH_AGENTS, ISMCTSAgent, PIMCAgent, make_search_agent

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
COMMITTED: dict[str, str] = {
    "spinner_2p": "spinner",
    "spinner_4p": "spinner",
    "spinner_4p_residual": "spinner",
    "mexican_train_4p": "mexican_train",
    "mexican_train_2p": "mexican_train",
    "spinner_2p_policy_iteration": "spinner",
    "spinner_2p_clone": "spinner",
    "spinner_4p_clone": "spinner",
}
"""The committed policies (``checkpoints/<name>.safetensors``) by name, and each one's game."""
DEFAULT_CHECKPOINT = CHECKPOINTS / "spinner_2p.safetensors"
"""The committed 2-player Spinner policy; the spec ``checkpoint`` names it."""


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
    if name in SEARCH_AGENTS:
        return make_search_agent(name, parse_options(name, options), seed)
    if name in JITTERED:
        return make_jittered_player(name, parse_options(name, options), seed)
    if name == "openspiel":  # pyspiel is only needed for OpenSpiel's bots
        with needs_extras(f"the OpenSpiel bot {spec!r}"):
            from spinner_env.agents.openspiel import make_openspiel_agent

            return make_openspiel_agent(options, seed)
    path = committed_policy(spec) or Path(spec)
    if not path.is_file() and _names_a_file(path):
        raise ValueError(f"no such policy file {spec!r}")
    if not path.is_file():
        names = [*BASELINES, "checkpoint", *COMMITTED, *SEARCH_AGENTS, "openspiel"]
        raise ValueError(
            f"unknown agent {spec!r}{did_you_mean(name, names)}: not one of "
            f"{', '.join(BASELINES)}, 'checkpoint', {', '.join(COMMITTED)}, "
            f"{', '.join(SEARCH_AGENTS)} (with :key=value options), heuristic or expert with "
            ":jitter=J,seed=S, openspiel:BOT,key=value, "
            "or a checkpoint file"
        )
    with needs_extras(f"the trained agent {spec!r}"):  # torch is only needed for trained agents
        from spinner_env.agents.policy import PolicyAgent

        return PolicyAgent.load(path, encoding, seed=seed)


def _names_a_file(path: Path) -> bool:
    """Whether a spec that names no agent was meant as a file: a folder or a policy suffix."""
    return len(path.parts) > 1 or path.suffix in (".safetensors", ".zip", ".pt")


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


__all__ = [
    "BASELINES",
    "CHECKPOINTS",
    "COMMITTED",
    "DEFAULT_CHECKPOINT",
    "Agent",
    "ExpertAgent",
    "ExpertWeights",
    "GameView",
    "GreedyAgent",
    "HeuristicAgent",
    "HeuristicWeights",
    "ISMCTSAgent",
    "PIMCAgent",
    "RandomAgent",
    "committed_policy",
    "legal_actions",
    "make_agent",
    "parse_options",
]
