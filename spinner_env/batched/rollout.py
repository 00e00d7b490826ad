"""Rollouts of reference positions on a batched engine, whatever the game (the search
players' fast path).

A search player looks ahead on copies of the reference engine's state, but playing a
position out to the end with a Python policy costs milliseconds: most of a search's time.
:class:`BatchedRollouts` copies positions into a batched engine's game records (each
game's ``load_state``) and plays them all to the end of the hand, or of the match, in one
compiled call, every seat choosing as a compiled opponent kind (``OPPONENT_RANDOM``,
``OPPONENT_GREEDY``, ``OPPONENT_HEURISTIC`` of :mod:`~spinner_env.batched.core`).
Each seat's score is what ``spinner_env.aec`` would give it: ``hand_score_difference`` of
the hand's points (S7, M6.2) or ``zero_sum_outcome`` of the match totals (S7.2, M6.3),
computed by the engine's own hand end.

One compiled loop (:func:`_play_out`) serves every game: it calls the rules through the
stubs of :mod:`~spinner_env.batched.core` (``legal_mask``, ``play``, ``finish_hand``,
``compiled_action``), which numba resolves, by the type of the game's ``Params``, to the
:class:`~spinner_env.batched.core.CompiledRules` its subclass of :class:`BatchedRollouts`
names (the subclass is the one its ``spinner_env.games.GameSpec`` names).

The games' rollouts: :class:`spinner_env.games.spinner.rollout.SpinnerRollouts` and
:class:`spinner_env.games.mexican_train.rollout.MexicanTrainRollouts`. Each game's
``state_of`` goes the other way, from a record to the reference state it holds
(:func:`match_fields` reads what :func:`load_hands` writes).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numba import njit

from spinner_env.batched.core import (
    KIND_OF,
    BatchedEngine,
    BatchStep,
    CompiledRules,
    _kth_legal,
    _legal_count,
    compiled_action,
    engine_params,
    finish_hand,
    legal_mask,
    play,
)
from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome
from spinner_env.core.match import MatchState
from spinner_env.core.tiles import Tile
from spinner_env.games import CompiledPlayer


@njit(cache=True)
def _play_out(
    games: np.ndarray,
    p: Any,
    kinds: np.ndarray,
    heuristic_weights: np.ndarray,
    seeds: np.ndarray,
    out: BatchStep,
) -> None:
    """Play every game to its episode's end (``p``: the hand or the match), seat s
    choosing as ``kinds[s]`` and random choices of game b drawn from the stream seeded by
    ``seeds[b]``; ``out.rewards[b]`` keeps every seat's score."""
    next_seed = np.zeros(1, np.uint64)  # the episode after the end is never looked at
    rng_state = np.zeros(1, np.uint64)
    for b in range(games.shape[0]):
        game = games[b]
        rng_state[0] = seeds[b]
        mask = out.mask[b]
        out.done[b] = False
        while True:
            legal_mask(game, p, mask)
            legal = _legal_count(mask)
            if legal == 1:
                action = _kth_legal(mask, 0)
            else:
                action = compiled_action(
                    game, p, mask, legal, kinds[game.current], heuristic_weights, rng_state
                )
            out.rewards[b, :] = 0.0
            if play(game, p, action):
                finish_hand(game, p, next_seed, out, b)
                if out.done[b]:
                    break


def load_hands(game: np.void, state: MatchState) -> None:
    """Write what every game's record keeps as the reference ``MatchState`` does into
    ``game``: hands (in any order: the engine does not mind), the boneyard (the deck's
    end, top first), voids, totals, seed, hand number, whose turn and whether they drew."""
    n = state.num_players
    hands, sizes = game["hands"], game["hand_sizes"]
    sizes[:] = 0
    for seat, hand in enumerate(state.hands):
        hands[seat, : len(hand)] = [t.index for t in hand]
        sizes[seat] = len(hand)
    top = len(game["deck"]) - len(state.boneyard)
    game["deck"][top:] = [t.index for t in state.boneyard]  # draws take from the top
    game["top"] = top
    voids = game["voids"]
    voids[:, :] = 0
    for seat in range(n):
        voids[seat, list(state.voids[seat])] = 1
    game["totals"][:] = 0
    game["totals"][:n] = state.totals
    game["seed"] = state.seed
    game["hand_number"] = state.hand_number
    game["current"] = state.current
    game["drew"] = state.drew_this_turn
    game["learner"] = 0


def match_fields(game: np.void, num_players: int, tiles: Sequence[Tile]) -> dict[str, Any]:
    """What :func:`load_hands` writes, read back as the ``MatchState`` fields it came from
    (``tiles``: the game's tiles by index). Hands keep the record's order; ``results`` is
    empty, since a record keeps the match totals but not each earlier hand's result."""
    n = num_players
    deck = game["deck"]
    return {
        "num_players": n,
        "seed": int(game["seed"]),
        "hand_number": int(game["hand_number"]),
        "hands": [
            [tiles[i] for i in game["hands"][seat, : game["hand_sizes"][seat]]] for seat in range(n)
        ],
        "boneyard": [tiles[i] for i in deck[int(game["top"]) :]],
        "current": int(game["current"]),
        "totals": [int(t) for t in game["totals"][:n]],
        "drew_this_turn": bool(game["drew"]),
        "voids": [{int(v) for v in np.flatnonzero(game["voids"][seat])} for seat in range(n)],
    }


