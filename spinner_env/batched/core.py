"""What the batched engines share, whatever the game: seeds, the shuffle, the step's
outputs, legal-action sampling, the match outcome, the compiled loops and the Python API
around them.

:class:`BatchedEngine` is the API of :class:`~spinner_env.games.spinner.batched.BatchedSpinner` and
:class:`~spinner_env.games.mexican_train.batched.BatchedMexicanTrain`: ``reset(seed)`` starts
game b from seed ``seed + b``, ``step(actions, active)`` plays one decision in every
(active) game and returns a :class:`BatchStep`, ``observe(seats)`` gives any seat's view.
A game module supplies its record dtype, its sizes and its compiled rules.

One compiled loop per job serves every game: reset, step and observe here,
:func:`advance_to_learner` (the opponents' moves between the learner's decisions) and the
rollouts' ``_play_out`` (:mod:`~spinner_env.batched.rollout`). They call the rules through
the stubs :func:`start_episode`, :func:`legal_mask`, :func:`play`, :func:`finish_hand`,
:func:`observe` and :func:`compiled_action`, which numba resolves, by the type of the
game's ``Params``, to the functions of its :class:`CompiledRules`
(``numba.extending.overload``). A loop taking the functions as arguments would do the
same, but numba does not cache a function that takes functions, and compiling it costs
seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from spinner_env.batched.numba_cache import drop_stale_cache
from spinner_env.core.encoding import EPISODES, REWARD_SCHEMES, Encoding, check_choice
from spinner_env.games import GAMES

OPPONENT_RANDOM = 0
OPPONENT_GREEDY = 1
OPPONENT_EXTERNAL = 2
OPPONENT_HEURISTIC = 3
"""How a seat's moves are chosen by each game's compiled ``compiled_action``: uniformly at
random, the heaviest tile (``spinner_env.agents.GreedyAgent``), by Python code (the call
stops there), or the heuristic: kind ``OPPONENT_HEURISTIC + k`` plays it with the
weights of row k (in Spinner the expert where the row holds ``SpinnerExpertWeights``)."""
KIND_OF = {"random": OPPONENT_RANDOM, "greedy": OPPONENT_GREEDY, "heuristic": OPPONENT_HEURISTIC}
"""The kind of each ``CompiledPlayer.kind`` (a heuristic's kind adds its weights' row), in
every game."""

# SplitMix64 constants of spinner_env.core.match.shuffled, as uint64 so numba wraps like it.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_HAND_MIX = np.uint64(0xD1B54A32D192ED03)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)

FIRST_HAND_DRAW = -2
"""The hand number ``shuffled`` is given to draw a hand episode's hand from its seed."""
LEARNER_DRAW = -3
"""The hand number ``shuffled`` is given to draw the learner's seat from the seed."""


class BatchStep(NamedTuple):
    """What a step leaves for every game; the arrays are reused by the next step.

    ``obs`` and ``mask`` are for the player to act (``current``), in the new episode
    where ``done``; ``rewards[b, seat]`` is what the decision gave each seat (the AEC
    env's ``rewards``); ``final_obs`` (the ``learner`` seat's view of the ended game) and
    ``final_totals`` are only meaningful where ``done``.
    """

    obs: np.ndarray  # (B, observation size) float32
    mask: np.ndarray  # (B, number of actions) int8
    rewards: np.ndarray  # (B, 8) float64
    done: np.ndarray  # (B,) bool
    final_obs: np.ndarray  # (B, observation size) float32
    final_totals: np.ndarray  # (B, 8) int32

    @classmethod
    def zeros(cls, num_games: int, obs_size: int, num_actions: int, max_players: int) -> BatchStep:
        b = num_games
        return cls(
            obs=np.zeros((b, obs_size), np.float32),
            mask=np.zeros((b, num_actions), np.int8),
            rewards=np.zeros((b, max_players), np.float64),
            done=np.zeros(b, np.bool_),
            final_obs=np.zeros((b, obs_size), np.float32),
            final_totals=np.zeros((b, max_players), np.int32),
        )


# ------------------------------------------------------------------ seeds and deals
@njit(cache=True)
def _shuffle_range(out: np.ndarray, m: int, seed: np.uint64, hand_number: int) -> None:
    """``out[:m] = shuffled(range(m), seed, hand_number)``, bit for bit (SplitMix64)."""
    for i in range(m):
        out[i] = i
    state = seed * _GOLDEN + np.uint64(hand_number) * _HAND_MIX + np.uint64(1)
    for i in range(m - 1, 0, -1):
        state = state + _GOLDEN
        z = state
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
        j = np.int64(z % np.uint64(i + 1))
        out[i], out[j] = out[j], out[i]


