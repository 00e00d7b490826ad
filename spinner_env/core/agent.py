"""The one interface every agent implements, whatever the game and the seat.

An agent is asked for an action id when its seat is to act:
``act(observation, action_mask, view)``. ``observation`` and ``action_mask`` are what the
PettingZoo environment shows that seat; ``view`` is optional read access to the engine
for agents that look past the observation vector: anything with a ``game`` (the rules
engine's state, a :class:`~spinner_env.core.match.MatchState`) and an ``encoding`` (the
game's :class:`~spinner_env.core.encoding.Encoding`, to turn action ids into moves). A
``DominoAECEnv`` (``env.unwrapped``) is such a view, and so is :class:`GameView`.
Agents never change the view.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from spinner_env.core.encoding import Encoding
from spinner_env.core.game import CompiledPlayer
from spinner_env.core.match import MatchState


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


VIEW_KINDS = ("policy", "search", "scores")
"""What an :class:`AgentView` holds: a policy's probabilities (and value, if it has a value
head), a search's per-move values and visits, or a hand-written player's move scores."""


@dataclass(frozen=True)
class MoveView:
    """What an agent saw of one legal move; the numbers its kind has, the others None."""

    action: int
    probability: float | None = None
    value: float | None = None
    visits: int | None = None
    score: float | None = None


@dataclass(frozen=True)
class AgentView:
    """What an agent saw deciding one move, in its own terms (:data:`VIEW_KINDS`).

    ``moves`` covers legal moves only; ``value`` is the agent's estimate of the position
    for the seat to act, where it has one.
    """

    kind: str
    moves: tuple[MoveView, ...]
    value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        moves = [{k: v for k, v in vars(m).items() if v is not None} for m in self.moves]
        data: dict[str, Any] = {"kind": self.kind, "moves": moves}
        if self.value is not None:
            data["value"] = self.value
        return data

    @classmethod
    def from_dict(cls, data: Any, legal: Sequence[int]) -> AgentView:
        """A view written by :meth:`to_dict`, for a position whose legal action ids are
        ``legal``; ValueError naming what is wrong."""
        if not isinstance(data, dict) or data.get("kind") not in VIEW_KINDS:
            raise ValueError(f"a view is a dict whose kind is one of {', '.join(VIEW_KINDS)}")
        moves = data.get("moves")
        if not isinstance(moves, list):
            raise ValueError("a view's moves must be a list")
        parsed = []
        for i, move in enumerate(moves):
            if not isinstance(move, dict) or set(move) - {"action", *_NUMBERS}:
                raise ValueError(f"moves[{i}] must hold an action and {', '.join(_NUMBERS)}")
            action = move.get("action")
            if not isinstance(action, int) or isinstance(action, bool) or action not in legal:
                raise ValueError(f"moves[{i}]: action {action!r} is not a legal move there")
            for key in _NUMBERS:
                if key in move and not _finite(move[key]):
                    raise ValueError(f"moves[{i}].{key} must be a finite number")
            parsed.append(MoveView(**move))
        value = data.get("value")
        if value is not None and not _finite(value):
            raise ValueError("a view's value must be a finite number")
        return cls(data["kind"], tuple(parsed), value)


_NUMBERS = ("probability", "value", "visits", "score")


def scores_view(legal: np.ndarray, scores: Sequence[float]) -> AgentView:
    """A hand-written player's view: its score of each legal move (none where the score is
    not finite, a move it rules out)."""
    moves = (
        MoveView(int(a), score=float(x) if math.isfinite(x) else None)
        for a, x in zip(legal, scores, strict=True)
    )
    return AgentView("scores", tuple(moves))


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


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

    def compiled_twin(self, rules: Any) -> CompiledPlayer | None:
        """The compiled player that decides as this agent does under ``rules`` (the
        batched engine's opponents and the search players' rollouts play it), or None:
        the agent plays as itself. Tests hold every declared twin to its agent decision
        by decision; a subclass that decides otherwise declares None."""
        return None

    def batched_twin(self, rules: Any) -> Any | None:
        """A batched policy (``act_batch(observations, masks)``) that decides as this agent
        does under ``rules``, for an agent with no compiled twin; None: the batched engine
        asks the agent itself, one game at a time. Tests hold it to the agent decision by
        decision, as a compiled twin."""
        return None

    def act(
        self,
        observation: np.ndarray | None,
        action_mask: np.ndarray,
        view: EngineView | None = None,
    ) -> int:
        """A legal action id (``action_mask[id] == 1``) for the seat to act; ValueError for a
        mask that is not one entry per action of the game (the agent's or the view's)."""
        legal = self._legal(action_mask, view)
        if legal.size == 1:
            return int(legal[0])
        return self.choose(observation, legal, view)

    def act_explained(
        self,
        observation: np.ndarray | None,
        action_mask: np.ndarray,
        view: EngineView | None = None,
    ) -> tuple[int, AgentView | None]:
        """:meth:`act`'s action, with what the agent saw choosing it (None for a forced
        move or an agent that shows nothing). Recording a match through it plays the same
        moves as :meth:`act` would."""
        legal = self._legal(action_mask, view)
        if legal.size == 1:
            return int(legal[0]), None
        return self.choose_explained(observation, legal, view)

    def _legal(self, action_mask: np.ndarray, view: EngineView | None) -> np.ndarray:
        mask = np.asarray(action_mask)
        for expected in (self.num_actions, None if view is None else view.encoding.num_actions):
            if mask.ndim != 1 or (expected is not None and mask.shape[0] != expected):
                wanted = "one entry per action" if expected is None else f"{expected} entries"
                raise ValueError(f"the action mask must be {wanted}, got shape {mask.shape}")
        return legal_actions(mask)

    @abstractmethod
    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        """One of ``legal`` (two or more action ids, ascending): the agent's decision."""

    def choose_explained(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> tuple[int, AgentView | None]:
        """:meth:`choose`'s decision and what the agent saw making it; agents that can show
        their probabilities, values or scores override it (choosing as :meth:`choose` does,
        from the same randomness)."""
        return self.choose(observation, legal, view), None

    def _view(self, view: EngineView | None) -> EngineView:
        if view is None:
            raise ValueError(f"the {self.name} agent reads the engine: pass the env as view")
        return view

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class ScoringAgent(Agent):
    """A hand-written player: it scores every legal move and plays the best-scored one, and
    shows the scores (:func:`scores_view`) when asked what it saw."""

    @abstractmethod
    def legal_scores(self, legal: np.ndarray, view: EngineView | None) -> list[float]:
        """Its score of each of ``legal`` (action ids) for the seat to act."""

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        return int(legal[int(np.argmax(self.legal_scores(legal, view)))])

    def choose_explained(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> tuple[int, AgentView | None]:
        scores = self.legal_scores(legal, view)
        return int(legal[int(np.argmax(scores))]), scores_view(legal, scores)


def choose_move(agent: Agent, state: MatchState, encoding: Encoding) -> Any:
    """The move ``agent`` chooses for the seat to act in ``state``, asked as the
    environment asks it (observation, mask, engine view); ValueError if it picks an
    illegal action."""
    return choose_move_explained(agent, state, encoding, explain=False)[0]


def choose_move_explained(
    agent: Agent, state: MatchState, encoding: Encoding, explain: bool = True
) -> tuple[Any, AgentView | None]:
    """:func:`choose_move`, with what the agent saw (``explain``: asked through
    :meth:`Agent.act_explained`, else the view is None)."""
    mask = np.zeros(encoding.num_actions, np.int8)
    mask[[encoding.action_of(m) for m in state.legal_moves()]] = 1
    obs = encoding.observation(state, state.current) if agent.needs_observation else None
    view = GameView(state, encoding)
    if explain:
        action, seen = agent.act_explained(obs, mask, view)
    else:
        action, seen = agent.act(obs, mask, view), None
    if not 0 <= action < len(mask) or not mask[action]:
        raise ValueError(f"{agent!r} chose the illegal action {action}")
    return encoding.move_of(action), seen


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


__all__ = [
    "Agent",
    "AgentView",
    "EngineView",
    "GameView",
    "MoveView",
    "ScoringAgent",
    "choose_move",
    "choose_move_explained",
    "lateness",
    "legal_actions",
    "scores_view",
]
