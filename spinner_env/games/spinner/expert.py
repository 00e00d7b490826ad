"""A stronger hand-written Spinner player: the heuristic's scoring plus what the hands it
lost show (rules: S1-S8; measurements in docs/search.md, "Where the points go").

Against the search players the heuristic loses its points by tempo, not by what it keeps:
the opponent goes out first in most hands, and the heuristic draws more. It spends its
wild spinner tiles early (where a plain tile also fits, far more often than the learned
``spinner_2p_clone``) and so lacks them when nothing else fits. The expert scores every
legal placement as :class:`~spinner_env.games.spinner.heuristic.SpinnerHeuristicAgent`
does (four of its terms off, see :class:`SpinnerExpertWeights`) and adds three
considerations, all read from public information and its own hand (S8):

- block the next seat: the chance that the next seat holds no tile for any end this
  placement leaves playable (S5.1, S6.2), counting only the tiles it may hold: the ones
  neither in our hand nor on the layout, without a value it was shown void in (S8), drawn
  as a uniform subset of its hand size;
- keep the wild tiles: a tile with a spinner half always fits (S1.2, S4.2), so holding one
  saves a draw later; placing one while a plain tile would also do costs a penalty that
  fades as the opponents run out of tiles (then its 10 or more points weigh, S7.1);
- stay playable: a penalty when none of the tiles kept fits an end this placement leaves
  playable, so that the next turn would be a draw unless the others open a value we hold.

It is what ``expert`` plays in Spinner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinner_env.games.spinner.heuristic import HandCounts, SpinnerHeuristicAgent, SpinnerWeights
from spinner_env.games.spinner.rules import ALL_TILES, Place, S, SpinnerState, matches


@dataclass(frozen=True)
class SpinnerExpertWeights(SpinnerWeights):
    """The heuristic's weights and the expert's own, in points-of-tile units.

    The chance to block the next seat takes the place of four of the heuristic's terms,
    which are off: the double bonuses (a double blocks when the next seat is unlikely to
    hold its value, S5.1) and the bonus and penalty for void and wild ends (a void end
    blocks for sure, a wild one never, S4.2).
    """

    double: float = 0.0
    trap_next: float = 0.0
    open_void_next: float = 0.0
    open_wild: float = 0.0
    block_next: float = 20.0
    """Times the chance that the next seat cannot place after this placement."""
    keep_wild: float = 50.0
    """Placing a spinner tile while a plain tile could be placed (fades as hands shrink)."""
    own_stuck: float = 12.0
    """No tile kept fits an end this placement leaves playable."""


class SpinnerExpertAgent(SpinnerHeuristicAgent):
    """The heuristic with the expert's considerations (see the module docstring)."""

    name = "expert"
    weights: SpinnerExpertWeights

    def __init__(
        self, seed: int | None = None, weights: SpinnerExpertWeights | None = None
    ) -> None:
        super().__init__(seed, weights or SpinnerExpertWeights())

    def compiled_weights(self) -> np.ndarray:
        """All its Spinner weights, the expert's own included, as the batched engine's
        compiled player reads them (``SpinnerWeights.as_array()``)."""
        return self.weights.as_array()

    def count_hand(self, game: SpinnerState) -> Outlook:
        return Outlook(game)

    def score(self, game: SpinnerState, move: Place, hand: HandCounts) -> float:
        score = super().score(game, move, hand)
        assert isinstance(hand, Outlook)  # count_hand made it
        if hand.size == 1:
            return score
        w = self.weights
        after = game.copy()
        after.play_legal(move)
        ends = after.playable_ends()
        score += w.block_next * hand.next_stuck_chance(ends)
        if move.tile.has(S) and hand.plain_playable:
            score -= w.keep_wild * (1 - self.lateness(game))
        if not hand.kept_fitting(move, ends):
            score -= w.own_stuck
        return score


class Outlook(HandCounts):
    """The hand's counts and what the seat to act can infer about the next seat (S8)."""

    def __init__(self, game: SpinnerState) -> None:
        me = game.current
        hand = game.hands[me]
        super().__init__(hand)
        self.plain_playable = any(not p.tile.has(S) for p in game.placements())
        nxt = (me + 1) % game.num_players
        self.next_hand_size = len(game.hands[nxt])
        seen = {*hand, *(placed.tile for placed in game.layout)}
        voids = game.voids[nxt]
        # The tiles the next seat may hold: unseen, with no half it was shown void in.
        possible = [t for t in ALL_TILES if t not in seen and not any(t.has(v) for v in voids)]
        self.possible = len(possible)
        self.fitting_end = [
            sum(1 << i for i, t in enumerate(possible) if matches(t.low, e) or matches(t.high, e))
            for e in range(S + 1)
        ]

    def next_stuck_chance(self, ends: list[int]) -> float:
        """The chance that the next seat's hand, a uniform draw of its size from the tiles
        it may hold, has no tile for any of ``ends`` (S4.2)."""
        fitting = 0
        for end in ends:
            fitting |= self.fitting_end[end]
        free = self.possible - fitting.bit_count()
        if free < self.next_hand_size:
            return 0.0
        chance = 1.0
        for i in range(self.next_hand_size):
            chance *= (free - i) / (self.possible - i)
        return chance

    def kept_fitting(self, move: Place, ends: list[int]) -> bool:
        """Whether a tile other than the one placed fits one of ``ends`` (any tile fits a
        wild end, S4.2)."""
        return any(
            self.size > 1 if end == S else self.fitting_without(move.tile, end) > 0 for end in ends
        )
