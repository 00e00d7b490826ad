"""A belief that reads the opponents' choices: deals of the hidden tiles drawn from the
posterior given what each opponent placed this round, by a Markov chain over deals.

A study that no player uses: it gained nothing measurable over the uniform belief
(``research/belief_choices.py``; docs/results/search.md).

:class:`spinner_env.belief.Belief` deals the hidden tiles uniformly among the deals that
respect the public hand sizes and voids (S8, M7). Opponents' placements say more: a player
who kept the heavy double and placed a light tile on the Mexican train was unlikely to hold
a chain for its own train from that end. :class:`ChoicePosterior` weighs each consistent
deal by how likely each opponent, holding its hand under that deal, was to make the
placements it made this round, under an *opponent model*: a softmax over the legal
placements of a valuation's scores at ``temperature`` (points of score per unit of log
odds), mixed with a uniform pick of share ``uniform_share`` so that no choice is ever
ruled out (an opponent who is not the model still has a posterior that covers the truth).

**What is exact.** An opponent's hand at a decision since its last draw this round is its
hand now plus the tiles it placed from then on, all public but the hand now. Earlier
decisions depend on which tiles it drew, which nobody saw; they are left out (the voids of
its draws are in the uniform part already). So the likelihood reads, for each opponent,
the placement decisions after its last draw of the round.

**Method.** Metropolis-Hastings over deals: start from a uniform consistent deal; propose
to swap a tile of an opponent's hand with one from another location (another opponent or
the boneyard), both uniformly drawn (a symmetric proposal); a swap that breaks a void is
refused (the prior is uniform over consistent deals); accept with the ratio of the
likelihoods of the one or two opponents whose hands changed. Each opponent's
log-likelihood is memoised by its hand. Samples are ``thin`` steps apart after
``burn_in``; the boneyard order is shuffled uniformly for each. Swaps reach every
consistent deal except in a rare corner: with the boneyard empty, three or more opponents
whose voids forbid each other's tiles in a cycle may only be able to trade all at once,
and the chain then stays among the deals it started from.

Plain Python over the engine's states; the valuation is any ``scores(state, moves)``
(the Mexican Train expert's, by default in :func:`expert_model`), read for the seat to
act in a copy of the position before the decision.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spinner_env.belief import Belief, dealt, free_of_voids
from spinner_env.core.match import Draw, MatchState

ScoreMoves = Callable[[MatchState, list[Any]], Sequence[float]]
"""A valuation: each legal move's score for the seat to act, higher is better."""

CERTAIN = 1e3
"""The score that stands for a move the valuation rates infinite (going out), so that the
softmax stays finite: far above any other move's."""


@dataclass(frozen=True)
class Decision:
    """A move of this round: the position just before it (a copy; its seat to act made
    the move) and the move."""

    before: MatchState
    move: Any

    @property
    def seat(self) -> int:
        return self.before.current


def choice_log_likelihood(
    before: MatchState,
    hand: Sequence[Any],
    move: Any,
    score_moves: ScoreMoves,
    temperature: float,
    uniform_share: float,
) -> float:
    """The log of the chance that the seat to act at ``before``, holding ``hand``, plays
    ``move``: the model's softmax mixed with a uniform pick over the legal moves; minus
    infinity if ``move`` is not legal with that hand."""
    world = before.copy()
    world.hands[world.current] = list(hand)
    moves = world.legal_moves()
    if move not in moves:
        return -math.inf
    if len(moves) == 1:
        return 0.0
    scores = [min(float(s), CERTAIN) for s in score_moves(world, moves)]
    top = max(scores)
    weights = [math.exp((s - top) / temperature) for s in scores]
    chosen = weights[moves.index(move)] / sum(weights)
    return math.log((1 - uniform_share) * chosen + uniform_share / len(moves))