@njit(cache=True)
def _drawn_from_seed(m: int, seed: np.uint64, hand_number: int) -> int:
    order = np.empty(m, np.int64)
    _shuffle_range(order, m, seed, hand_number)
    return order[0]


# ------------------------------------------------------------------ rewards
@njit(cache=True)
def _add_outcome(totals: np.ndarray, rewards: np.ndarray) -> None:
    """``aec.zero_sum_outcome``: the k lowest totals share the win, rewards sum to 0."""
    n = totals.shape[0]
    best = totals.min()
    k = 0
    for seat in range(n):
        if totals[seat] == best:
            k += 1
    for seat in range(n):
        if totals[seat] == best:
            rewards[seat] += (n - k) / (k * (n - 1))
        else:
            rewards[seat] += -1 / (n - 1)


@njit(cache=True)
def _add_hand_score(points: np.ndarray, rewards: np.ndarray) -> None:
    """``aec.hand_score_difference``: (mean of the others' points - own points) / 100."""
    n = points.shape[0]
    total = points.sum()
    for seat in range(n):
        rewards[seat] += ((total - points[seat]) / (n - 1) - points[seat]) / 100


# ------------------------------------------------------------------ legal actions
@njit(cache=True)
def _first_illegal(mask: np.ndarray, actions: np.ndarray, active: np.ndarray) -> int:
    """The first active game whose action its mask does not allow (-1 if none)."""
    num_actions = mask.shape[1]
    for b in range(actions.shape[0]):
        if active[b] and not (0 <= actions[b] < num_actions and mask[b, actions[b]]):
            return b
    return -1


_BLOCK = 16
"""Actions counted at once while looking for the k-th legal one (a sum LLVM vectorises)."""


@njit(cache=True)
def _legal_count(mask: np.ndarray) -> int:
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    return count


@njit(cache=True)
def _kth_legal(mask: np.ndarray, k: int) -> int:
    """The legal action with k legal actions before it (-1 if there are fewer)."""
    start = 0
    while start + _BLOCK <= mask.shape[0]:  # skip whole blocks that end before it
        in_block = 0
        for a in range(start, start + _BLOCK):
            in_block += mask[a]
        if k < in_block:
            break
        k -= in_block
        start += _BLOCK
    for a in range(start, mask.shape[0]):
        k -= mask[a]
        if k < 0:
            return a
    return -1


@njit(cache=True)
def next_uniform(rng_state: np.ndarray) -> float:
    """A draw in [0, 1) from the splitmix64 generator whose state is ``rng_state[0]``.

    The compiled random opponents draw from this rather than numba's ``np.random``,
    which is one per process: a batch that owns its generator's state in an array
    carries it into its copies and pickles, which then replay its future exactly.
    """
    rng_state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng_state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 2.0**53)


