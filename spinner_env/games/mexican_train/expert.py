"""The expert Mexican Train player: plan the own train, play the rest elsewhere (M1-M7).

Where the heuristic (:mod:`spinner_env.games.mexican_train.heuristic`) scores each
placement by itself, the expert values the position each placement leaves, as strong
players think of their hand:

- the plan: the longest chain (then the heaviest) the hand can build from the own train's
  open end (M3.2). Only we may extend our train while it carries no marker (M3.3), so
  those tiles will find a place one turn each; a tile outside the chain (an orphan)
  needs an end on the Mexican train or a marked train, which other players keep changing,
  so each orphan costs, and more when it fits no end open to us now. Playing an orphan
  elsewhere keeps the plan whole; the plan is made again from every position, so a
  train another player changed is replanned;
- tempo: a double earns another placement (M5.2), so a double we can follow puts two
  tiles down in one turn; one we cannot follow makes us draw. Each candidate double is
  valued by its best follow-up (the same valuation one placement on), and going out
  (M6.1) outranks everything;
- points: what stays in hand counts at the end (M6.2), weighted more as the smallest
  opposing hand shrinks, so heavy tiles leave first when an opponent is about to go out;
- markers: while our train carries a marker any player may place on it (M3.3) and
  break the plan, so leaving it marked costs per planned tile; a placement on our own
  train lifts it (M3.4). A double left unsatisfied on our train exposes it the same way
  (M5.3: the next players must place on it). Another player's train is marked because
  its owner could not place (M4.3), so a placement there, which may hand the owner an end
  it holds, costs a little against one on the Mexican train;
- the next player: the chance that the next seat cannot place on any train open to it
  (the oldest unsatisfied double only, M5.3), its hand a uniform draw of its size from the
  tiles it may hold (neither ours nor on a train, none of the values it was shown void
  in, M7); a double it is unlikely to satisfy binds it to draw and pass.

It reads only what a player may know (M7): its own hand, the trains and markers, the
unsatisfied doubles, the voids shown, hand sizes, all of which the seat's observation
shows; it is deterministic. Its compiled twin,
:mod:`spinner_env.games.mexican_train.batched_expert`, values the same placements from the
observation alone, for many positions at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spinner_env.core.agent import lateness
from spinner_env.games.mexican_train.heuristic import MexicanTrainPlayer
from spinner_env.games.mexican_train.rules import (
    ALL_TILES,
    MEXICAN,
    NUM_VALUES,
    MexicanTile,
    MexicanTrainRules,
    MexicanTrainState,
    Place,
)
from spinner_env.games.mexican_train.weights import CHAIN_SEARCH_NODES, EXPERT_WEIGHT_NAMES


@dataclass(frozen=True)
class MexicanTrainExpertWeights:
    """How much each consideration counts, in points-of-tile units."""

    orphan: float = 8.0
    """Per tile outside the planned chain of the own train."""
    stranded: float = 4.0
    """Per orphan that fits no end of a train open to us after the placement."""
    points: float = 0.3
    late_points: float = 1.5
    """Extra weight on the points kept as the smallest opposing hand shrinks to one tile."""
    late_hand_size: int = 5
    exposed: float = 8.0
    """Per planned tile while other players may place on our train: it carries a marker
    (M3.3, M3.4) or ends in an unsatisfied double (M5.3)."""
    marked_train: float = 1.0
    """Placing on another player's (marked) train: its owner passed on that end (M4.3), so a
    new end there may be one it holds."""
    block_next: float = 10.0
    """Times the chance that the next seat cannot place after our turn."""

    def as_array(self) -> np.ndarray:
        """The weights as the compiled expert reads them (float64, in the order of
        ``spinner_env.games.mexican_train.weights.EXPERT_WEIGHT_NAMES``)."""
        return np.array([getattr(self, name) for name in EXPERT_WEIGHT_NAMES], np.float64)


class MexicanTrainExpertAgent(MexicanTrainPlayer):
    """The expert Mexican Train player (see the module docstring)."""

    name = "expert"

    def __init__(
        self, seed: int | None = None, weights: MexicanTrainExpertWeights | None = None
    ) -> None:
        super().__init__(seed)
        self.weights = weights or MexicanTrainExpertWeights()

    def batched_twin(self, rules: object) -> Any | None:
        """The compiled expert with these weights (it reads the observation), in Mexican
        Train."""
        if not isinstance(rules, MexicanTrainRules):
            return None
        # numba loads only when a batched engine asks for the twin.
        from spinner_env.games.mexican_train.batched_expert import MexicanTrainExpertPolicy

        return MexicanTrainExpertPolicy(self.weights.as_array(), rules.double_blank_50, self.name)

    def scores(self, game: MexicanTrainState, moves: list[Place]) -> list[float]:
        outlook = NextSeat(game)
        return [self.value(game, move, outlook) for move in moves]

    def value(self, game: MexicanTrainState, move: Place, outlook: NextSeat) -> float:
        """How good the position is after placing ``move`` (and, after a double, the best
        follow-up, M5.2) for the seat to act; higher is better."""
        me = game.current
        after = game.copy()
        after.play_legal(move)
        if not after.hands[me]:
            return float("inf")  # going out ends the round (M6.1, M5.5)
        score = 0.0
        if move.train != 0 and move.train != MEXICAN:
            score -= self.weights.marked_train
        if move.tile.is_double:  # the extra placement (M5.2)
            follow_ups = after.placements()
            if follow_ups:
                return score + max(self.value(after, m, outlook) for m in follow_ups)
            # Else a draw follows (M4.2). Other tiles legal before the double mostly still
            # are (it keeps its train's end), so this is rare: a draw penalty changed no
            # measured result and none is counted.
        return score + self.position(after, me, outlook)

    def position(self, game: MexicanTrainState, me: int, outlook: NextSeat) -> float:
        """The worth to ``me`` of ``game`` once ``me``'s placements are made."""
        w = self.weights
        # In tile order, as the observation shows it: the order tiles sit in a hand
        # must not change the plan (equal chains, the search's node budget).
        hand = sorted(game.hands[me], key=lambda tile: tile.index)
        own = game.trains[me]
        plan = longest_chain(hand, own.open_end, game.tile_points)
        planned = set(plan)
        orphans = [t for t in hand if t not in planned]
        ends = {game.trains[t].open_end for t in game.open_to(me) if t != me}
        stranded = sum(1 for t in orphans if not (t.low in ends or t.high in ends))
        points = sum(game.tile_points(t) for t in hand)
        score = -w.orphan * len(orphans) - w.stranded * stranded
        score -= points * (w.points + w.late_points * lateness(game.hands, me, w.late_hand_size))
        if own.marker or me in game.unsatisfied:
            score -= w.exposed * len(plan)
        # Counted even where the round is blocked (M6.1): only the hidden hands tell.
        score += w.block_next * outlook.stuck_chance(ends_for_next(game, me))
        return score


