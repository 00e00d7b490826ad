"""Agents for the suite's games, all behind one interface (:class:`spinner_env.core.agent.Agent`).

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
(:mod:`spinner_env.agents.openspiel`). The spec reader is :mod:`spinner_env.agents.specs`;
loading this package loads the search players, which add ``pimc`` and ``ismcts`` to it.
"""

from __future__ import annotations

from spinner_env.agents.baselines import GreedyAgent, RandomAgent
from spinner_env.agents.expert import ExpertAgent
from spinner_env.agents.heuristic import HandWrittenAgent, HeuristicAgent
from spinner_env.agents.options import parse_options
from spinner_env.agents.search import ISMCTSAgent, PIMCAgent
from spinner_env.agents.specs import (
    BASELINES,
    CHECKPOINTS,
    COMMITTED,
    DEFAULT_CHECKPOINT,
    committed_policy,
    make_agent,
)

from spinner_env.core.agent import Agent, GameView, legal_actions

__all__ = [
    "BASELINES",
    "CHECKPOINTS",
    "COMMITTED",
    "DEFAULT_CHECKPOINT",
    "Agent",
    "ExpertAgent",
    "GameView",
    "GreedyAgent",
    "HandWrittenAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "PIMCAgent",
    "RandomAgent",
    "committed_policy",
    "legal_actions",
    "make_agent",
    "parse_options",
]
