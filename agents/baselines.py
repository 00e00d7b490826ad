"""Game-agnostic baselines: they read only the action mask and, for greedy, tile points."""

from __future__ import annotations

from typing import Any

import numpy as np

from spinner_env.core.agent import Agent, EngineView
from spinner_env.games import CompiledPlayer


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    needs_observation = False

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        return int(self.rng.choice(legal))

    def compiled_twin(self, rules: Any) -> CompiledPlayer:
        """Uniform in compiled code too (from the compiled stream: the same distribution,
        not the same draws)."""
        return CompiledPlayer("random")


class GreedyAgent(Agent):
    """Places the heaviest legal tile (by the game's ``tile_points``: in Spinner S counts 10),
    the lowest action id among equals; draws and passes only when forced."""

    name = "greedy"
    needs_view = True
    needs_observation = False

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        view = self._view(view)
        game, move_of = view.game, view.encoding.move_of
        weights = [_points(game, move_of(int(a))) for a in legal]
        return int(legal[int(np.argmax(weights))])

    def compiled_twin(self, rules: Any) -> CompiledPlayer:
        """Every game's compiled greedy: the heaviest tile, the lowest id among equals."""
        return CompiledPlayer("greedy")


def _points(game: Any, move: Any) -> int:
    tile = getattr(move, "tile", None)
    return -1 if tile is None else game.tile_points(tile)
