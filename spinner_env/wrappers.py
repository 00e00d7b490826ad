"""A Gymnasium single-agent view of any of the suite's AEC environments.

:class:`SingleAgentEnv` seats one learner at the table and plays every other seat with
opponents (agents from ``agents/``, or anything with the same ``act`` method), so that
ordinary single-agent RL code (Stable-Baselines3, sb3-contrib's MaskablePPO) can train on
a multi-player game::

    from spinner_env.agents import HeuristicAgent
    from spinner_env import spinner_v0
    from spinner_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv(spinner_v0.raw_env(num_players=4), opponents=HeuristicAgent())
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().argmax())

Rewards: a step's reward is everything the AEC environment credited to the learner's seat
between the learner's action and its next turn, or the end of the episode: the learner's
own moves, and every opponent move in between, the final one included. So the learner
receives its end-of-hand and end-of-match rewards even when another seat ends the hand and
the learner never acts again (the loser's reward, which the public PettingZoo + SB3
tutorial wrapper drops, and every other seat's with more than two players).

Seats: ``learner_seat=None`` rotates the learner's seat episode by episode (a reset with a
seed restarts the rotation at seat 0); an int fixes it.

Forced moves: with ``skip_forced`` the learner's turns that have one legal action (a
forced draw or pass) are played for it and never returned, so every step is a decision;
their rewards still reach the learner. Off by default: the env gives every turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from spinner_env.core.encoding import Encoding, action_id, check_choice, checked_seed
from spinner_env.games import GAMES


class Opponent(Protocol):
    """What the wrapper needs of an opponent (every ``spinner_env.agents.Agent`` is one)."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None) -> int: ...

    def seed(self, seed: int | None) -> None: ...


Observation = np.ndarray | dict[str, np.ndarray]
"""The observation vector, or with ``dict_observation`` the AEC env's dict."""

OpponentSampler = Callable[[np.random.Generator, int], Sequence[Opponent]]
"""``sampler(rng, count)``: the opponents of one episode, one per other seat in seat order."""


@dataclass(frozen=True)
class FixedOpponents:
    """The same opponents every episode: an :data:`OpponentSampler` that pickles."""

    opponents: tuple[Opponent, ...]

    def __call__(self, rng: np.random.Generator, count: int) -> Sequence[Opponent]:
        return self.opponents