class ChoicePosterior:
    """Deals of the tiles ``observer`` cannot see, from the posterior given the
    opponents' placements in ``decisions`` (this round's moves, oldest first; module
    docstring). ValueError on a bad parameter or a decision log that does not fit the
    state."""

    def __init__(
        self,
        state: MatchState,
        decisions: Sequence[Decision],
        score_moves: ScoreMoves,
        temperature: float = 10.0,
        uniform_share: float = 0.1,
        observer: int | None = None,
        burn_in: int = 200,
        thin: int = 10,
    ) -> None:
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        if not 0 < uniform_share <= 1:
            raise ValueError(f"uniform_share must be in (0, 1], got {uniform_share}")
        if burn_in < 0 or thin < 1:
            raise ValueError(f"burn_in must be >= 0 and thin >= 1, got {burn_in} and {thin}")
        self.belief = Belief(state, observer)
        if self.belief.just_drew is not None:
            raise ValueError("the posterior is for the observer's own turn or a seat not drawing")
        self.state = state
        self.score_moves = score_moves
        self.temperature = temperature
        self.uniform_share = uniform_share
        self.burn_in = burn_in
        self.thin = thin
        self.windows = {seat: self._window(seat, decisions) for seat in self.belief.others}
        self._memo: dict[tuple[int, frozenset[Any]], float] = {}
        self._deal: tuple[list[list[Any]], list[Any]] | None = None
        self.steps = 0
        self.accepted = 0

    def _window(self, seat: int, decisions: Sequence[Decision]) -> list[tuple[Decision, list[Any]]]:
        """``seat``'s decisions after its last draw, each with the tiles it placed from
        then on (what its hand at the decision holds besides its hand now)."""
        since_draw: list[Decision] = []
        for decision in decisions:
            if decision.before.hand_number != self.state.hand_number:
                raise ValueError("every decision must be of the state's round")
            if decision.seat != seat:
                continue
            if isinstance(decision.move, Draw):
                since_draw = []
            elif hasattr(decision.move, "tile"):
                since_draw.append(decision)
        off_table = {*(t for hand in self.state.hands for t in hand), *self.state.boneyard}
        placed_from: list[Any] = []
        window = []
        for decision in reversed(since_draw):
            if decision.move.tile in off_table:
                raise ValueError(f"{decision.move} is logged but its tile is not on the table")
            placed_from = [decision.move.tile, *placed_from]
            window.append((decision, placed_from))
        return window[::-1]

    def log_likelihood(self, seat: int, hand: Sequence[Any]) -> float:
        """The log chance of ``seat``'s placements since its last draw, holding ``hand``
        now (memoised by the hand)."""
        key = (seat, frozenset(hand))
        if key not in self._memo:
            total = 0.0
            for decision, placed in self.windows[seat]:
                total += choice_log_likelihood(
                    decision.before,
                    [*hand, *placed],
                    decision.move,
                    self.score_moves,
                    self.temperature,
                    self.uniform_share,
                )
                if total == -math.inf:
                    break
            self._memo[key] = total
        return self._memo[key]

    def sample_deal(self, rng: random.Random) -> tuple[list[list[Any]], list[Any]]:
        """Every seat's hand (the observer's as it is) and the boneyard in a uniform
        order: the chain's state ``thin`` steps on (``burn_in`` more the first time)."""
        if self._deal is None:
            self._deal = self.belief.sample_deal(rng)
            self._advance(self.burn_in, rng)
        self._advance(self.thin, rng)
        hands, boneyard = self._deal
        boneyard = list(boneyard)
        rng.shuffle(boneyard)
        return [list(hand) for hand in hands], boneyard

    def determinize(self, rng: random.Random) -> MatchState:
        """A copy of the state with a posterior deal (:func:`spinner_env.belief.dealt`)."""
        return dealt(self.state, *self.sample_deal(rng), rng)

    def _advance(self, steps: int, rng: random.Random) -> None:
        assert self._deal is not None
        hands, boneyard = self._deal
        others = self.belief.others
        held = sum(len(hands[seat]) for seat in others)
        if held == 0:
            return
        locations = [*others, None]  # None: the boneyard

        def tiles_at(location: int | None) -> list[Any]:
            return boneyard if location is None else hands[location]

        sizes = [len(tiles_at(location)) for location in locations]
        total = sum(sizes)
        for _ in range(steps):
            self.steps += 1
            # A tile uniform among the opponents' and one uniform among those elsewhere.
            a, i = _pick(sizes[:-1], rng.randrange(held))
            if total == sizes[a]:
                continue  # one seat holds every hidden tile: the deal is known
            b, j = _pick(
                [0 if k == a else size for k, size in enumerate(sizes)],
                rng.randrange(total - sizes[a]),
            )
            seat_a, place_b = others[a], locations[b]
            x, y = hands[seat_a][i], tiles_at(place_b)[j]
            if not free_of_voids(y, self.state.voids[seat_a]) or (
                place_b is not None and not free_of_voids(x, self.state.voids[place_b])
            ):
                continue
            new_a = [*hands[seat_a][:i], y, *hands[seat_a][i + 1 :]]
            before = self.log_likelihood(seat_a, hands[seat_a])
            after = self.log_likelihood(seat_a, new_a)
            if place_b is not None:
                new_b = [*hands[place_b][:j], x, *hands[place_b][j + 1 :]]
                before += self.log_likelihood(place_b, hands[place_b])
                after += self.log_likelihood(place_b, new_b)
            if after == -math.inf or (after < before and rng.random() >= math.exp(after - before)):
                continue
            self.accepted += 1
            hands[seat_a][i] = y
            tiles_at(place_b)[j] = x


def _pick(sizes: Sequence[int], index: int) -> tuple[int, int]:
    """The location and the position in it of the ``index``-th tile counting through
    locations of ``sizes`` in order."""
    for location, size in enumerate(sizes):
        if index < size:
            return location, index
        index -= size
    raise IndexError(index)


def expert_model(game: str = "mexican_train") -> ScoreMoves:
    """The expert's valuation of ``game`` as an opponent model."""
    if game != "mexican_train":
        raise ValueError(f"no opponent model for {game!r}: only mexican_train")
    from spinner_env.games.mexican_train.expert import MexicanTrainExpertAgent

    return MexicanTrainExpertAgent().scores  # type: ignore[return-value]


__all__ = ["ChoicePosterior", "Decision", "choice_log_likelihood", "expert_model"]