class BatchedRollouts(ABC):
    """Positions of one game played out together by a compiled policy.

    A game subclasses it with its batched engine (its record, sizes, rules class and
    ``Params``), its :class:`CompiledRules`, :meth:`load_state` (which
    :func:`load_hands` starts) and :meth:`state_of`, and names the subclass in its
    ``spinner_env.games.GameSpec`` (``rollouts_path``), where the compiled loop finds it.

    Args:
        rules: the positions' rules (``state.rules``; one set for all).
        kind: the ``OPPONENT_*`` kind every seat plays (not ``OPPONENT_EXTERNAL``).
        heuristic_weights: the weights of the game's compiled heuristic, one row each
            (Spinner: an agent's ``compiled_weights()``, the expert's too; Mexican Train:
            ``MexicanTrainWeights.as_array()``).
        to_match_end: score the match outcome at the end of the match rather than the
            hand's points at the end of the hand.
    """

    engine: ClassVar[type[BatchedEngine]]
    compiled: ClassVar[CompiledRules]

    def __init__(
        self,
        rules: Any,
        kind: int,
        heuristic_weights: np.ndarray,
        *,
        to_match_end: bool = False,
    ) -> None:
        rules_class = self.engine.rules_class
        if not isinstance(rules, rules_class):
            raise ValueError(f"rules must be {rules_class.__name__}, got {rules!r}")
        self.num_players = rules.num_players
        self.to_match_end = to_match_end
        self.games = np.zeros(0, self.engine.game_dtype)
        self.out = self._outputs(0)
        self.kinds = np.full(self.engine.max_players, kind, np.int64)
        self.heuristic_weights = np.atleast_2d(np.asarray(heuristic_weights, np.float64))
        self.seeds = np.zeros(0, np.uint64)
        episode = "match" if to_match_end else "hand"
        reward = "match" if to_match_end else "hand_score"
        self.params = engine_params(
            self.engine.params_class, rules, reward, episode, learner_seat=0
        )

    @classmethod
    def playing_as(
        cls, player: CompiledPlayer, rules: Any, *, to_match_end: bool = False
    ) -> BatchedRollouts:
        """Rollouts in which every seat plays as ``player`` (a compiled twin)."""
        # Random and greedy seats read no weights: an empty row stands in.
        weights = np.zeros((1, 0)) if player.weights is None else player.weights
        return cls(rules, KIND_OF[player.kind], weights, to_match_end=to_match_end)

    def _outputs(self, count: int) -> BatchStep:
        engine = self.engine
        return BatchStep.zeros(count, engine.obs_size, engine.num_actions, engine.max_players)

    @staticmethod
    @abstractmethod
    def load_state(game: np.void, state: Any) -> None:
        """Write the hand in play of ``state`` into the record ``game``: the engine goes
        on from there exactly as ``state`` would."""

    @staticmethod
    @abstractmethod
    def state_of(game: np.void, rules: Any, check: bool = True) -> MatchState:
        """The reference state of the hand in play in the record ``game`` under ``rules``
        (:meth:`load_state`'s inverse); with ``check``, ValueError if it is none."""

    def play_out(self, states: Sequence[MatchState], seed: int) -> np.ndarray:
        """Every seat's score (rows: ``states``; columns: seats) once each state is played
        to the end; ``seed`` starts the random stream of every state's random seats."""
        scores, in_play = self.load(states)
        self.seeds[: len(in_play)] = seed
        _play_out(
            self.games[: len(in_play)],
            self.params,
            self.kinds,
            self.heuristic_weights,
            self.seeds,
            self.out,
        )
        scores[in_play] = self.out.rewards[: len(in_play), : self.num_players]
        return scores

    def load(self, states: Sequence[MatchState]) -> tuple[np.ndarray, list[int]]:
        """Every seat's score (rows: ``states``) where a state's episode is already over,
        and the rows of the others (``in_play``), loaded in that order into the first
        records of :attr:`games` (which grow to fit) for the caller to play out."""
        count = len(states)
        if count > len(self.games):  # grown, never shrunk: the next call reuses the records
            self.games = np.zeros(count, self.engine.game_dtype)
            self.out = self._outputs(count)
            self.seeds = np.zeros(count, np.uint64)
        scores = np.zeros((count, self.num_players))
        in_play: list[int] = []
        for b, state in enumerate(states):
            if state.hand_over and self.to_match_end and not state.match_over:
                state = state.copy()
                state.start_next_hand()  # S2.3, M2.2
            if state.hand_over:  # the search's own move ended it (S6.4, M6.1): nothing to play
                scores[b] = (
                    zero_sum_outcome(state.totals)
                    if self.to_match_end
                    else hand_score_difference(state.results[-1].points)
                )
            else:
                self.load_state(self.games[len(in_play)], state)
                in_play.append(b)
        return scores, in_play


drop_stale_cache(_play_out)  # before anything compiled is loaded (see numba_cache)

__all__ = ["BatchedRollouts", "CompiledRules", "load_hands", "match_fields"]
