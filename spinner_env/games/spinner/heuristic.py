"""A hand-written Spinner player built on what good players do (rules: S1-S8).

Every legal placement gets a score, and the best is played:

- dump weight: the tile's points (S counting 10), weighted more as the opponents run out
  of tiles, so heavy tiles and spinners leave the hand before someone goes out (S7.1);
- doubles early: a double can only go on an end of its own value, so it is a liability
  to hold (S4.4); a bonus for playing it, and a larger one when the next player was shown
  void in its value, because the next three placements must go on its arms (S5.1), so
  the next player is forced to draw or pass; and a bonus if we hold more of that value to
  fill the arms ourselves;
- variety: count the different numbers left in hand, so that later ends stay playable;
- ends: prefer opening a value we hold more of, or one the next player is void in
  (``game.voids``: values a seat drew or passed on, S8); avoid opening a wild S end,
  which everyone can play on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinner_env.core.agent import EngineView, ScoringAgent, lateness
from spinner_env.core.game import CompiledPlayer
from spinner_env.games.spinner.rules import (
    DOUBLE_SPINNER,
    Place,
    S,
    SpinnerRules,
    SpinnerState,
    SpinnerTile,
    tile_points,
)
from spinner_env.games.spinner.weights import COMPILED_WEIGHT_NAMES, EXPERT_WEIGHT_NAMES


@dataclass(frozen=True)
class SpinnerWeights:
    """How much each consideration counts, in points-of-tile units."""

    points: float = 1.0
    late_points: float = 1.5
    """Extra weight on points as the smallest opposing hand shrinks to one tile."""
    late_hand_size: int = 5
    """The smallest opposing hand size at which the extra weight starts."""
    double: float = 6.0
    trap_next: float = 14.0
    """Playing a double whose value the next player was shown void in."""
    fill_own_double: float = 2.0
    """Per tile kept that can go on the arms of the double just played."""
    variety: float = 2.0
    follow_open: float = 1.5
    """Per tile kept that can go on the end just opened (at most 3 counted)."""
    open_void_next: float = 4.0
    open_wild: float = 5.0

    def as_array(self) -> np.ndarray:
        """The weights as the batched engine's compiled heuristic reads them (float64, in
        the order of ``spinner_env.games.spinner.weights.COMPILED_WEIGHT_NAMES``). The
        compiled code also plays the expert, whose weights extend these
        (``spinner_env.games.spinner.expert.SpinnerExpertWeights``), and learned phase
        weights: a weight not here is written as 0, which turns its consideration off."""
        return np.array([getattr(self, name, 0.0) for name in COMPILED_WEIGHT_NAMES], np.float64)


class SpinnerHeuristicAgent(ScoringAgent):
    """The Spinner heuristic (see the module docstring): what ``heuristic`` plays in
    Spinner."""

    name = "heuristic"
    needs_view = True
    needs_observation = False
    plays = (SpinnerState,)

    def __init__(self, seed: int | None = None, weights: SpinnerWeights | None = None) -> None:
        super().__init__(seed)
        self.weights = weights or SpinnerWeights()

    def legal_scores(self, legal: np.ndarray, view: EngineView | None) -> list[float]:
        view = self._view(view)
        game = view.game
        if not isinstance(game, SpinnerState):
            raise ValueError(f"the Spinner {self.name} plays Spinner only")
        hand = self.count_hand(game)
        move_of = view.encoding.move_of
        return [self.score(game, move_of(int(a)), hand) for a in legal]

    def compiled_weights(self) -> np.ndarray:
        """Its weights as the batched engine's compiled player reads them
        (``SpinnerWeights.as_array()``), the expert's own considerations off: the
        heuristic reads none of them, whatever the type of its weights."""
        weights = self.weights.as_array()
        weights[[COMPILED_WEIGHT_NAMES.index(name) for name in EXPERT_WEIGHT_NAMES]] = 0.0
        return weights

    def compiled_twin(self, rules: object) -> CompiledPlayer | None:
        """The compiled heuristic with :meth:`compiled_weights`, in Spinner."""
        if isinstance(rules, SpinnerRules):
            return CompiledPlayer("heuristic", self.compiled_weights())
        return None

    def count_hand(self, game: SpinnerState) -> HandCounts:
        """What :meth:`score` reads of the seat to act's hand, counted once per decision."""
        return HandCounts(game.hands[game.current])

    def lateness(self, game: SpinnerState) -> float:
        """0 until the smallest opposing hand is down to ``late_hand_size`` tiles, then
        rising to 1 when it holds one (:func:`~spinner_env.core.agent.lateness`)."""
        return lateness(game.hands, game.current, self.weights.late_hand_size)

    def score(self, game: SpinnerState, move: Place, hand: HandCounts) -> float:
        """How good placing ``move`` is for the seat to act (higher is better)."""
        w = self.weights
        me = game.current
        n = game.num_players
        tile = move.tile
        if hand.size == 1:
            return float("inf")  # going out wins the hand (S6.4)
        score = tile_points(tile) * (w.points + w.late_points * self.lateness(game))
        score += w.variety * hand.variety_without(tile)
        next_voids = game.voids[(me + 1) % n]
        if tile.is_double:
            score += w.double
            if tile is not DOUBLE_SPINNER:
                if move.opens in next_voids:
                    score += w.trap_next
                score += w.fill_own_double * hand.fitting_without(tile, move.opens)
            return score
        if move.opens == S:
            score -= w.open_wild
        else:
            score += w.follow_open * min(3, hand.fitting_without(tile, move.opens))
            if move.opens in next_voids:
                score += w.open_void_next
        return score


class HandCounts:
    """A hand counted by number once per decision, so each candidate is scored in O(1)."""

    def __init__(self, hand: list[SpinnerTile]) -> None:
        self.size = len(hand)
        self.holders = [sum(1 for t in hand if t.has(v)) for v in range(S)]  # numbers 0..9
        self.fits = [sum(1 for t in hand if t.has(v) or t.has(S)) for v in range(S)]

    def variety_without(self, tile: SpinnerTile) -> int:
        """How many numbers 0..9 the hand still shows once ``tile`` is played."""
        return sum(1 for v, c in enumerate(self.holders) if c - tile.has(v) > 0)

    def fitting_without(self, tile: SpinnerTile, value: int) -> int:
        """How many tiles other than ``tile`` can go on an end of ``value`` 0..9 (S4.2)."""
        return self.fits[value] - (tile.has(value) or tile.has(S))
