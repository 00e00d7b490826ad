"""The batched engines as Gymnasium vector envs, one learner seat per game.

Each of the B games seats one learner; every other seat is played by a batched opponent
policy, so a step is one learner decision in every game, exactly as
:class:`spinner_env.wrappers.SingleAgentEnv` gives it for one game: the reward is
everything the learner's seat was credited from its action up to its next decision or
the episode's end (opponents' moves included), forced turns of the learner may be played
for it (``skip_forced``), and a game whose episode ends restarts at once from the next
seed (``final_obs`` in the infos).

    from spinner_env.batched.vector import SpinnerVectorEnv
    env = SpinnerVectorEnv(256, SpinnerRules(num_players=2), opponents="random")
    obs, info = env.reset(seed=0)                    # info["action_mask"]: legal actions

The same adapter plays every game of :data:`spinner_env.games.GAMES` on its batched engine
(:class:`LearnerBatch` picks the game by its rules' type; each game's subclass, such as
``SpinnerVectorEnv``, fixes it), with its own compiled players (its record's
``opponents()``). Stable-Baselines3's ``VecEnv`` over the same :class:`LearnerBatch` is
:mod:`spinner_env.train.vec_env`: this module loads numba, but neither torch nor SB3.

Opponents are batched policies (``act_batch(obs, mask) -> actions``): :class:`RandomPolicy`,
:class:`GreedyPolicy`, each game's compiled heuristic (``heuristic_policy`` of its
compiled players), ``spinner_env.agents.PolicyAgent`` (a trained policy or a self-play
snapshot: its numpy forward pass over the batch), :class:`MaskablePPOPolicy` (any other
MaskablePPO policy), or the agents of ``agents/``, converted by :func:`as_batched`. A
player that declares a compiled twin for the rules (``compiled_twin(rules)``, a
``spinner_env.games.CompiledPlayer``: random, greedy, the heuristics and the experts a
game compiles, with any weights) is played inside the compiled loop
(``spinner_env.batched.core.advance_to_learner``). Any other agent (the search players, an
expert a game does not compile) plays as itself: :class:`AgentPolicy` reads each game's
reference state back from its record and asks the agent, one game at a time, at the
agent's own speed. Each game's engine, opponents and records are reached through its
``spinner_env.games.GameSpec``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from spinner_env.agents import BASELINES
from spinner_env.batched.core import (
    KIND_OF,
    OPPONENT_EXTERNAL,
    OPPONENT_HEURISTIC,
    action_ids,
    advance_to_learner,
    sample_legal,
)
from spinner_env.core.agent import Agent, GameView
from spinner_env.games import CompiledPlayer, default_game, game_of_rules, per_game_subclasses

Rules = Any
"""A game's rules: an instance of its record's ``rules_class`` (``SpinnerRules``), which
picks the game; None where accepted means the default game's default rules."""