@njit(cache=True)
def sample_legal(mask: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``, chosen by ``uniforms`` in [0, 1)."""
    actions = np.empty(mask.shape[0], np.int64)
    for b in range(mask.shape[0]):
        actions[b] = _kth_legal(mask[b], int(uniforms[b] * _legal_count(mask[b])))
    return actions


# ------------------------------------------------------------------ one loop for every game
class CompiledRules(NamedTuple):
    """A game's compiled rules: what the loops of this module (and the rollouts' of
    :mod:`~spinner_env.batched.rollout`) call through the stubs below. A game's
    ``BatchedRollouts`` subclass, which its ``spinner_env.games.GameSpec`` names, holds
    them (it imports both the engine and the opponents that define them)."""

    start_episode: Callable[..., None]
    legal_mask: Callable[..., None]
    play: Callable[..., bool]
    finish_hand: Callable[..., None]
    observe: Callable[..., None]
    compiled_action: Callable[..., int]


def _registered(params_type: Any) -> CompiledRules | None:
    """The compiled rules of the registered game whose ``Params`` numba is typing (its
    engine's ``params_class``), or None. Looked up while compiling, not on import: the
    games' modules import this one."""
    instance_class = getattr(params_type, "instance_class", None)
    for game in GAMES.values():
        if game.engine().params_class is instance_class:
            return game.rollouts().compiled
    return None


def start_episode(game: np.record, p: Any, next_seed: np.ndarray) -> None:
    """Stub: the game's episode start (the match, or the hand episode's hand, from the
    seed ``next_seed[0]``, which it advances)."""
    raise NotImplementedError("compiled code only")


def legal_mask(game: np.record, p: Any, mask: np.ndarray) -> None:
    """Stub: the game's ``_legal_mask`` (the legal actions of the seat to act)."""
    raise NotImplementedError("compiled code only")


def play(game: np.record, p: Any, action: int) -> bool:
    """Stub: the game's ``_play`` (play a legal action; whether the hand ended)."""
    raise NotImplementedError("compiled code only")


def finish_hand(game: np.record, p: Any, next_seed: np.ndarray, out: BatchStep, b: int) -> None:
    """Stub: the game's hand end (score it into ``out``, deal on or end the episode)."""
    raise NotImplementedError("compiled code only")


def observe(game: np.record, p: Any, seat: int, in_play: bool, obs: np.ndarray) -> None:
    """Stub: the game's ``_observe`` (``seat``'s view into ``obs``)."""
    raise NotImplementedError("compiled code only")


def compiled_action(
    game: np.record,
    p: Any,
    mask: np.ndarray,
    legal: int,
    kind: int,
    heuristic_weights: np.ndarray,
    rng_state: np.ndarray,
) -> int:
    """Stub: the game's compiled opponents' ``compiled_action`` (the action a seat of an
    ``OPPONENT_*`` kind chooses; -1 for ``OPPONENT_EXTERNAL``)."""
    raise NotImplementedError("compiled code only")


# numba requires an overload's parameters to be the implementation's to the letter,
# annotations included: hence none here. Inlined at numba's level: a called wrapper cost
# the Spinner engine about 5% of its steps per second, legal_mask's Mexican Train's 3%
# (same-run A/Bs). A loop should call legal_mask from one place: numba's IR checks warn
# when its inlined copy is inlined twice into one loop.
@overload(start_episode, inline="always")
def _start_episode_of(game, p, next_seed) -> Callable[..., None] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.start_episode
    return lambda game, p, next_seed: impl(game, p, next_seed)


@overload(legal_mask, inline="always")
def _legal_mask_of(game, p, mask) -> Callable[..., None] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.legal_mask
    return lambda game, p, mask: impl(game, p, mask)


@overload(play, inline="always")
def _play_of(game, p, action) -> Callable[..., bool] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.play
    return lambda game, p, action: impl(game, p, action)


@overload(finish_hand, inline="always")
def _finish_hand_of(game, p, next_seed, out, b) -> Callable[..., None] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.finish_hand
    return lambda game, p, next_seed, out, b: impl(game, p, next_seed, out, b)


@overload(observe, inline="always")
def _observe_of(game, p, seat, in_play, obs) -> Callable[..., None] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.observe
    return lambda game, p, seat, in_play, obs: impl(game, p, seat, in_play, obs)


@overload(compiled_action, inline="always")
def _compiled_action_of(
    game, p, mask, legal, kind, heuristic_weights, rng_state
) -> Callable[..., int] | None:
    rules = _registered(p)
    if rules is None:
        return None
    impl = rules.compiled_action
    return lambda game, p, mask, legal, kind, heuristic_weights, rng_state: impl(
        game, p, mask, legal, kind, heuristic_weights, rng_state
    )


@njit(cache=True)
def end_hand(
    game: np.record,
    p: Any,
    points: np.ndarray,
    num_hands: int,
    next_seed: np.ndarray,
    out: BatchStep,
    b: int,
) -> bool:
    """What every game does with a finished hand, ``points`` being each seat's count: add
    them to the totals and give the rewards ``DominoAECEnv._finish_hand`` gives; where the
    episode ends (a hand episode, or the last of ``num_hands``) mark game ``b`` of ``out``
    done with the learner's view of the end, start the next episode and return True; else
    return False, and the game deals its next hand."""
    n = p.num_players
    for seat in range(n):
        game.totals[seat] += points[seat]
    rewards = out.rewards[b]
    if p.hand_score_reward:
        _add_hand_score(points, rewards)
    if not (p.hand_episode or game.hand_number + 1 >= num_hands):
        return False
    if not p.hand_score_reward and p.hand_episode:
        _add_outcome(points, rewards)
    elif not p.hand_score_reward:
        _add_outcome(game.totals[:n].astype(np.int64), rewards)
    out.done[b] = True
    out.final_totals[b, :] = game.totals
    observe(game, p, game.learner, False, out.final_obs[b])
    start_episode(game, p, next_seed)
    return True


@njit(cache=True)
def _reset(games: np.ndarray, p: Any, next_seed: np.ndarray, out: BatchStep) -> None:
    for b in range(games.shape[0]):
        game = games[b]
        start_episode(game, p, next_seed)
        observe(game, p, game.current, True, out.obs[b])
        legal_mask(game, p, out.mask[b])
    out.rewards[:] = 0.0
    out.done[:] = False


@njit(cache=True)
def _step(
    games: np.ndarray,
    p: Any,
    next_seed: np.ndarray,
    actions: np.ndarray,
    active: np.ndarray,
    out: BatchStep,
) -> None:
    out.rewards[:] = 0.0
    out.done[:] = False
    for b in range(games.shape[0]):
        if active[b]:
            game = games[b]
            if play(game, p, actions[b]):
                finish_hand(game, p, next_seed, out, b)
            observe(game, p, game.current, True, out.obs[b])
            legal_mask(game, p, out.mask[b])


@njit(cache=True)
def observe_all(games: np.ndarray, p: Any, seats: np.ndarray, obs: np.ndarray) -> None:
    """Every game's observation from ``seats[b]``'s point of view, into ``obs``."""
    for b in range(games.shape[0]):
        observe(games[b], p, seats[b], True, obs[b])


@njit(cache=True)
def advance_to_learner(
    games: np.ndarray,
    p: Any,
    next_seed: np.ndarray,
    out: BatchStep,
    seat_kind: np.ndarray,
    heuristic_weights: np.ndarray,
    rng_state: np.ndarray,
    skip_forced: bool,
    learner_reward: np.ndarray,
    ended: np.ndarray,
    final_obs: np.ndarray,
) -> None:
    """Play every game on until its learner seat has a decision, with compiled opponents
    (``compiled_action`` of the game's opponents module); the compiled loop of
    ``spinner_env.batched.vector.LearnerBatch``.

    ``seat_kind[b, seat]`` is the ``OPPONENT_*`` kind of each seat; ``heuristic_weights``
    (k, the game's ``NUM_WEIGHTS``) holds the weight sets of the heuristic kinds; random
    seats draw from the generator state ``rng_state`` (:func:`next_uniform`). A game stops
    early where a seat of kind ``OPPONENT_EXTERNAL`` is to choose, or where an episode
    ended (its next one needs opponents). Single-option turns are played for anyone (the
    learner's only with ``skip_forced``). Until a game's ``ended`` is set the learner
    seat's rewards add to ``learner_reward``; the first episode end sets it and keeps the
    learner's view of that end in ``final_obs``.
    """
    out.done[:] = False
    for b in range(games.shape[0]):
        game = games[b]
        mask = out.mask[b]
        while True:
            seat = game.current
            kind = seat_kind[b, seat]
            legal = _legal_count(mask)
            if legal == 1 and (seat != game.learner or skip_forced):
                action = _kth_legal(mask, 0)
            elif seat == game.learner:
                break
            else:
                action = compiled_action(game, p, mask, legal, kind, heuristic_weights, rng_state)
                if action < 0:
                    break
            learner = game.learner
            out.rewards[b, :] = 0.0
            if play(game, p, action):
                finish_hand(game, p, next_seed, out, b)
            if not ended[b]:
                learner_reward[b] += out.rewards[b, learner]
            observe(game, p, game.current, True, out.obs[b])
            legal_mask(game, p, mask)
            if out.done[b]:
                if not ended[b]:
                    ended[b] = True
                    final_obs[b, :] = out.final_obs[b]
                break


# ------------------------------------------------------------------ the Python API
def action_ids(actions: Any) -> np.ndarray:
    """``actions`` as int64 action ids; ValueError for values no id can be (a number past
    int64, None), as for any other bad action."""
    try:
        return np.asarray(actions, np.int64)
    except (OverflowError, TypeError) as error:
        raise ValueError(f"actions must be action ids (integers), got {actions!r}") from error


def engine_params(
    params_class: Any, rules: Any, reward: str, episode: str, learner_seat: int | None
) -> Any:
    """A game's ``Params`` (a NamedTuple of plain numbers for the compiled code): the
    env options (``hand_score_reward``, ``hand_episode``, ``random_learner``,
    ``learner_seat``, as :class:`BatchedEngine` takes them) and the rules' fields of the
    same names as the rest."""
    options = {
        "hand_score_reward": reward == "hand_score",
        "hand_episode": episode == "hand",
        "random_learner": learner_seat is None,
        "learner_seat": learner_seat or 0,
    }
    return params_class(
        **{
            name: options[name] if name in options else getattr(rules, name)
            for name in params_class._fields
        }
    )


class BatchedEngine:
    """B games of one game stepped together; a game's engine subclasses it.

    A subclass sets :attr:`game_dtype`, :attr:`obs_size`, :attr:`encoding` (the game's
    AEC encoding, whose observations the batch gives), :attr:`num_actions`,
    :attr:`max_players`, :attr:`rules_class` and :attr:`params_class` (its ``Params``
    NamedTuple: the rules as plain numbers, passed to every compiled call, by whose type
    the shared loops find the game's :class:`CompiledRules`).

    Args:
        num_games: B.
        rules: the game's rules and variants, one set for every game (None: the defaults).
        reward, episode: as the game's ``raw_env`` (``"match"`` | ``"hand_score"``;
            ``"match"`` | ``"hand"``). A hand episode plays hand
            ``shuffled(range(num_hands), seed, FIRST_HAND_DRAW)[0]``.
        learner_seat: the seat whose view ``final_obs`` shows; None draws it for every
            episode from its seed (``shuffled(range(n), seed, LEARNER_DRAW)[0]``).

    ``games`` is the batch's state, one ``game_dtype`` record per game.
    """

    game_dtype: np.dtype
    obs_size: int
    encoding: Encoding
    num_actions: int
    max_players: int
    rules_class: type
    params_class: type

    def __init__(
        self,
        num_games: int,
        rules: Any = None,
        *,
        reward: str = "match",
        episode: str = "match",
        learner_seat: int | None = 0,
    ) -> None:
        rules = self.rules_class() if rules is None else rules
        if not isinstance(rules, self.rules_class):
            raise ValueError(
                f"rules must be {self.rules_class.__name__}, got {type(rules).__name__}"
            )
        num_players = rules.num_players
        check_choice("reward", reward, REWARD_SCHEMES)
        check_choice("episode", episode, EPISODES)
        if not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        if learner_seat is not None and not 0 <= learner_seat < num_players:
            raise ValueError(f"learner_seat must be a seat from 0 to {num_players - 1} or None")
        self.num_games = num_games
        self.rules = rules
        self.num_players = num_players
        self.params = engine_params(self.params_class, rules, reward, episode, learner_seat)
        self.games = np.zeros(num_games, self.game_dtype)
        self.out = BatchStep.zeros(num_games, self.obs_size, self.num_actions, self.max_players)
        self._next_seed = np.zeros(1, np.uint64)
        self._all = np.ones(num_games, np.bool_)

    def reset(self, seed: int = 0) -> BatchStep:
        """Start game b from seed ``seed + b``; later episodes take the seeds after those."""
        if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
        self._next_seed[0] = seed
        _reset(self.games, self.params, self._next_seed, self.out)
        return self.out

    @property
    def current(self) -> np.ndarray:
        """The seat to act in every game."""
        return self.games["current"]

    @property
    def learner(self) -> np.ndarray:
        """The seat ``final_obs`` shows, per game."""
        return self.games["learner"]

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> BatchStep:
        """Play ``actions[b]`` in every game b (only where ``active``, if given).

        Illegal actions raise ValueError before any game changes.
        """
        actions = action_ids(actions)
        if actions.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {actions.shape}")
        active = self._all if active is None else np.asarray(active, np.bool_)
        if active.shape != (self.num_games,):
            raise ValueError(f"active must have shape ({self.num_games},), got {active.shape}")
        b = _first_illegal(self.out.mask, actions, active)
        if b >= 0:
            raise ValueError(
                f"action {int(actions[b])} is illegal in game {b}; legal ids: "
                f"{np.flatnonzero(self.out.mask[b]).tolist()}"
            )
        _step(self.games, self.params, self._next_seed, actions, active, self.out)
        return self.out

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Every game's observation from ``seats[b]``'s point of view (a new array)."""
        seats = np.asarray(seats, np.int64)
        n = self.num_players
        if seats.shape != (self.num_games,) or not ((seats >= 0) & (seats < n)).all():
            raise ValueError(f"seats must be {self.num_games} seats from 0 to {n - 1}")
        obs = np.zeros((self.num_games, self.obs_size), np.float32)
        observe_all(self.games, self.params, seats, obs)
        return obs


drop_stale_cache(sample_legal)  # before anything compiled is loaded (see numba_cache)

__all__ = [
    "FIRST_HAND_DRAW",
    "LEARNER_DRAW",
    "BatchStep",
    "BatchedEngine",
    "CompiledRules",
    "action_ids",
    "advance_to_learner",
    "end_hand",
    "engine_params",
    "next_uniform",
    "observe_all",
    "sample_legal",
]
