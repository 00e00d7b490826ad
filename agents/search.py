"""Search players: perfect-information Monte Carlo (PIMC) and information-set MCTS (ISMCTS).

Both see what their seat sees and nothing more: the engine view gives them the public
record and their own hand, and every look ahead plays on a *determinization*, the real
position with the hidden tiles dealt afresh by :class:`spinner_env.belief.Belief`
(uniform over the deals consistent with hand sizes and voids, with a fresh seed for the
later hands). Any game of the suite, 2 to 8 players.

- **PIMC** (:class:`PIMCAgent`): for each determinization, every legal move is played and
  then rolled out to the end by the rollout policy (the same determinization and rollout
  seed for every move, so moves are compared on equal luck); the best mean score wins. With
  ``margin`` it wins only where its mean beats the rollout policy's own move by that many
  standard errors of their paired differences; else the rollout policy's move plays (its
  one-step improvement, kept where the search cannot tell it from noise).
- **ISMCTS** (:class:`ISMCTSAgent`): single-observer information-set MCTS (Cowling,
  Powley and Whitehouse 2012, "Information Set Monte Carlo Tree Search", IEEE TCIAIG
  4(2)). One tree for the deciding seat, whose nodes are move sequences; each iteration
  samples one determinization and descends it, choosing among the children whose move is
  legal in that determinization by UCB1 with *availability counts* (a child's "parent
  visits" are the times it was available, not the parent's visits); at the first move
  not yet in the tree it adds one child, rolls out, and every seat's node on the path is
  credited with that seat's score. The move played is the root child visited most
  (``final=visits``) or with the best mean score (``final=mean``); ``exploration`` is the
  UCB1 constant.

Rollouts play the determinization to the end of the hand (``score=points``: each seat
scores its hand point difference, S7 / M6.2, as ``hand_score_difference``) or of the match
(``score=match``: the zero-sum match outcome, S7.2 / M6.3). ``score=equity`` plays to the
end of the hand and scores the match outcome each seat may expect from the totals the
hand leaves and the hands still to play (:func:`match_equity`: each seat's points in each
later hand as a normal draw of standard deviation ``spread``; the last hand's outcome
exactly), as cheap as ``points`` and aware of the match as ``match`` is. They play with
``random`` moves, or any agent ``make_agent`` builds (``greedy``, ``heuristic``,
``expert``, ``checkpoint`` or a policy file).

Asked what they saw (``act_explained``), both show a ``search`` view: each legal move's
visits (PIMC: the determinizations done, every move rolled out in each; ISMCTS: its root
child's visits) and mean rollout score for the seat to act (none for a move ISMCTS never
tried), from the same search, and so the same move, as ``act``.

**Engines.** A rollout policy with a compiled twin for the game's rules
(``Agent.compiled_twin``: ``random``, ``greedy``, ``heuristic`` and, in Spinner,
``expert``, with their default or own weights) plays on the game's batched numba engine
(its ``spinner_env.games.GameSpec``'s rollouts, such as
:class:`spinner_env.games.spinner.rollout.SpinnerRollouts`: the position is copied into
a compiled game record and played out in compiled code, with the same result as on the
reference engine for greedy, heuristic and expert). A policy network (a committed name
such as ``spinner_2p``, ``checkpoint`` or a policy file: **network-guided search**, e.g.
``pimc:rollout=spinner_2p,time=0.1``) plays on the batched engine too
(:class:`spinner_env.batched.policy_rollout.PolicyRollouts`: the engine steps every
position at once, one forward pass a step for all of them, with the same result as on the
reference engine for the argmax policy); PIMC then plays out as many determinizations per
call as fill :data:`POLICY_BATCH` positions, and ``cutoff=N`` stops each rollout after N
decisions (with a choice) and scores it for every seat by the network's value head, which
must predict the score (``VALUE_TARGETS``). A network that is its prior's player (its
output layer zero, as policy iteration writes ``spinner_2p`` and ``spinner_4p``:
``PolicyAgent.compiled_twin``) rolls out as that compiled player, without a forward pass,
unless a cutoff asks for its value head. A policy made for another game is a
ValueError at the first decision. A rollout policy with a batched twin
(``Agent.batched_twin``: the Mexican Train expert, compiled, reading the observations)
plays there the same way. Any other rollout (an agent of your own) plays on the reference
engine (``copy()`` of the rules engine, a Python policy). ``engine=auto`` (the default)
takes the batched engine where it can (numba installed), ``engine=batched`` insists on
it, ``engine=reference`` never uses it. How many more iterations a second the batched
engine gives, measured by ``bench/bench_search.py``, is in docs/search.md ("Where rollouts
run, and which engine is faster", "Network-guided search").

**Budgets.** ``iterations`` (PIMC: ``determinizations``) is exact and reproducible: the
agent's seed fixes every sample. ``time`` is CPU seconds of the deciding thread per
decision (:func:`time.thread_time`, so a busy machine does not shrink the search): the
search stops at the first iteration boundary past the budget, but always completes at
least one iteration per legal move (PIMC: one determinization, which rolls out every
move; ISMCTS: one iteration per root move, so each is tried once), so a decision never
rests on moves it has not tried; a slow position can therefore overrun a small budget.
Budgets below :data:`MIN_TIME` (the cost of about one iteration, measured by
``bench/bench_search.py``) are refused. Time mode is not reproducible: how many
iterations fit depends on the machine.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import random
import time
import typing
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from spinner_env.agents.specs import SEARCH_PLAYERS, make_agent

from spinner_env.belief import Belief
from spinner_env.core.agent import Agent, AgentView, EngineView, GameView, MoveView
from spinner_env.core.encoding import Encoding, hand_score_difference, zero_sum_outcome
from spinner_env.core.match import MatchState
from spinner_env.games import CompiledPlayer, game_of

if typing.TYPE_CHECKING:  # numba loads only when a rollout first needs the batched engine
    from spinner_env.batched.policy_rollout import PolicyRollouts
    from spinner_env.batched.rollout import BatchedRollouts

SCORES = ("points", "match", "equity")
VALUE_TARGETS = {"points": ("hand_score", "hand"), "match": ("match", "match")}
"""The env's reward and episode whose undiscounted return is each score: what a value head
must predict to cut rollouts off (option ``cutoff``; not with ``equity``)."""
SPREAD = 25.0
"""Points: the standard deviation of a seat's points in one hand that ``score=equity``
assumes by default (the Mexican Train expert's at 4 players: 24.6 over 78 hands)."""
EQUITY_NODES = 24
"""Gauss-Hermite nodes of :func:`match_equity`'s integral over one seat's later points."""
ENGINES = ("auto", "batched", "reference")
FINAL_CHOICES = ("visits", "mean")
NONE = type(None)
POLICY_BATCH = 128
"""Positions PIMC plays out per call with a policy network's rollouts on the batched
engine (as many whole determinizations as fit): the forward pass costs much less per
position in a batch (docs/search.md, "Network-guided search")."""
MIN_TIME = 0.002
"""Seconds: about one iteration (a determinization and a heuristic rollout of a 2-player
Spinner hand from its start on the reference engine, whose costs docs/search.md gives);
smaller time budgets could not finish one and are refused."""

Policy = Callable[[MatchState, list[Any], random.Random], Any]
"""A rollout policy: a legal move (of two or more) for the seat to act."""
PlayOut = Callable[[list[MatchState], int], Sequence[Sequence[float]]]
"""Every seat's score in each of the positions once played to the end by the rollout
policy (the positions may be consumed); the seed fixes the policy's random choices, the
same for every position."""


@dataclass(frozen=True)
class SearchOptions:
    """Options shared by both search players; see the module docstring."""

    iterations: int | None = None
    time: float | None = None
    rollout: str = "heuristic"
    score: str = "points"
    engine: str = "auto"
    cutoff: int | None = None
    """Decisions (with a choice) a rollout plays before the rollout policy's value head
    scores the position for every seat; None: rollouts play to the end."""
    spread: float = SPREAD
    """``score=equity``: the standard deviation of a seat's points in one later hand."""

    DEFAULT_ITERATIONS: typing.ClassVar[int] = 400
    NAME: typing.ClassVar[str] = "search"

    def __post_init__(self) -> None:
        if self.iterations is not None and self.time is not None:
            raise ValueError("give an iteration budget or a time budget, not both")
        if self.iterations is not None and self.iterations <= 0:
            raise ValueError(f"the iteration budget must be positive, got {self.iterations}")
        if self.time is not None and not (0 < self.time < math.inf):
            raise ValueError(f"the time budget must be positive and finite, got {self.time}")
        if self.time is not None and self.time < MIN_TIME:
            raise ValueError(
                f"a time budget of {self.time} s is too small to finish one iteration "
                f"(about {MIN_TIME} s); give at least {MIN_TIME}"
            )
        if self.score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {self.score!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.cutoff is not None and self.cutoff < 0:
            raise ValueError(f"cutoff must be a number of decisions >= 0, got {self.cutoff}")
        if self.cutoff is not None and self.score not in VALUE_TARGETS:
            raise ValueError(f"cutoff needs score=points or score=match, not {self.score}")
        if not 0 < self.spread < math.inf:
            raise ValueError(f"spread must be a positive number of points, got {self.spread}")

    @property
    def budget(self) -> int:
        """The iteration budget (the default when neither budget is given)."""
        return self.iterations if self.iterations is not None else self.DEFAULT_ITERATIONS

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SearchOptions:
        """Options from ``key=value`` strings (``make_agent``'s ``name:key=value,...``),
        each converted to its field's type; ValueError names an unknown key or bad value."""
        hints = typing.get_type_hints(cls)
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, text in options.items():
            if key not in known:
                raise ValueError(
                    f"unknown option {key!r} for {cls.NAME}: it takes {', '.join(known)}"
                )
            kind = next(t for t in typing.get_args(hints[key]) or (hints[key],) if t is not NONE)
            try:
                values[key] = kind(text)
            except ValueError:
                raise ValueError(
                    f"option {key}={text!r} for {cls.NAME} is not {kind.__name__}"
                ) from None
        return cls(**values)


@dataclass(frozen=True)
class PIMCOptions(SearchOptions):
    """``iterations`` counts determinizations (alias ``determinizations``)."""

    margin: float | None = None
    """Standard errors by which another move's mean must beat the rollout policy's own
    move (the mean of the paired differences over the determinizations) for PIMC to play
    it; None: the best mean plays."""

    DEFAULT_ITERATIONS: typing.ClassVar[int] = 20
    NAME: typing.ClassVar[str] = "pimc"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.margin is not None and not 0 <= self.margin < math.inf:
            raise ValueError(f"margin must be a finite number >= 0, got {self.margin}")
        if self.margin is not None and self.rollout == "random":
            raise ValueError(
                "margin keeps the rollout policy's own move unless another beats it; "
                "rollout=random has no move of its own: give a rollout policy"
            )

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SearchOptions:
        renamed = dict(options)
        if "determinizations" in renamed:
            if "iterations" in renamed:
                raise ValueError("pimc: give determinizations or iterations, not both")
            renamed["iterations"] = renamed.pop("determinizations")
        return super().parse(renamed)


@dataclass(frozen=True)
class ISMCTSOptions(SearchOptions):
    """``exploration``: the UCB1 constant, in units of the score (points / 100); the default
    is the value tuned on held-out deals (docs/results/search.md, "Tuning")."""

    exploration: float = 1.0
    final: str = "visits"
    """The move played: the root child visited most (``visits``) or with the best mean
    score (``mean``)."""
    NAME: typing.ClassVar[str] = "ismcts"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.exploration < math.inf:
            raise ValueError(f"exploration must be a finite number >= 0, got {self.exploration}")
        if self.final not in FINAL_CHOICES:
            raise ValueError(f"final must be one of {', '.join(FINAL_CHOICES)}, got {self.final!r}")


@dataclass(frozen=True)
class SearchResult:
    """What one decision's search found, per legal move (in the order searched): how
    often the move was tried (PIMC: every determinization; ISMCTS: its root child's
    visits) and its mean score for the seat to act (None if never tried), and the index
    of the move played (PIMC: the best mean, or by its ``margin``; ISMCTS: by its
    ``final`` option)."""

    visits: tuple[int, ...]
    means: tuple[float | None, ...]
    chosen: int


class SearchAgent(Agent):
    """What both search players share: options, budget, rollouts (module docstring)."""

    needs_view = True
    needs_observation = False
    OPTIONS: type[SearchOptions] = SearchOptions

    def __init__(
        self, options: SearchOptions | None = None, seed: int | None = None, name: str = ""
    ) -> None:
        super().__init__(seed)
        self.options = options or self.OPTIONS()
        self.name = name or self.OPTIONS.NAME
        self._rollout_agent: Agent | None = None
        if self.options.rollout != "random":
            self._rollout_agent = make_agent(self.options.rollout)
        if self.options.cutoff is not None:
            self._check_value_head()
        self._compiled: dict[Any, BatchedRollouts | PolicyRollouts] = {}
        """The batched engine's rollouts, one per rules (built on first use)."""

    def _play_out(self, game: MatchState, encoding: Encoding, rng: random.Random) -> PlayOut:
        """How this decision plays positions out: on the batched engine where the options
        allow it (module docstring), else on the reference engine."""
        self._check_plays(game, encoding)
        batched = self._batched_rollouts(game)
        if batched is not None:
            if self._by_policy(game) and self._rollout_agent is not None:
                self._rollout_agent.seed(rng.getrandbits(64))  # as _policy seeds it
            play_out: PlayOut = batched.play_out
        else:
            policy = self._policy(encoding, rng)

            def play_out(worlds: list[MatchState], seed: int) -> list[list[float]]:
                return [self._rollout(w, policy, random.Random(seed), encoding) for w in worlds]

        if self.options.score != "equity":
            return play_out
        # Every world is the game's hand played on: the totals before it are the game's.
        totals, later = list(game.totals), game.num_hands - game.hand_number - 1
        spread = self.options.spread
        return lambda worlds, seed: match_equity(totals, play_out(worlds, seed), later, spread)

    def _check_value_head(self) -> None:
        """ValueError unless the rollout policy has a value head that predicts the score."""
        rollout, score = self.options.rollout, self.options.score
        target = getattr(self._rollout_agent, "value_target", None)
        if target is None:
            raise ValueError(
                f"cutoff needs a rollout policy with a value head; {rollout} has none "
                "(a policy file whose header names a value target has one)"
            )
        reward, episode = VALUE_TARGETS[score]
        if (target.reward, target.episode, target.gamma) != (reward, episode, 1.0):
            raise ValueError(
                f"cutoff with score={score} needs a value head that predicts the {reward} "
                f"return per {episode}, undiscounted; {rollout}'s predicts {target.describe()}"
            )

    def _check_plays(self, game: MatchState, encoding: Encoding) -> None:
        """ValueError if the rollout policy is made for another game than ``game``'s."""
        made_for = None if self._rollout_agent is None else self._rollout_agent.num_actions
        if made_for not in (None, encoding.num_actions):
            raise ValueError(
                f"rollout={self.options.rollout} is a policy for a game of {made_for} "
                f"actions, not for {encoding.game_name} ({encoding.num_actions} actions): "
                f"give a {encoding.game_name} policy"
            )

    def _by_policy(self, game: MatchState) -> bool:
        """Whether ``game``'s rollouts are a policy network's on the batched engine
        (:class:`~spinner_env.batched.policy_rollout.PolicyRollouts`), which play many
        positions per call fastest: one forward pass a step for them all."""
        batched = self._compiled.get(game.rules)  # type: ignore[attr-defined]
        if batched is None:
            return False
        # numba is only needed for the batched engine.
        from spinner_env.batched.policy_rollout import PolicyRollouts

        return isinstance(batched, PolicyRollouts)

    def _batched_rollouts(self, game: MatchState) -> BatchedRollouts | PolicyRollouts | None:
        """The batched engine's rollouts for ``game``'s rules, or None where the reference
        engine must play (option ``engine``, the rollout policy)."""
        engine = self.options.engine
        if engine == "reference":
            return None
        rules = game.rules  # type: ignore[attr-defined]  # every game's state has its rules
        if rules not in self._compiled:
            made = self._make_batched_rollouts(game, rules)
            if made is None:
                if engine == "batched":
                    raise ValueError(
                        f"engine=batched plays rollouts with random, greedy, heuristic or "
                        f"expert moves or a policy network (with numba installed), not "
                        f"{type(game).__name__} with {self.options.rollout}"
                    )
                return None
            self._compiled[rules] = made
        return self._compiled[rules]

    def _make_batched_rollouts(
        self, game: MatchState, rules: Any
    ) -> BatchedRollouts | PolicyRollouts | None:
        """Rollouts by the rollout policy's compiled twin, or by the policy itself where
        it decides for a batch of games (``act_batch``: a policy network), or by its
        batched twin (the Mexican Train expert), or None."""
        if not _numba_available():
            return None
        agent = self._rollout_agent
        twin = CompiledPlayer("random") if agent is None else agent.compiled_twin(rules)
        rollouts = game_of(game).rollouts()
        to_match_end = self.options.score == "match"
        if twin is not None and self.options.cutoff is None:  # a cutoff asks the value head
            return rollouts.playing_as(twin, rules, to_match_end=to_match_end)
        if callable(getattr(agent, "act_batch", None)):
            batched = agent
        else:
            batched = agent.batched_twin(rules)
        if batched is None:
            return None
        # numba is only needed for the batched engine.
        from spinner_env.batched.policy_rollout import PolicyRollouts

        return PolicyRollouts(
            rollouts, rules, batched, to_match_end=to_match_end, cutoff=self.options.cutoff
        )

    def _policy(self, encoding: Encoding, rng: random.Random) -> Policy:
        agent = self._rollout_agent
        if agent is None:
            return lambda state, legal, rng: legal[rng.randrange(len(legal))]
        agent.seed(rng.getrandbits(64))
        return lambda state, legal, rng: agent_move(agent, state, legal, encoding)

    def _rollout(
        self, world: MatchState, policy: Policy, rng: random.Random, encoding: Encoding
    ) -> list[float]:
        """Every seat's score once ``world`` is played to the end of the hand (or match),
        or, after ``cutoff`` decisions, as the value head estimates it."""
        decisions = 0
        while True:
            while not world.hand_over:
                legal = world.legal_moves()
                if len(legal) == 1:
                    world.play_legal(legal[0])
                    continue
                if decisions == self.options.cutoff:
                    value = self._rollout_agent.value  # type: ignore[union-attr]
                    seats = range(world.num_players)
                    return [float(value(encoding.observation(world, s))) for s in seats]
                world.play_legal(policy(world, legal, rng))
                decisions += 1
            if self.options.score != "match":
                return hand_score_difference(world.results[-1].points)
            if world.match_over:
                return zero_sum_outcome(world.totals)
            world.start_next_hand()

    def _running(self, done: int, started: float, minimum: int) -> bool:
        """Whether to start another iteration, ``done`` finished since ``started`` (a
        :func:`time.thread_time` reading)."""
        if self.options.time is None:
            return done < self.options.budget
        return done < minimum or time.thread_time() - started < self.options.time

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        return int(legal[self._search(legal, view).chosen])

    def choose_explained(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> tuple[int, AgentView | None]:
        """:meth:`choose`'s action (the same search, from the same randomness), with each
        legal move's visits and mean score (:class:`SearchResult`); the view's value is the
        chosen move's mean."""
        result = self._search(legal, view)
        moves = tuple(
            MoveView(int(a), value=mean, visits=visits)
            for a, mean, visits in zip(legal, result.means, result.visits, strict=True)
        )
        return int(legal[result.chosen]), AgentView("search", moves, result.means[result.chosen])

    def _search(self, legal: np.ndarray, view: EngineView | None) -> SearchResult:
        view = self._view(view)
        moves = [view.encoding.move_of(int(a)) for a in legal]
        rng = random.Random(int(self.rng.integers(2**63)))
        play_out = self._play_out(view.game, view.encoding, rng)
        return self.search(view.game, moves, play_out, rng)

    @abstractmethod
    def search(
        self, game: MatchState, moves: list[Any], play_out: PlayOut, rng: random.Random
    ) -> SearchResult:
        """What the search found for each of ``moves`` (the legal moves of the seat to
        act), and the index of the one to play."""


class PIMCAgent(SearchAgent):
    """Perfect-information Monte Carlo: the best mean rollout score over determinizations
    (with ``margin``: the rollout policy's own move unless another beats it by that many
    standard errors)."""

    OPTIONS = PIMCOptions

    def search(
        self, game: MatchState, moves: list[Any], play_out: PlayOut, rng: random.Random
    ) -> SearchResult:
        me = game.current
        belief = Belief(game)
        totals = np.zeros(len(moves))
        margin = typing.cast(PIMCOptions, self.options).margin
        policy_move = None if margin is None else self._policy_move(game, moves)
        squared_differences = np.zeros(len(moves))  # from the policy's move
        started = time.thread_time()
        done = 0
        per_call = max(1, POLICY_BATCH // len(moves)) if self._by_policy(game) else 1
        while self._running(done, started, minimum=1):
            count = self._determinizations(per_call, done, started)
            afters, seeds = [], []
            for _ in range(count):
                afters += after_each(belief.determinize(rng), moves)
                seeds.append(rng.getrandbits(63))
            # One seed for every move: moves are compared on equal luck. (Several
            # determinizations per call only with a policy network, which reads no seed.)
            scores = np.array([s[me] for s in play_out(afters, seeds[0])]).reshape(count, -1)
            for row in scores:  # row by row, the order that keeps the means bit for bit
                totals += row
                if policy_move is not None:
                    squared_differences += (row - row[policy_move]) ** 2
            done += count
        return SearchResult(
            visits=(done,) * len(moves),
            means=tuple(float(total) / done for total in totals),
            chosen=pimc_choice(totals, squared_differences, done, policy_move, margin),
        )

    def _policy_move(self, game: MatchState, moves: list[Any]) -> int:
        """The index in ``moves`` of the move the rollout policy plays at ``game``."""
        encoding = game_of(game).encoding
        agent = typing.cast(Agent, self._rollout_agent)  # margin refuses random rollouts
        move = agent_move(agent, game, moves, encoding)
        return [encoding.action_of(m) for m in moves].index(encoding.action_of(move))

    def _determinizations(self, per_call: int, done: int, started: float) -> int:
        """How many determinizations the next play-out call takes, at most ``per_call``:
        in iteration mode what the budget has left, in time mode (after the first,
        which measures their cost) as many as the time left fits."""
        if self.options.time is None:
            return min(per_call, self.options.budget - done)
        if done == 0:
            return 1
        spent = max(time.thread_time() - started, 1e-9)
        return max(1, min(per_call, int((self.options.time - spent) * done / spent)))


class _Node:
    """A move sequence from the root: how often it was visited and available, and the
    summed score of the seat that made its last move."""

    __slots__ = ("available", "children", "score", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.available = 0
        self.score = 0.0


class ISMCTSAgent(SearchAgent):
    """Single-observer ISMCTS with one determinization per iteration (module docstring)."""

    OPTIONS = ISMCTSOptions

    def search(
        self, game: MatchState, moves: list[Any], play_out: PlayOut, rng: random.Random
    ) -> SearchResult:
        belief = Belief(game)
        root = _Node()
        started = time.thread_time()
        done = 0
        while self._running(done, started, minimum=len(moves)):
            self._iterate(root, belief.determinize(rng), play_out, rng)
            done += 1
        assert isinstance(self.options, ISMCTSOptions)
        children = [root.children.get(m) for m in moves]
        visits = tuple(c.visits if c else 0 for c in children)
        means = tuple(c.score / c.visits if c and c.visits else None for c in children)
        if self.options.final == "mean":
            best = [-math.inf if mean is None else mean for mean in means]
            chosen = max(range(len(moves)), key=best.__getitem__)
        else:
            chosen = max(range(len(moves)), key=visits.__getitem__)
        return SearchResult(visits, means, chosen)

    def _iterate(
        self, root: _Node, world: MatchState, play_out: PlayOut, rng: random.Random
    ) -> None:
        """One iteration on one determinization: select, expand one node, roll out, credit."""
        assert isinstance(self.options, ISMCTSOptions)
        exploration = self.options.exploration
        node = root
        path: list[tuple[_Node, int]] = []
        while not world.hand_over:
            legal = world.legal_moves()
            seat = world.current
            children = node.children
            # One look-up per move: hashing a move is a good part of an iteration's cost.
            known = [(move, children.get(move)) for move in legal]
            untried = [move for move, child in known if child is None]
            for _, child in known:
                if child is not None:
                    child.available += 1
            if len(legal) == 1:
                move = legal[0]  # forced: not a decision, so it does not end the descent
                child = known[0][1]
            elif untried:
                move = untried[rng.randrange(len(untried))]
                child = None
            else:
                move, child = max(known, key=lambda pair: _ucb(pair[1], exploration))
            if child is None:
                child = children[move] = _Node()
                child.available = 1
            world.play_legal(move)
            path.append((child, seat))
            node = child
            if child.visits == 0 and len(legal) > 1:
                break  # the one node this iteration adds
        (scores,) = play_out([world], rng.getrandbits(63))
        for child, seat in path:
            child.visits += 1
            child.score += scores[seat]


def agent_move(agent: Agent, state: MatchState, legal: Sequence[Any], encoding: Encoding) -> Any:
    """The move ``agent`` plays among ``legal`` (two or more) for the seat to act."""
    mask = np.zeros(encoding.num_actions, np.int8)
    mask[[encoding.action_of(m) for m in legal]] = 1
    obs = encoding.observation(state, state.current) if agent.needs_observation else None
    return encoding.move_of(agent.act(obs, mask, GameView(state, encoding)))


def after_each(world: MatchState, moves: Sequence[Any]) -> list[MatchState]:
    """``world`` after each of ``moves`` (legal there), a copy each: what PIMC rolls out."""
    afters = []
    for move in moves:
        after = world.copy()
        after.play_legal(move)
        afters.append(after)
    return afters


def pimc_choice(
    totals: np.ndarray,
    squared_differences: np.ndarray,
    count: int,
    policy_move: int | None,
    margin: float | None,
) -> int:
    """The index of the move PIMC plays: the best of ``totals`` (each move's scores summed
    over ``count`` determinizations), or with a ``margin``, ``policy_move`` unless the best
    is :func:`clearly_ahead` of it (``squared_differences``: each move's squared
    differences from it, summed)."""
    best = int(np.argmax(totals))
    if margin is None or policy_move is None:
        return best
    difference = totals[best] - totals[policy_move]
    ahead = clearly_ahead(difference, squared_differences[best], count, margin)
    return best if ahead else policy_move


def match_equity(
    totals: Sequence[int],
    hand_scores: Sequence[Sequence[float]],
    later_hands: int,
    spread: float,
) -> list[list[float]]:
    """Each seat's expected zero-sum match outcome (``zero_sum_outcome``: +1 to win, -1/(n-1)
    to lose) once a hand ends, for each row of ``hand_scores`` (every seat's
    ``hand_score_difference`` of that hand, from which the points follow up to a constant
    that no outcome depends on), given the ``totals`` before the hand and ``later_hands``
    still to play. After the last hand the outcome is exact; else each seat adds a normal
    draw of standard deviation ``spread * sqrt(later_hands)`` and the lowest total wins: a
    seat's chance is the integral over its draw z of the chance that every other's total
    ends above its own, ``prod_j Phi((U_j - U_i) / s - z)``, by Gauss-Hermite quadrature."""
    n = len(totals)
    scores = np.asarray(hand_scores, dtype=np.float64).reshape(-1, n)
    # hand_score_difference is (T - n p) / (100 (n - 1)): the points less their mean.
    points = -scores * 100 * (n - 1) / n
    ends = np.asarray(totals, np.float64) + np.round(points - points[:, :1]) + points[:, :1]
    if later_hands == 0:
        return [zero_sum_outcome(list(np.round(row - row.min()).astype(int))) for row in ends]
    nodes, weights = _hermite()
    s = spread * math.sqrt(later_hands)
    gaps = (ends[:, None, :] - ends[:, :, None]) / s  # [row, i, j]: (U_j - U_i) / s
    above = _normal_cdf(gaps[..., None] - nodes)  # [row, i, j, node]
    above[:, np.arange(n), np.arange(n), :] = 1.0  # a seat does not race itself
    chance = (above.prod(axis=2) * weights).sum(axis=-1)
    return ((n * chance - 1) / (n - 1)).tolist()


@functools.cache
def _hermite() -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights for the mean of a function of a standard normal."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(EQUITY_NODES)
    return nodes, weights / math.sqrt(2 * math.pi)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function, to within 1e-7 (Abramowitz and Stegun
    7.1.26 for erf: numpy has none, and scipy is not a dependency of the agents)."""
    z = np.abs(x) / math.sqrt(2)
    t = 1 / (1 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    half_tail = 0.5 * poly * np.exp(-z * z)
    return np.where(x >= 0, 1 - half_tail, half_tail)


def clearly_ahead(difference: float, squares: float, count: int, margin: float) -> bool:
    """Whether paired differences summing to ``difference`` (their squares to ``squares``)
    over ``count`` determinizations put their mean above zero and ``margin`` standard
    errors of it (PIMC's ``margin``; one determinization gives no error: never)."""
    if count < 2 or difference <= 0:
        return False
    mean = difference / count
    variance = max(squares / count - mean * mean, 0.0) * count / (count - 1)
    return bool(mean > margin * math.sqrt(variance / count))


@functools.cache
def _numba_available() -> bool:
    """Whether the batched engine can run (numba comes with the train and bench extras)."""
    return importlib.util.find_spec("numba") is not None


def _ucb(node: _Node, exploration: float) -> float:
    """UCB1 with the availability count in place of the parent's visits."""
    return node.score / node.visits + exploration * math.sqrt(
        math.log(node.available) / node.visits
    )


SEARCH_AGENTS: dict[str, type[SearchAgent]] = {"pimc": PIMCAgent, "ismcts": ISMCTSAgent}


def make_search_agent(name: str, options: Mapping[str, str], seed: int | None = None) -> Agent:
    """``pimc`` or ``ismcts`` with ``key=value`` options (ValueError for unknown ones)."""
    cls = SEARCH_AGENTS[name]
    label = name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
    return cls(cls.OPTIONS.parse(options), seed=seed, name=label)


# make_agent builds these by name (specs cannot import this module: its docstring says why).
SEARCH_PLAYERS.update(dict.fromkeys(SEARCH_AGENTS, make_search_agent))


__all__ = [
    "MIN_TIME",
    "SEARCH_AGENTS",
    "ISMCTSAgent",
    "ISMCTSOptions",
    "PIMCAgent",
    "PIMCOptions",
    "SearchAgent",
    "SearchOptions",
    "SearchResult",
    "make_search_agent",
]