def ends_for_next(game: MexicanTrainState, me: int) -> set[int]:
    """The open ends the seat after ``me`` may place on once ``me``'s turn ends: the
    oldest unsatisfied double's alone (M5.3, M5.4), else its own train's, the Mexican
    train's and the marked trains' (M3.3)."""
    if game.unsatisfied:
        return {game.trains[game.unsatisfied[0]].open_end}
    nxt = (me + 1) % game.num_players
    return {game.trains[t].open_end for t in game.open_to(nxt)}


def longest_chain(
    hand: Sequence[MexicanTile], end: int, points: Callable[[MexicanTile], int] = lambda t: t.pips
) -> tuple[MexicanTile, ...]:
    """The longest chain of tiles of ``hand`` that can be laid one after another from an
    open end of ``end`` (M3.2), the heaviest of equal length; the search stops after
    :data:`CHAIN_SEARCH_NODES` partial chains with the best found so far."""
    by_value: list[list[MexicanTile]] = [[] for _ in range(NUM_VALUES)]
    for tile in hand:
        by_value[tile.low].append(tile)
        if not tile.is_double:
            by_value[tile.high].append(tile)
    best: tuple[MexicanTile, ...] = ()
    best_key = (0, 0)
    path: list[MexicanTile] = []
    visited = 0

    def extend(open_end: int, weight: int, used: int) -> None:
        # ``used``: the tiles on the path, one bit per tile index (cheaper than a set).
        nonlocal best, best_key, visited
        visited += 1
        if (len(path), weight) > best_key:
            best, best_key = tuple(path), (len(path), weight)
        for tile in by_value[open_end]:
            bit = 1 << tile.index
            if used & bit or visited >= CHAIN_SEARCH_NODES:
                continue
            path.append(tile)
            extend(tile.other(open_end), weight + points(tile), used | bit)
            path.pop()

    extend(end, 0, 0)
    return best


class NextSeat:
    """What the seat to act can infer about the next seat's hand (M7): it holds a uniform
    draw of its size from the tiles neither in our hand nor on a train, without a value it
    was shown void in."""

    def __init__(self, game: MexicanTrainState) -> None:
        me = game.current
        nxt = (me + 1) % game.num_players
        seen = {*game.hands[me], game.engine, *(t for train in game.trains for t in train.tiles)}
        voids = game.voids[nxt]
        possible = [t for t in ALL_TILES if t not in seen and not any(t.has(v) for v in voids)]
        self.possible = len(possible)
        self.hand_size = len(game.hands[nxt])
        self.fitting = [0] * NUM_VALUES
        for i, tile in enumerate(possible):
            self.fitting[tile.low] |= 1 << i
            self.fitting[tile.high] |= 1 << i

    def stuck_chance(self, ends: set[int]) -> float:
        """The chance that the next seat holds no tile for any of ``ends``."""
        fitting = 0
        for end in ends:
            fitting |= self.fitting[end]
        free = self.possible - fitting.bit_count()
        return math.comb(free, self.hand_size) / math.comb(self.possible, self.hand_size)
