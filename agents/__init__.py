"""Agents for the suite's games, all behind one interface (:class:`agents.base.Agent`).

``make_agent(spec)`` builds one from a name (``random``, ``greedy``, ``heuristic``),
``checkpoint`` (the committed 2-player Spinner policy, ``checkpoints/spinner_2p.pt``) or a
checkpoint path (``.zip`` model or ``.pt`` policy from ``train.ppo``).
"""

from __future__ import annotations

from pathlib import Path

from agents.base import Agent, GameView, legal_actions
from agents.baselines import GreedyAgent, RandomAgent
from agents.heuristic import HeuristicAgent, HeuristicWeights

BASELINES: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
}

DEFAULT_CHECKPOINT = Path(__file__).parent / "checkpoints" / "spinner_2p.pt"
"""The committed 2-player Spinner policy; the spec ``checkpoint`` names it."""


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """An agent from a baseline name, ``checkpoint`` (the committed one) or a checkpoint path."""
    if spec in BASELINES:
        return BASELINES[spec](seed=seed)
    path = DEFAULT_CHECKPOINT if spec == "checkpoint" else Path(spec)
    if not path.is_file():
        raise ValueError(
            f"unknown agent {spec!r}: not one of {', '.join(BASELINES)}, 'checkpoint', "
            "or a checkpoint file"
        )
    from agents.policy import PolicyAgent  # torch is only needed for trained agents

    return PolicyAgent.load(path, seed=seed)


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
