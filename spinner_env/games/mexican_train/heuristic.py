"""A hand-written Mexican Train player built on what good players do (rules: M1-M7).

Every legal placement gets a score, and the best is played:

- dump weight: the tile's points (M1.3, ``0-0`` at 50 under ``double_blank_50``), weighted
  more as the opponents run out of tiles, so heavy tiles leave the hand first (M6.2);
- keep the own train for later: other players may only use it while it carries a
  marker (M3.3), so a placement elsewhere (the Mexican train, a marked train) keeps the
  own train's options for the turns when nothing else fits; but lifting one's own marker
  (M3.4) reopens every other train to a placement of ours;
- doubles: a double earns another placement (M5.2), worth most when we hold a tile that
  satisfies it ourselves; a double we cannot follow binds the next player (M5.3), a trap
  when that player was shown void in its value (``game.voids``);
- ends: after a placement prefer the open end we hold more tiles for on our own train,
  and one the next player is void in on any train they may use.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from spinner_env.core.agent import EngineView, ScoringAgent, lateness
from spinner_env.games import CompiledPlayer
from spinner_env.games.mexican_train.rules import (
    MEXICAN,
    NUM_VALUES,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
)
from spinner_env.games.mexican_train.weights import WEIGHT_NAMES


@dataclass(frozen=True)
class MexicanTrainWeights:
    """How much each consideration counts, in points-of-tile units."""

    points: float = 1.0
    late_points: float = 1.5
    """Extra weight on points as the smallest opposing hand shrinks to one tile."""
    late_hand_size: int = 5
    own_train: float = -3.0
    """Placing on the own train while it is unmarked (it is ours alone to extend)."""
    lift_marker: float = 6.0
    double_followed: float = 10.0
    """Playing a double we hold a tile to satisfy with the extra placement (M5.2)."""
    double_trap: float = 8.0
    """Playing a double the next player was shown void in, that we cannot follow."""
    own_end_fits: float = 1.5
    """Per tile kept that fits the own train's new open end (at most 3 counted)."""
    end_void_next: float = 3.0

    def as_array(self) -> np.ndarray:
        """The weights as the batched engine's compiled heuristic reads them (float64, in
        the order of ``spinner_env.games.mexican_train.weights.WEIGHT_NAMES``)."""
        return np.array([getattr(self, name) for name in WEIGHT_NAMES], np.float64)


class MexicanTrainPlayer(ScoringAgent):
    """A hand-written Mexican Train player: it scores every legal placement and plays the
    best (the first of equals)."""

    needs_view = True
    needs_observation = False
    plays = (MexicanTrainState,)

    def legal_scores(self, legal: np.ndarray, view: EngineView | None) -> list[float]:
        view = self._view(view)
        game = view.game
        if not isinstance(game, MexicanTrainState):
            raise ValueError(f"the Mexican Train {self.name} plays Mexican Train only")
        move_of = view.encoding.move_of
        return self.scores(game, [move_of(int(a)) for a in legal])

    @abstractmethod
    def scores(self, game: MexicanTrainState, moves: list[Place]) -> list[float]:
        """How good each of ``moves`` is for the seat to act (higher is better)."""


class MexicanTrainHeuristicAgent(MexicanTrainPlayer):
    """The Mexican Train heuristic (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, weights: MexicanTrainWeights | None = None) -> None:
        super().__init__(seed)
        self.weights = weights or MexicanTrainWeights()

    def compiled_twin(self, rules: object) -> CompiledPlayer | None:
        """The compiled Mexican Train heuristic with its weights, in Mexican Train."""
        if isinstance(rules, MexicanTrainRules):
            return CompiledPlayer("heuristic", self.weights.as_array())
        return None

    def scores(self, game: MexicanTrainState, moves: list[Place]) -> list[float]:
        fits = _fits_by_value(game)
        return [self.score(game, move, fits) for move in moves]

    def score(self, game: MexicanTrainState, move: Place, fits: list[int]) -> float:
        """How good placing ``move`` is for the seat to act (higher is better)."""
        w = self.weights
        me, n = game.current, game.num_players
        hand = game.hands[me]
        tile = move.tile
        if len(hand) == 1:
            return float("inf")  # going out wins the round (M6.1)
        late = lateness(game.hands, me, w.late_hand_size)
        score = game.tile_points(tile) * (w.points + w.late_points * late)
        train = game.absolute_train(move.train)
        opens = tile.other(game.trains[train].open_end)
        next_seat = (me + 1) % n
        if train == me:
            score += w.lift_marker if game.trains[me].marker else w.own_train
            kept_fitting = fits[opens] - tile.has(opens)
            score += w.own_end_fits * min(3, kept_fitting)
        if tile.is_double:
            if fits[opens] - 1 > 0:
                score += w.double_followed
            elif opens in game.voids[next_seat]:
                score += w.double_trap
        elif opens in game.voids[next_seat] and (
            train in (MEXICAN, next_seat) or game.trains[train].marker
        ):
            score += w.end_void_next
        return score


def _fits_by_value(game: MexicanTrainState) -> list[int]:
    """For each end value, how many tiles of the hand to act could go on it (M3.2)."""
    hand = game.hands[game.current]
    return [sum(1 for t in hand if t.has(v)) for v in range(NUM_VALUES)]