class SingleAgentEnv(gymnasium.Env):
    """One seat of a turn-based AEC environment as a Gymnasium env with ``action_masks()``.

    Args:
        aec_env: a suite environment (``spinner_v0.raw_env(...)``, or its wrapped ``env``);
            its ``unwrapped`` must expose ``game`` and ``encoding`` (opponents read them).
        opponents: one opponent for every other seat, a list of one per other seat (in
            seat order after the learner), or an :data:`OpponentSampler` called at every
            reset.
        learner_seat: the learner's seat, or None to rotate it.
        skip_forced: play the learner's single-option turns for it (see module docstring).
        illegal_reward: an action outside the mask ends the episode with this reward (so
            that unmasked code cannot corrupt a game; MaskablePPO never does it).
        dict_observation: observations are ``{"observation", "action_mask"}`` dicts, as
            the AEC environment gives them, rather than the vector alone.

    The learner's legal actions are ``action_masks()`` (booleans) and also
    ``info["action_mask"]`` after every reset and step.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        aec_env: AECEnv,
        opponents: Opponent | Sequence[Opponent] | OpponentSampler,
        learner_seat: int | None = None,
        skip_forced: bool = False,
        illegal_reward: float = -1.0,
        dict_observation: bool = False,
    ) -> None:
        super().__init__()
        self.illegal_reward = illegal_reward
        self.aec = aec_env
        self.raw = aec_env.unwrapped
        self.agents = list(self.raw.possible_agents)
        self.num_players = len(self.agents)
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise ValueError(f"learner_seat must be a seat from 0 to {self.num_players - 1}")
        self.fixed_seat = learner_seat
        self.skip_forced = skip_forced
        self._sampler = self._as_sampler(opponents)
        self.dict_observation = dict_observation
        aec_space = self.aec.observation_space(self.agents[0])
        self.observation_space = aec_space if dict_observation else aec_space["observation"]
        self.action_space = self.aec.action_space(self.agents[0])
        assert isinstance(self.action_space, spaces.Discrete)
        self.render_mode = self.raw.render_mode
        self.learner = self.agents[0]
        self.seat_opponents: dict[str, Opponent] = {}
        self._episode = 0
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._illegal = False

    def _as_sampler(self, opponents: Any) -> OpponentSampler:
        if callable(getattr(opponents, "act", None)):
            return FixedOpponents((opponents,) * (self.num_players - 1))
        if callable(opponents):
            return opponents
        fixed = tuple(opponents)
        if len(fixed) != self.num_players - 1:
            raise ValueError(f"{len(fixed)} opponents given for {self.num_players - 1} seats")
        return FixedOpponents(fixed)

    # ----------------------------------------------------------------- the API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        seed = checked_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        self._illegal = False
        n = self.num_players
        while True:
            seat = self.fixed_seat if self.fixed_seat is not None else self._episode % n
            self._episode += 1
            self.learner = self.agents[seat]
            others = [self.agents[(seat + k) % n] for k in range(1, n)]
            chosen = list(self._sampler(self.np_random, n - 1))
            self.seat_opponents = dict(zip(others, chosen, strict=True))
            for opponent in chosen:
                opponent.seed(int(self.np_random.integers(2**63)))
            self.aec.reset(seed=int(self.np_random.integers(2**63)))
            self._advance()
            # An episode the opponents finish before the learner's first turn teaches
            # nothing: deal another.
            if not self._over():
                break
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self._over():
            raise RuntimeError("step() after the episode ended: call reset()")
        action = action_id(action)
        if not (0 <= action < len(self._mask) and self._mask[action]):
            # As PettingZoo's TerminateIllegalWrapper does: the episode ends, penalised.
            self._illegal = True
            obs = self._observe()
            return obs, self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        reward = self._play(action) + self._advance()
        return self._observe(), reward, self._over(), False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (what MaskablePPO asks for)."""
        return self._mask.copy()

    def render(self) -> str | np.ndarray | None:
        """The AEC env's render: text, or with ``rgb_array`` a picture (for ``RecordVideo``)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # -------------------------------------------------------------- internals
    def _over(self) -> bool:
        return self._illegal or bool(
            self.aec.terminations[self.learner] or self.aec.truncations[self.learner]
        )

    def _play(self, action: int) -> float:
        """One AEC step by the seat to act; the learner's share of its rewards."""
        self.aec.step(action)
        return float(self.aec.rewards.get(self.learner, 0.0))

    def _advance(self) -> float:
        """Play until the learner has a decision to make or the episode is over."""
        reward = 0.0
        while not self._over():
            agent = self.aec.agent_selection
            legal = self.raw.legal_actions()
            if agent == self.learner:
                if not (self.skip_forced and len(legal) == 1):
                    break
                reward += self._play(legal[0])
            elif len(legal) == 1:
                reward += self._play(legal[0])
            else:
                obs = self.aec.observe(agent)
                opponent = self.seat_opponents[agent]
                action = opponent.act(obs["observation"], obs["action_mask"], self.raw)
                reward += self._play(action)
        return reward

    def _observe(self) -> Observation:
        obs = self.aec.observe(self.learner)
        self._mask = obs["action_mask"].astype(bool)
        return obs if self.dict_observation else obs["observation"]

    def _info(self) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self.learner, {}))
        info["learner_seat"] = self.agents.index(self.learner)
        info["action_mask"] = self.action_masks()
        return info


def single_agent_env(
    game: str,
    opponents: str | Sequence[str] | Opponent | Sequence[Opponent] | OpponentSampler = "random",
    learner_seat: int | None = None,
    skip_forced: bool = False,
    illegal_reward: float = -1.0,
    dict_observation: bool = False,
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """A :class:`SingleAgentEnv` of ``game`` (a name of ``spinner_env.games.GAMES``) built
    from the game's
    ``raw_env`` arguments (``env_kwargs``): what ``gym.make("spinner_env/Spinner-v0")``
    and ``gym.make("spinner_env/MexicanTrain-v0")`` call.

    ``opponents`` may also name agents as ``spinner_env.agents.make_agent`` reads them
    (``"random"``, ``"greedy"``, ``"heuristic"``, ``"checkpoint"`` or a policy file), one
    name for every other seat or a list of one per seat.
    """
    check_choice("game", game, list(GAMES))
    aec_env = GAMES[game].raw_env(**env_kwargs)
    if isinstance(opponents, str):
        opponents = _named_opponent(opponents, aec_env.encoding)
    elif isinstance(opponents, (list, tuple)):
        opponents = [
            _named_opponent(o, aec_env.encoding) if isinstance(o, str) else o for o in opponents
        ]
    return SingleAgentEnv(
        aec_env,
        opponents,
        learner_seat=learner_seat,
        skip_forced=skip_forced,
        illegal_reward=illegal_reward,
        dict_observation=dict_observation,
    )


def _named_opponent(spec: str, encoding: Encoding) -> Opponent:
    # Imported here: the agents (and torch, for trained ones) load only when named.
    from spinner_env.agents import make_agent

    return make_agent(spec, encoding=encoding)
