"""Belief sampling: deal the tiles a seat cannot see, uniformly over every deal the public
record allows (S8, M7). Plain Python, no RL imports; both games, 2 to 8 players.

The observer sees its own hand and the table, so the tiles it cannot see are fixed: every
other tile of the round. What it does not know is where they lie. A *consistent deal*
puts them in the other seats' hands and the boneyard so that

- every hand and the boneyard has its public size, and
- no seat holds a tile with a half among the values it has shown void in
  (``MatchState.voids``: the open values it drew or passed on, S8 / M7), except the tile
  a seat has just drawn in the turn it is still playing (it has yet to place it or pass).

:class:`Belief` draws deals uniformly among all consistent ones (and the boneyard in a
uniform order); the observer's own tiles never move. It reads the public record only:
hand sizes, voids, and which tiles the observer cannot see, which it takes as the union
of the other hands and the boneyard (the same set as "neither in my hand nor on the
table", whatever the game's layout); where each of them lies is never read. Voids are
the engines' summary of the record, which is sound but not complete: inferences that
concern single tiles rather than values (S3.1: a set ``S-S`` shows that nobody held the
start double at the deal) are not part of it.

**Method** (:class:`DealSampler`). A void forbids whole classes of tiles, so naive
rejection (shuffle, keep consistent deals) is exact but can take millions of tries, and
dealing seat by seat from the allowed tiles is fast but biased. Instead the deals are
counted exactly and sampled sequentially:

1. Locations (seats, boneyard) that forbid none of the unseen tiles form one *pool*;
   seats that forbid exactly the same tiles form one *group*. Within a group or the pool
   every split of its tiles into the locations' sizes is equally likely, so it suffices
   to sample which tiles go to each group and the pool, weighting each such assignment by
   the number of deals it stands for, which is the same for all of them.
2. ``count(i, caps)``: the number of ways to place unseen tiles i.. with ``caps`` tiles
   still due to each group (the pool takes the rest), computed exactly with Python
   integers and memoised. Tiles no group forbids come last, where the count is a
   multinomial coefficient, so the table only spans the constrained tiles.
3. Each constrained tile goes to a group or the pool with probability proportional to
   the count that choice leaves (an exact integer draw), the others are shuffled into
   the remaining places, and each group and the pool is shuffled and split.

The table has up to (constrained tiles) x prod(cap + 1) entries. If counting every group
would exceed ``max_states`` (only with many players holding different voids), the least
constraining groups join the pool, and a deal that breaks one of their voids is rejected
and drawn again: rejection from a uniform proposal over a superset, still exact.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from math import factorial, prod

from spinner_env.core.match import MatchState
from spinner_env.core.tiles import Tile

MAX_STATES = 60_000
"""Default bound on the size of the counting table (about a second to fill at worst)."""
MAX_REJECTIONS = 100_000
"""Proposals drawn for one deal before giving up (never reached in practice: the most
constraining groups are always counted exactly)."""


def free_of_voids(tile: Tile, voids: Collection[int]) -> bool:
    """Whether ``tile`` has no half among ``voids``: a seat void in them may hold it."""
    return tile.low not in voids and tile.high not in voids


class DealSampler:
    """Uniform deals of ``tiles`` into locations of the given ``sizes``, location i holding
    no tile with a half in ``voids[i]``.

    ``sample(rng)`` returns one list per location; a list's order is uniform too (so the
    boneyard, given as a location without voids, comes out in a uniform order). ValueError
    if the sizes do not add up to the tiles or no deal satisfies the voids.
    """

    def __init__(
        self,
        tiles: Sequence[Tile],
        sizes: Sequence[int],
        voids: Sequence[frozenset[int] | set[int]],
        max_states: int = MAX_STATES,
    ) -> None:
        if len(sizes) != len(voids):
            raise ValueError(f"{len(sizes)} location sizes but {len(voids)} void sets")
        if any(size < 0 for size in sizes) or sum(sizes) != len(tiles):
            raise ValueError(f"location sizes {list(sizes)} do not deal {len(tiles)} tiles")
        if len(set(tiles)) != len(tiles):
            raise ValueError("a tile is listed twice")
        self.tiles = sorted(tiles, key=lambda t: t.index)
        self.sizes = list(sizes)
        self.voids = [frozenset(v) for v in voids]

        forbidden_by_location = [
            frozenset(t for t in self.tiles if not free_of_voids(t, v)) for v in self.voids
        ]
        by_forbidden: dict[frozenset[Tile], list[int]] = {}
        for location, forbidden in enumerate(forbidden_by_location):
            if forbidden and sizes[location]:
                by_forbidden.setdefault(forbidden, []).append(location)
        # The most constraining groups first: those are the ones counted if not all can be.
        groups = sorted(by_forbidden.items(), key=lambda item: -len(item[0]))
        counted: list[tuple[frozenset[Tile], list[int]]] = []
        for forbidden, locations in groups:
            trial = [*counted, (forbidden, locations)]
            constrained = set().union(*(f for f, _ in trial))
            caps = [sum(self.sizes[loc] for loc in locs) for _, locs in trial]
            if counted and len(constrained) * prod(c + 1 for c in caps) > max_states:
                break
            counted = trial
        self.group_locations = [locs for _, locs in counted]
        grouped = {loc for locs in self.group_locations for loc in locs}
        self.pool_locations = [loc for loc in range(len(sizes)) if loc not in grouped]
        self.checked_locations = [
            loc for loc in self.pool_locations if forbidden_by_location[loc] and sizes[loc]
        ]
        """Pool locations with voids, left out of the count: their deals are checked."""

        group_forbidden = [f for f, _ in counted]
        self.group_caps = tuple(sum(sizes[loc] for loc in locs) for locs in self.group_locations)
        # Each constrained tile's choices: the groups that allow it; free tiles go last.
        signature = {
            t: tuple(g for g, forbidden in enumerate(group_forbidden) if t not in forbidden)
            for t in self.tiles
        }
        every_group = tuple(range(len(counted)))
        self.constrained = sorted(
            (t for t in self.tiles if signature[t] != every_group),
            key=lambda t: (signature[t], t.index),
        )
        self.choices = [signature[t] for t in self.constrained]
        self.free = [t for t in self.tiles if signature[t] == every_group]
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}
        if self.count(0, self.group_caps) == 0:
            raise ValueError("no deal of the unseen tiles is consistent with the sizes and voids")

    @property
    def num_deals(self) -> int:
        """How many consistent deals there are (tiles per location, orders aside); only
        known when every void is counted (``checked_locations`` empty)."""
        if self.checked_locations:
            raise ValueError("some voids are checked by rejection, not counted: raise max_states")
        ways = self.count(0, self.group_caps)
        for locations in (*self.group_locations, self.pool_locations):
            sizes = [self.sizes[loc] for loc in locations]
            ways *= factorial(sum(sizes)) // prod(factorial(s) for s in sizes)
        return ways

    def count(self, i: int, caps: tuple[int, ...]) -> int:
        """Ways to place constrained tiles i.. and the free tiles with ``caps`` due to the
        groups (the pool takes the rest)."""
        key = (i, caps)
        known = self._counts.get(key)
        if known is not None:
            return known
        remaining = len(self.constrained) - i + len(self.free)
        pool = remaining - sum(caps)
        if pool < 0:
            total = 0
        elif i == len(self.constrained):
            total = factorial(remaining) // (prod(factorial(c) for c in caps) * factorial(pool))
        else:
            total = self.count(i + 1, caps) if pool > 0 else 0
            for g in self.choices[i]:
                if caps[g]:
                    total += self.count(i + 1, _minus(caps, g))
        self._counts[key] = total
        return total

    def sample(self, rng: random.Random) -> list[list[Tile]]:
        """One consistent deal, each equally likely: the tiles of each location."""
        for _ in range(MAX_REJECTIONS):
            deal = self._propose(rng)
            if all(
                all(free_of_voids(t, self.voids[loc]) for t in deal[loc])
                for loc in self.checked_locations
            ):
                return deal
        raise RuntimeError(
            f"no consistent deal in {MAX_REJECTIONS} proposals: raise max_states to count "
            "more of the voids exactly"
        )

    def _propose(self, rng: random.Random) -> list[list[Tile]]:
        """A deal uniform over those that respect the counted groups' voids."""
        caps = self.group_caps
        in_group: list[list[Tile]] = [[] for _ in caps]
        pool: list[Tile] = []
        for i, tile in enumerate(self.constrained):
            pick = rng.randrange(self.count(i, caps))
            for g in self.choices[i]:
                if not caps[g]:
                    continue
                weight = self.count(i + 1, _minus(caps, g))
                if pick < weight:
                    in_group[g].append(tile)
                    caps = _minus(caps, g)
                    break
                pick -= weight
            else:
                pool.append(tile)
        free = list(self.free)
        rng.shuffle(free)
        start = 0
        for g, cap in enumerate(caps):
            in_group[g].extend(free[start : start + cap])
            start += cap
        pool.extend(free[start:])
        deal: list[list[Tile]] = [[] for _ in self.sizes]
        for tiles, locations in (
            *zip(in_group, self.group_locations, strict=True),
            (pool, self.pool_locations),
        ):
            rng.shuffle(tiles)
            start = 0
            for loc in locations:
                deal[loc] = tiles[start : start + self.sizes[loc]]
                start += self.sizes[loc]
        return deal


