"""The hand-written players of every game, behind the names ``heuristic`` and ``expert``.

Each game writes its own (its record's ``heuristic_path`` and ``expert_path``: Spinner's
:mod:`~spinner_env.games.spinner.heuristic`, Mexican Train's
:mod:`~spinner_env.games.mexican_train.heuristic`, ...), since what a good player weighs
is the game's. :class:`HeuristicAgent` and :class:`~spinner_env.agents.expert.ExpertAgent`
hold one player of their name per game and play each game through its own, so one agent
sits at any table of the suite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from spinner_env.core.agent import EngineView, ScoringAgent
from spinner_env.core.game import CompiledPlayer, GameSpec
from spinner_env.games import GAMES, game_of
from spinner_env.suggest import did_you_mean


class HandWrittenAgent(ScoringAgent):
    """One hand-written player per game, all of the role named ``name`` (``heuristic``
    or ``expert``), each game played by its own (the module docstring).

    ``weights`` gives a game's player its weights by the game's name
    (``{"spinner": SpinnerExpertWeights(block_next=30.0)}``); a game not named plays with
    its player's defaults.
    """

    needs_view = True
    needs_observation = False

    def __init__(self, seed: int | None = None, weights: Mapping[str, Any] | None = None) -> None:
        super().__init__(seed)
        if weights is not None and not isinstance(weights, Mapping):
            raise ValueError(
                f"{self.name} weights are given by game name ({{'spinner': ...}}), "
                f"got {type(weights).__name__}"
            )
        weights = dict(weights or {})
        for name in weights:
            if name not in GAMES:
                raise ValueError(
                    f"{self.name} weights for unknown game {name!r}{did_you_mean(name, GAMES)}:"
                    f" the games are {', '.join(GAMES)}"
                )
        self.players: dict[str, ScoringAgent] = {
            name: game.hand_written(self.name)(seed, weights.get(name))
            for name, game in GAMES.items()
        }

    @property
    def weights(self) -> dict[str, Any]:
        """Each game's player's weights, by game name."""
        return {name: player.weights for name, player in self.players.items()}

    def player(self, game: GameSpec) -> ScoringAgent:
        """The player it plays ``game`` with."""
        return self.players[game.name]

    def seed(self, seed: int | Sequence[int] | None) -> None:
        super().seed(seed)
        for player in self.players.values():
            player.seed(seed)

    def legal_scores(self, legal: np.ndarray, view: EngineView | None) -> list[float]:
        view = self._view(view)
        return self.player(game_of(view.game)).legal_scores(legal, view)

    def compiled_twin(self, rules: Any) -> CompiledPlayer | None:
        """Its player's of the game of ``rules``."""
        return self.player(game_of(rules)).compiled_twin(rules)

    def batched_twin(self, rules: Any) -> Any | None:
        """Its player's of the game of ``rules``."""
        return self.player(game_of(rules)).batched_twin(rules)


class HeuristicAgent(HandWrittenAgent):
    """Each game's hand-written heuristic: it scores every legal move by what good players
    weigh and plays the best."""

    name = "heuristic"


__all__ = ["HandWrittenAgent", "HeuristicAgent"]
