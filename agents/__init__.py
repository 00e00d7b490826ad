"""Agents for the suite's games, all behind one interface (:class:`agents.base.Agent`).

``make_agent(spec)`` builds one from a name (``random``, ``greedy``, ``heuristic``),
``checkpoint`` (the committed 2-player Spinner policy, ``checkpoints/spinner_2p.safetensors``)
or the path of a policy file from ``train.ppo`` (the safe format of :mod:`agents.policy`;
Stable-Baselines3 pickles load only through ``PolicyAgent.load_trusted_sb3``).
"""

from __future__ import annotations

from pathlib import Path

from agents.base import Agent, GameView, legal_actions
from agents.baselines import GreedyAgent, RandomAgent
from agents.heuristic import HeuristicAgent, HeuristicWeights
from spinner_env.aec import Encoding

BASELINES: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
}

DEFAULT_CHECKPOINT = Path(__file__).parent / "checkpoints" / "spinner_2p.safetensors"
"""The committed 2-player Spinner policy; the spec ``checkpoint`` names it."""


def make_agent(spec: str, seed: int | None = None, encoding: Encoding | None = None) -> Agent:
    """An agent from a baseline name, ``checkpoint`` (the committed one) or a policy file;
    given the game's ``encoding``, a policy made for another game is refused here."""
    if spec in BASELINES:
        return BASELINES[spec](seed=seed)
    path = DEFAULT_CHECKPOINT if spec == "checkpoint" else Path(spec)
    if not path.is_file():
        raise ValueError(
            f"unknown agent {spec!r}: not one of {', '.join(BASELINES)}, 'checkpoint', "
            "or a checkpoint file"
        )
    from agents.policy import PolicyAgent  # torch is only needed for trained agents

    return PolicyAgent.load(path, encoding, seed=seed)


__all__ = [
    "BASELINES",
    "DEFAULT_CHECKPOINT",
    "Agent",
    "GameView",
    "GreedyAgent",
    "HeuristicAgent",
    "HeuristicWeights",
    "RandomAgent",
    "legal_actions",
    "make_agent",
]