def _minus(caps: tuple[int, ...], g: int) -> tuple[int, ...]:
    return (*caps[:g], caps[g] - 1, *caps[g + 1 :])


class Belief:
    """What ``observer`` may believe about a state: uniform consistent deals of the tiles
    it cannot see (module docstring).

    ``sample_deal(rng)`` gives every seat's hand (the observer's own unchanged) and the
    boneyard, top first; ``determinize(rng)`` a copy of the state holding such a deal.
    """

    def __init__(
        self, state: MatchState, observer: int | None = None, max_states: int = MAX_STATES
    ) -> None:
        self.state = state
        self.observer = state.current if observer is None else observer
        if not 0 <= self.observer < state.num_players:
            raise ValueError(f"observer must be a seat from 0 to {state.num_players - 1}")
        self.others = [seat for seat in range(state.num_players) if seat != self.observer]
        # A seat that has drawn this turn and not yet placed or passed holds the drawn
        # tile, which its voids do not cover: it is a location of its own, of one tile.
        self.just_drew = (
            state.current if state.drew_this_turn and state.current != self.observer else None
        )
        unseen = [t for seat in self.others for t in state.hands[seat]] + list(state.boneyard)
        sizes = [len(state.hands[seat]) - (seat == self.just_drew) for seat in self.others]
        voids = [state.voids[seat] for seat in self.others]
        self.sampler = DealSampler(
            unseen,
            [*sizes, 1 if self.just_drew is not None else 0, len(state.boneyard)],
            [*voids, frozenset(), frozenset()],
            max_states,
        )

    def sample_deal(self, rng: random.Random) -> tuple[list[list[Tile]], list[Tile]]:
        """Every seat's hand (the observer's as it is) and the boneyard, top first."""
        *held, drawn, boneyard = self.sampler.sample(rng)
        hands = [list(hand) for hand in self.state.hands]
        for seat, hand in zip(self.others, held, strict=True):
            hands[seat] = hand
        if self.just_drew is not None:
            hands[self.just_drew].extend(drawn)  # a draw puts the tile last (MatchState)
        return hands, boneyard

    def determinize(self, rng: random.Random) -> MatchState:
        """A copy of the state with a sampled deal (:func:`dealt`)."""
        return dealt(self.state, *self.sample_deal(rng), rng)


def dealt(
    state: MatchState, hands: list[list[Tile]], boneyard: list[Tile], rng: random.Random
) -> MatchState:
    """A copy of ``state`` holding ``hands`` and ``boneyard``, with a fresh seed from
    ``rng`` for the later hands (the real seed would tell the coming deals)."""
    world = state.copy()
    world.hands = hands
    world.boneyard = boneyard
    world.seed = rng.getrandbits(62)
    return world


__all__ = ["MAX_STATES", "Belief", "DealSampler", "dealt", "free_of_voids"]