class BatchedPolicy(Protocol):
    """Chooses one legal action per row: ``act_batch(obs (m, obs size), mask (m, actions))``."""

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class RandomPolicy:
    """Uniform over the legal actions (``spinner_env.agents.RandomAgent``, batched)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        """Draw from ``seed`` from now on (a batch reseeds its policies with its own)."""
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return sample_legal(mask, self.rng.random(len(mask)))

    def compiled_twin(self, rules: Rules) -> CompiledPlayer:
        return CompiledPlayer("random")


class GreedyPolicy:
    """The heaviest legal tile, the lowest action id among equals
    (``spinner_env.agents.GreedyAgent``).

    ``points[a]`` is the points of action a's tile (-1 for draw and pass), what the game's
    compiled greedy maximises (``greedy_points(rules)`` of its compiled players); None:
    the default game's, under its default rules.
    """

    name = "greedy"

    def __init__(self, points: np.ndarray | None = None) -> None:
        if points is None:
            game = default_game()
            points = game.opponents().greedy_points(game.rules_class())
        self.points = points

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(np.where(mask != 0, self.points, -2), axis=1)

    def compiled_twin(self, rules: Rules) -> CompiledPlayer | None:
        """The compiled greedy, where it maximises these points under ``rules``."""
        same = np.array_equal(self.points, game_of_rules(rules).opponents().greedy_points(rules))
        return CompiledPlayer("greedy") if same else None


class MaskablePPOPolicy:
    """A MaskablePPO policy: its most likely legal action, or a sample of it. (Its
    ``predict`` runs without gradients itself, so this module needs no torch.)"""

    def __init__(self, policy: Any, deterministic: bool = True, name: str = "policy") -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.name = name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions, _ = self.policy.predict(
            obs, deterministic=self.deterministic, action_masks=mask != 0
        )
        return np.asarray(actions, np.int64)


class AgentPolicy:
    """An agent of ``agents/`` that no compiled or numpy policy plays as (a search player,
    the Mexican Train expert, an agent of your own), playing in batched games: for each
    game waiting on it, the reference state is read back from the game's record
    (``state_of`` of :mod:`~spinner_env.games.spinner.rollout` or
    :mod:`~spinner_env.games.mexican_train.rollout`) and the agent is asked as the AEC
    environment asks it (observation, action mask, engine view). It decides one game at a
    time at the agent's own speed, while the engine and the compiled opponents keep
    theirs. A :class:`LearnerBatch` asks it through :meth:`LearnerBatch.actions_of`, which
    hands it the records (:meth:`act_games`)."""

    def __init__(self, agent: Any, rules: Rules) -> None:
        game = game_of_rules(rules)
        plays = getattr(agent, "plays", ())
        if plays and game.state_class not in plays:
            raise ValueError(
                f"{agent!r} plays {', '.join(c.__name__ for c in plays)} only, "
                f"not {game.state_class.__name__}"
            )
        made_for = getattr(agent, "num_actions", None)
        if made_for not in (None, game.encoding.num_actions):
            raise ValueError(
                f"{agent!r} is made for a game of {made_for} actions, not "
                f"{game.encoding.num_actions} ({game.state_class.__name__})"
            )
        self.agent = agent
        self.rules = rules
        self.name = getattr(agent, "name", "agent")
        self._state_of = game.rollouts().state_of
        self._encoding = game.encoding

    def seed(self, seed: int) -> None:
        self.agent.seed(seed)

    def act_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The agent's action in each of ``games`` (records), for its seat to act, whose
        observations and masks are ``obs`` and ``mask``."""
        actions = np.zeros(len(games), np.int64)
        for i, record in enumerate(games):
            # The records are the engine's own, held to the reference engine by the tests.
            state = self._state_of(record, self.rules, False)
            actions[i] = self.agent.act(obs[i], mask[i], GameView(state, self._encoding))
        return actions


def compiled_twin(player: Any, rules: Rules) -> CompiledPlayer | None:
    """The compiled twin ``player`` declares for ``rules`` (its ``compiled_twin``), or None:
    agents and the batched policies of this module declare theirs, any other player has
    none."""
    declare = getattr(player, "compiled_twin", None)
    return None if declare is None else declare(rules)


def as_batched(opponent: Any, rules: Rules | None = None) -> BatchedPolicy | AgentPolicy:
    """A batched policy that plays as ``opponent`` does in the game of ``rules`` (None:
    the default game's default rules).

    Accepts a batched policy (``PolicyAgent`` is one), a baseline's name (``"random"``,
    ``"greedy"``, ``"heuristic"``, ``"expert"``: the agent with its default weights),
    anything with a MaskablePPO ``policy`` (a model), or an agent of ``agents/``. An agent
    whose compiled twin (``Agent.compiled_twin``) plays these rules plays compiled
    (random, greedy, the heuristic and, where the game compiles it, the expert, with their
    weights); any other agent (the search players, an expert with no compiled twin) plays
    as itself through the
    reference state (:class:`AgentPolicy`), unless it is made for another game
    (ValueError).
    """
    if callable(getattr(opponent, "act_batch", None)):
        return opponent
    rules = default_game().rules_class() if rules is None else rules
    if hasattr(opponent, "policy"):
        deterministic = getattr(opponent, "deterministic", True)
        return MaskablePPOPolicy(
            opponent.policy, deterministic, getattr(opponent, "name", "policy")
        )
    if isinstance(opponent, str) and opponent in BASELINES:
        opponent = BASELINES[opponent]()
    if not isinstance(opponent, Agent):
        raise ValueError(
            f"{opponent!r} cannot play in the batched env: it is neither a batched policy, "
            "a baseline's name, a MaskablePPO model nor an agent of spinner_env.agents"
        )
    twin = opponent.compiled_twin(rules)
    if twin is None:
        return opponent.batched_twin(rules) or AgentPolicy(opponent, rules)
    if twin.kind == "random":
        return RandomPolicy(int(opponent.rng.integers(2**63)))
    opponents = game_of_rules(rules).opponents()
    if twin.kind == "greedy":
        return GreedyPolicy(opponents.greedy_points(rules))
    return opponents.heuristic_policy(twin.weights, opponent.name, rules)


