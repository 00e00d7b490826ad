"""The one interface every agent implements, whatever the game and the seat.

An agent is asked for an action id when its seat is to act:
``act(observation, action_mask, view)``. ``observation`` and ``action_mask`` are what the
PettingZoo environment shows that seat; ``view`` is optional read access to the engine
for agents that look past the observation vector: anything with a ``game`` (the rules
engine's state, a :class:`~spinner_env.match.MatchState`) and an ``encoding`` (the
game's :class:`~spinner_env.aec.Encoding`, to turn action ids into moves). A
``DominoAECEnv`` (``env.unwrapped``) is such a view, and so is :class:`GameView`.
Agents never change the view.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from spinner_env.aec import Encoding
from spinner_env.match import MatchState


class EngineView(Protocol):
    """Read access to the engine: the state of the match and the game's encoding."""

    @property
    def game(self) -> Any: ...

    @property
    def encoding(self) -> Encoding: ...


@dataclass(frozen=True)
class GameView:
    """An :class:`EngineView` over an engine state played without the AEC environment."""

    game: MatchState
    encoding: Encoding


class Agent(ABC):
    """A player of any seat, any player count.

    ``needs_view`` says whether :meth:`act` requires the engine view; an agent whose
    ``needs_observation`` is false ignores the observation, so a caller that would have to
    build it (the evaluator, which plays the engine directly) may pass None. ``seed`` fixes
    the agent's own randomness, so that a seeded run replays exactly.
    """

    name: str = "agent"
    needs_view: bool = False
    needs_observation: bool = True
    num_actions: int | None = None
    """The action count of the game the agent is made for, if it is made for one."""
    plays: tuple[type[MatchState], ...] = ()
    """The games (their state classes) the agent plays, if not every game of the suite."""

    def __init__(self, seed: int | Sequence[int] | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | Sequence[int] | None) -> None:
        """Restart the agent's randomness from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observation: np.ndarray | None,
        action_mask: np.ndarray,
        view: EngineView | None = None,
    ) -> int:
        """A legal action id (``action_mask[id] == 1``) for the seat to act; ValueError for a
        mask that is not one entry per action of the game (the agent's or the view's)."""
        mask = np.asarray(action_mask)
        for expected in (self.num_actions, None if view is None else view.encoding.num_actions):
            if mask.ndim != 1 or (expected is not None and mask.shape[0] != expected):
                wanted = "one entry per action" if expected is None else f"{expected} entries"
                raise ValueError(f"the action mask must be {wanted}, got shape {mask.shape}")
        legal = legal_actions(mask)
        if legal.size == 1:
            return int(legal[0])
        return self.choose(observation, legal, view)

    @abstractmethod
    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        """One of ``legal`` (two or more action ids, ascending): the agent's decision."""

    def _view(self, view: EngineView | None) -> EngineView:
        if view is None:
            raise ValueError(f"the {self.name} agent reads the engine: pass the env as view")
        return view

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def choose_move(agent: Agent, state: MatchState, encoding: Encoding) -> Any:
    """The move ``agent`` chooses for the seat to act in ``state``, asked as the
    environment asks it (observation, mask, engine view); ValueError if it picks an
    illegal action."""
    mask = np.zeros(encoding.num_actions, np.int8)
    mask[[encoding.action_of(m) for m in state.legal_moves()]] = 1
    obs = encoding.observation(state, state.current) if agent.needs_observation else None
    action = agent.act(obs, mask, GameView(state, encoding))
    if not 0 <= action < len(mask) or not mask[action]:
        raise ValueError(f"{agent!r} chose the illegal action {action}")
    return encoding.move_of(action)


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of a mask, ascending."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: the seat is not to act")
    return legal


def lateness(hands: Sequence[Sequence[Any]], seat: int, late_hand_size: int) -> float:
    """For ``seat`` of a table whose hands are ``hands``: 0 until the smallest hand of the
    other seats is down to ``late_hand_size`` tiles, then rising to 1 when it holds one (how
    near the hand or round may be to its end, S6.4 / M6.1). The hand-written players weigh
    the points they keep by it."""
    smallest_opposing = min(len(hand) for s, hand in enumerate(hands) if s != seat)
    return max(0, late_hand_size + 1 - smallest_opposing) / late_hand_size