OpponentSampler = Callable[[np.random.Generator, int], Sequence[Any]]
"""``sampler(rng, count)``: one episode's opponents, one per other seat (as in wrappers)."""


class LearnerBatch:
    """B games, each with a learner seat and batched opponents; the adapters' core.

    Args:
        num_envs: B.
        rules: the rules and variants, an instance of a game's ``rules_class``
            (``SpinnerRules``), which picks the game; None: the default game's.
        opponents: one opponent for every seat (anything :func:`as_batched` takes), or an
            :data:`OpponentSampler` called for every new episode of every game. Several
            heuristics with different weights may share a pool: each weight set is a
            row of ``heuristic_weights``, played by its own compiled kind (so do experts,
            and heuristics and experts mix).
        reward, episode: as the game's ``raw_env``.
        learner_seat: a fixed seat, or None to draw it for every episode from its seed.
        skip_forced: play the learner's turns that have one legal action for it.
    """

    def __init__(
        self,
        num_envs: int,
        rules: Rules | None = None,
        opponents: Any = "random",
        *,
        reward: str = "match",
        episode: str = "match",
        learner_seat: int | None = None,
        skip_forced: bool = False,
    ) -> None:
        # The game's record and modules are looked up, not kept: the batch stays picklable.
        game = game_of_rules(rules)
        self.engine = game.engine()(
            num_envs, rules, reward=reward, episode=episode, learner_seat=learner_seat
        )
        self.rules = self.engine.rules
        self.num_envs = num_envs
        self.num_players = self.engine.rules.num_players
        self.skip_forced = skip_forced
        self._policies: list[BatchedPolicy | AgentPolicy] = []
        self._kinds = np.zeros(0, np.int64)  # OPPONENT_* of each policy
        self.heuristic_weights = np.zeros((0, game.opponents().NUM_WEIGHTS), np.float64)
        # id(opponent) -> (policy index, opponent): holding the opponent keeps its id unique.
        self._policy_index: dict[int, tuple[int, Any]] = {}
        self._sampler: OpponentSampler | None = None
        self.rng = np.random.default_rng()
        self._compiled_rng = np.zeros(1, np.uint64)  # the compiled random opponents' state
        if callable(opponents) and not callable(getattr(opponents, "act_batch", None)):
            self._sampler = opponents
        else:
            self._add_policy(as_batched(opponents, self.rules))  # policy 0, at every seat
        self._seat_policy = np.zeros((num_envs, self.num_players), np.int64)
        self._seat_kind = np.full_like(self._seat_policy, OPPONENT_EXTERNAL)
        if self._sampler is None:
            self._seat_kind[:] = self._kinds[0]
        self.rewards = np.zeros(num_envs, np.float64)
        self.dones = np.zeros(num_envs, np.bool_)
        self.final_obs = np.zeros((num_envs, self.engine.obs_size), np.float32)

    @property
    def obs(self) -> np.ndarray:
        """The learner's observation in every game (waiting on its decision)."""
        return self.engine.out.obs

    @property
    def mask(self) -> np.ndarray:
        """The learner's legal actions in every game, as 0/1 int8."""
        return self.engine.out.mask

    @classmethod
    def of_game(
        cls, rules_class: type | None, num_envs: int, rules: Rules | None, **kwargs: Any
    ) -> LearnerBatch:
        """The batch of an adapter that plays only the game of ``rules_class`` (None
        rules: its defaults), or (None ``rules_class``) the game of ``rules``."""
        if rules_class is None:
            return cls(num_envs, rules, **kwargs)
        rules = rules_class() if rules is None else rules
        if not isinstance(rules, rules_class):
            raise ValueError(f"rules must be {rules_class.__name__}, got {type(rules).__name__}")
        return cls(num_envs, rules, **kwargs)

    def spaces(self) -> tuple[spaces.Box, spaces.Discrete]:
        """One game's observation and action spaces."""
        return self.engine.encoding.observation_space(), spaces.Discrete(self.engine.num_actions)

    def reset(self, seed: int | None = None) -> None:
        """New episodes everywhere, game b from seed ``seed + b`` (random if None)."""
        if seed is None:
            seed = int(np.random.default_rng().integers(2**62))
        self.rng = np.random.default_rng(seed)
        self._compiled_rng[0] = self.rng.integers(2**63)
        for policy in self._policies:
            self._seed_policy(policy)
        self.engine.reset(seed)
        self._deal_opponents(np.arange(self.num_envs))
        self.dones[:] = True  # what the opponents' first moves give belongs to no step
        self._advance()
        self.rewards[:] = 0.0
        self.dones[:] = False

    def step(self, actions: np.ndarray) -> None:
        """The learner's action in every game, then the others' until its next decision."""
        self.rewards[:] = 0.0
        self.dones[:] = False
        self._play(action_ids(actions), None)
        self._advance()

    def _play(self, actions: np.ndarray, active: np.ndarray | None) -> None:
        engine = self.engine
        learner = engine.learner.copy()
        out = engine.step(actions, active)
        live = ~self.dones
        self.rewards[live] += out.rewards[live, learner[live]]
        ended = np.flatnonzero(out.done)
        if ended.size:
            first = ended[live[ended]]
            self.final_obs[first] = out.final_obs[first]
            self.dones[ended] = True
            self._deal_opponents(ended)

    def _advance(self) -> None:
        """Play the other seats (and forced turns) until every game awaits the learner.

        Compiled opponents and forced moves run in :func:`advance_to_learner`; Python
        steps in only for opponents it cannot play (trained policies) and to deal the
        opponents of a new episode. An episode that ends before the learner's next
        decision, in a game already done this step, is dealt again unseen, as
        ``SingleAgentEnv.reset`` does.
        """
        engine = self.engine
        games = np.arange(self.num_envs)
        while True:
            advance_to_learner(
                engine.games,
                engine.params,
                engine._next_seed,
                engine.out,
                self._seat_kind,
                self.heuristic_weights,
                self._compiled_rng,
                self.skip_forced,
                self.rewards,
                self.dones,
                self.final_obs,
            )
            restarted = np.flatnonzero(engine.out.done)
            self._deal_opponents(restarted)
            current = engine.current.astype(np.int64)
            policy_of = self._seat_policy[games, current]
            external = (current != engine.learner) & (
                self._seat_kind[games, current] == OPPONENT_EXTERNAL
            )
            if not external.any():
                if restarted.size:
                    continue
                return
            actions = np.zeros(self.num_envs, np.int64)
            for k in np.unique(policy_of[external]):
                rows = np.flatnonzero(external & (policy_of == k))
                actions[rows] = self.actions_of(self._policies[k], rows)
            self._play(actions, external)

    def actions_of(
        self, policy: BatchedPolicy | AgentPolicy, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """What ``policy`` plays for the seat to act in games ``rows`` (None: every game):
        a batched policy reads their observations and masks, an :class:`AgentPolicy` the
        game records too. The learner's actions, where the learner is such a policy."""
        rows = np.arange(self.num_envs) if rows is None else rows
        out = self.engine.out
        if isinstance(policy, AgentPolicy):
            return policy.act_games(self.engine.games[rows], out.obs[rows], out.mask[rows])
        return np.asarray(policy.act_batch(out.obs[rows], out.mask[rows]), np.int64)

    def _deal_opponents(self, games: np.ndarray) -> None:
        if self._sampler is None or not games.size:
            return
        n = self.num_players
        learner = self.engine.learner
        for b in games:
            chosen = self._sampler(self.rng, n - 1)
            for k, opponent in enumerate(chosen, start=1):
                self._seat_policy[b, (learner[b] + k) % n] = self._index_of(opponent)
        self._seat_kind[games] = self._kinds[self._seat_policy[games]]

    def _index_of(self, opponent: Any) -> int:
        key = id(opponent)
        if key not in self._policy_index:
            self._policy_index[key] = (len(self._policies), opponent)
            self._add_policy(as_batched(opponent, self.rules))
        return self._policy_index[key][0]

    def _add_policy(self, policy: BatchedPolicy | AgentPolicy) -> None:
        self._policies.append(policy)
        self._seed_policy(policy)
        twin = compiled_twin(policy, self.rules)
        kind = OPPONENT_EXTERNAL if twin is None else KIND_OF[twin.kind]
        if twin is not None and twin.weights is not None:  # a heuristic: its weights' row
            same = np.flatnonzero((self.heuristic_weights == twin.weights).all(axis=1))
            if same.size == 0:
                self.heuristic_weights = np.vstack([self.heuristic_weights, twin.weights])
            row = int(same[0]) if same.size else len(self.heuristic_weights) - 1
            kind = OPPONENT_HEURISTIC + row
        self._kinds = np.append(self._kinds, kind)

    def _seed_policy(self, policy: BatchedPolicy | AgentPolicy) -> None:
        """Policies with randomness of their own (a sampling ``PolicyAgent``) draw it from
        the batch's generator, so that a seed replays the games (as ``SingleAgentEnv``
        reseeds its opponents)."""
        if callable(getattr(policy, "seed", None)):
            policy.seed(int(self.rng.integers(2**63)))


class BatchedVectorEnv(gymnasium.vector.VectorEnv):
    """Gymnasium vector env over :class:`LearnerBatch` (same arguments: ``rules`` picks
    the game); each game's subclass (``SpinnerVectorEnv``) fixes it (``rules_class``).

    Autoreset is same-step: a done game's returned observation is its new episode's, and
    ``infos["final_obs"]`` (with ``infos["_final_obs"]``) holds the ended one's.
    ``infos["action_mask"]`` and :meth:`action_masks` give the legal actions.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    rules_class: type | None = None

    def __init__(self, num_envs: int, rules: Rules | None = None, **kwargs: Any) -> None:
        self.batch = LearnerBatch.of_game(self.rules_class, num_envs, rules, **kwargs)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = self.batch.spaces()
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self.batch.reset(seed)
        return self.batch.obs.copy(), {"action_mask": self.action_masks()}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        batch = self.batch
        batch.step(actions)
        dones = batch.dones.copy()
        infos: dict[str, Any] = {"action_mask": self.action_masks()}
        if dones.any():
            infos["final_obs"] = np.where(dones[:, None], batch.final_obs, 0.0)
            infos["_final_obs"] = dones
        return batch.obs.copy(), batch.rewards.copy(), dones, np.zeros_like(dones), infos

    def action_masks(self) -> np.ndarray:
        return self.batch.mask != 0


PER_GAME = per_game_subclasses(BatchedVectorEnv, "VectorEnv", __name__)
"""Each game's :class:`BatchedVectorEnv` under the name users import: ``SpinnerVectorEnv``,
``MexicanTrainVectorEnv`` (named after each registered game's rules class)."""
globals().update(PER_GAME)

__all__ = [
    "AgentPolicy",
    "BatchedPolicy",
    "BatchedVectorEnv",
    "GreedyPolicy",
    "LearnerBatch",
    "MaskablePPOPolicy",
    "RandomPolicy",
    "as_batched",
    "compiled_twin",
    *PER_GAME,
]
