"""The PettingZoo AEC environment machinery shared by every game of the suite.

A game's environment module supplies an :class:`~spinner_env.core.encoding.Encoding`
(action ids and observation vectors) and a function that builds its rules engine;
:class:`DominoAECEnv` turns them into a PettingZoo classic environment: agents
``player_0..player_{n-1}``, Dict observations of ``observation`` and ``action_mask``,
rewards, episodes, rendering.
"""

from __future__ import annotations

import inspect
import warnings
from abc import ABC
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, NoReturn

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from spinner_env.core.encoding import (
    EPISODES,
    RENDER_MODES,
    REWARD_SCHEMES,
    Encoding,
    action_id,
    as_action_id,
    check_choice,
    checked_seed,
    hand_score_difference,
    zero_sum_outcome,
)
from spinner_env.core.match import MatchState


class DominoAECEnv(AECEnv, ABC):
    """A turn-based domino game as a PettingZoo AEC environment.

    Subclasses set ``metadata``, ``encoding``, ``state_class`` (the game's
    :class:`MatchState`, built by ``state_class.new(rules, seed, hand_number)``) and
    ``renderer`` (a ``staticmethod`` drawing a state as text), and pass their rules
    object, whose fields are the constructor's game arguments, and any other keyword
    arguments they were given (``unknown``: rejected with a ValueError). Illegal or out-of-range
    actions raise ValueError and leave the environment unchanged; each game's ``env()``
    wraps this class in :class:`ClassicWrapper` instead.
    """

    encoding: Encoding
    state_class: type[MatchState]
    renderer: Callable[[Any, int | None], str]

    def __init__(
        self,
        rules: Any,
        reward: str,
        episode: str,
        render_mode: str | None,
        unknown: dict[str, Any],
    ) -> None:
        if unknown:
            known = [*asdict(rules), "reward", "episode", "render_mode"]
            raise ValueError(
                f"unknown argument(s) {', '.join(sorted(unknown))} for "
                f"{self.metadata['name']}; it takes {', '.join(known)}"
            )
        super().__init__()
        check_choice("reward", reward, REWARD_SCHEMES)
        check_choice("episode", episode, EPISODES)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.rules = rules
        self.num_players = num_players = rules.num_players
        self.reward_scheme = reward
        self.episode = episode
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.agents = list(self.possible_agents)
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        enc = self.encoding
        obs_space = spaces.Dict(
            {
                "observation": enc.observation_space(),
                "action_mask": spaces.Box(0, 1, (enc.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(enc.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = enc.state_space()
        self.game: Any = None
        self._legal_ids: list[int] = []
        self._memo = self.encoding.new_memo()
        self._np_random_seed: int | None = None

    # --------------------------------------------------------------- game hooks
    def _new_game(self, seed: int, hand_number: int) -> MatchState:
        """A fresh match from ``seed`` whose first hand is ``hand_number``."""
        return self.state_class.new(self.rules, seed=seed, hand_number=hand_number)

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- the API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode; ``options={"game": state}`` starts from a copy of that state."""
        seed = checked_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {options!r}")
        unknown = set(options or {}) - {"game"}
        if unknown:
            # A warning, not an error: PettingZoo's api_test resets with options={"options": 1}.
            warnings.warn(
                f"unknown reset option(s) {', '.join(map(repr, sorted(unknown)))} ignored; "
                "the only option is 'game'",
                stacklevel=2,
            )
        if seed is not None or self._np_random_seed is None:
            self.np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        game_seed = int(self.np_random.integers(2**62))
        first_hand = 0
        if self.episode == "hand":
            first_hand = int(self.np_random.integers(self.rules.num_hands))
        self.game = self._new_game(game_seed, first_hand)
        start = (options or {}).get("game")
        if start is not None:
            self.game = self._checked_start(start)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._refresh_turn()

    def _checked_start(self, start: Any) -> MatchState:
        """A copy of a caller's game state to start from (``reset(options={"game": ...})``)."""
        if not isinstance(start, type(self.game)):
            raise ValueError(
                f'options["game"] must be a {type(self.game).__name__}, got {type(start).__name__}'
            )
        start.validate()
        if start.rules != self.rules:
            ours, theirs = asdict(self.rules), asdict(start.rules)
            differ = [f"{k} {theirs[k]!r} (env: {v!r})" for k, v in ours.items() if theirs[k] != v]
            raise ValueError("the game's rules differ from the environment's: " + ", ".join(differ))
        if start.hand_over:
            raise ValueError("the game to start from has its hand already over")
        return start.copy()

    def _refresh_turn(self) -> None:
        self.agent_selection = self.possible_agents[self.game.current]
        # A list: a turn has a few legal moves, which a list holds and searches fastest.
        self._legal_ids = self.encoding.action_ids(self.game.legal_moves())

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        mask = bytearray(self.encoding.num_actions)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            # This runs every decision: one store per legal move into a bytearray, which
            # costs a fraction of a store into an ndarray, handed out as int8 uncopied.
            for action in self._legal_ids:
                mask[action] = 1
        return {
            "observation": self.encoding.observation(self.game, seat, self._memo),
            "action_mask": np.frombuffer(mask, np.int8),
        }

    def state(self) -> np.ndarray:
        return self.encoding.state(self.game)

    def legal_actions(self) -> list[int]:
        """The action ids the acting agent may take now."""
        return sorted(self._legal_ids)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._play(agent, self._checked_move(action))

    def _play(self, agent: str, move: Any) -> None:
        """Play a legal move of the acting ``agent`` and settle rewards and the next turn."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.game.play_legal(move)
        if self.game.hand_over:
            # Rewards are only ever paid at the end of a hand.
            self._finish_hand()
            self._accumulate_rewards()
        if not self.terminations[agent]:
            self._refresh_turn()
        if self.render_mode == "human":
            self.render()

    def _checked_move(self, action: Any) -> Any:
        action = action_id(action)
        if not 0 <= action < self.encoding.num_actions:
            raise ValueError(
                f"action {action} is out of range: "
                f"ids run from 0 to {self.encoding.num_actions - 1}"
            )
        if action not in self._legal_ids:
            raise ValueError(
                f"action {action} ({self.encoding.move_of(action)}) is illegal for "
                f"{self.agent_selection}; legal ids: {self.legal_actions()}"
            )
        return self.encoding.move_of(action)

    def _finish_hand(self) -> None:
        game = self.game
        result = game.results[-1]
        # Kept until the next hand ends, so every agent can read it at its next turn.
        for info in self.infos.values():
            info["hand_result"] = {"winner": result.winner, "points": list(result.points)}
        if self.reward_scheme == "hand_score":
            self._add_rewards(hand_score_difference(result.points))
        episode_over = self.episode == "hand" or game.match_over
        if episode_over:
            if self.reward_scheme == "match":
                totals = result.points if self.episode == "hand" else game.totals
                self._add_rewards(zero_sum_outcome(totals))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            game.start_next_hand()

    def _add_rewards(self, values: Sequence[float]) -> None:
        for seat, value in enumerate(values):
            self.rewards[self.possible_agents[seat]] += value

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        viewer = None if all(self.terminations.values()) else self.game.current
        if self.render_mode == "rgb_array":
            # Pillow is loaded only by those who ask for pictures.
            from spinner_env.picture import table_picture

            return table_picture(self.game, viewer)
        text = self.renderer(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class ClassicWrapper(OrderEnforcingWrapper):
    """PettingZoo's classic wrapper stack, in one layer.

    Behaves as ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(env, illegal_reward=-1)))``, the stack of PettingZoo's
    classic environments: calls out of order raise, an out-of-range action fails an
    assertion, and an illegal action ends the episode with reward -1 for the player who
    took it and 0 for the others. Each of those layers reaches the environment's
    attributes through ``__getattr__``, which cost a quarter of a decision's time in
    ``bench/bench_aec.py``; here the attributes a loop reads every decision are plain
    properties.
    """

    env: DominoAECEnv

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            self._refuse_before_reset("agent_selection")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            self._refuse_before_reset("agents")
        return self.env.agents

    @property
    def rewards(self) -> dict[str, float]:
        if not self._has_reset:
            self._refuse_before_reset("rewards")
        return self.env.rewards

    @property
    def terminations(self) -> dict[str, bool]:
        if not self._has_reset:
            self._refuse_before_reset("terminations")
        return self.env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        if not self._has_reset:
            self._refuse_before_reset("truncations")
        return self.env.truncations

    @property
    def infos(self) -> dict[str, dict]:
        if not self._has_reset:
            self._refuse_before_reset("infos")
        return self.env.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def _refuse_before_reset(self, name: str) -> NoReturn:
        # Called once _has_reset is found false: the properties above run at every
        # decision, and testing the flag there themselves saves them a call.
        raise AttributeError(f"{name} cannot be accessed before reset")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        if not self._has_reset:
            self._refuse_before_reset("last")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        env = self.env
        agent = env.agent_selection
        if type(action) is not int:  # a plain int, what most loops pass, is an id already
            as_id = as_action_id(action)
            action = action if as_id is None else as_id  # the space check below judges the rest
        dead = env.terminations[agent] or env.truncations[agent]
        num_actions = env.encoding.num_actions
        if not (action is None and dead) and not (
            0 <= action < num_actions if type(action) is int else _in_range(action, num_actions)
        ):
            raise ValueError(
                f"action {action!r} is out of range: ids run from 0 to {num_actions - 1}"
            )
        if dead:
            env._was_dead_step(action)
        elif action not in env._legal_ids:
            EnvLogger.warn_on_illegal_move()
            env._cumulative_rewards[agent] = 0
            env.terminations = dict.fromkeys(env.agents, True)
            env.truncations = dict.fromkeys(env.agents, True)
            env.rewards = dict.fromkeys(env.agents, 0)
            env.rewards[agent] = -1.0
            env._accumulate_rewards()
            env._deads_step_first()
        else:
            env._play(agent, env.encoding.actions[action])  # in range and legal: checked here


def _in_range(action: Any, num_actions: int) -> bool:
    """``Discrete(num_actions).contains(action)``, with a fast path for plain integers."""
    if isinstance(action, int) and not isinstance(action, bool):
        return 0 <= action < num_actions
    return spaces.Discrete(num_actions).contains(action)


def make_wrapped(raw_env_class: Callable[..., DominoAECEnv]) -> Callable[..., AECEnv]:
    """The ``env()`` constructor of a game: the raw env in :class:`ClassicWrapper`."""

    def env(**kwargs: Any) -> AECEnv:
        return ClassicWrapper(raw_env_class(**kwargs))

    # help() and IDEs show the raw env's arguments, not **kwargs (its **unknown only
    # collects misspelt names to refuse them).
    signature = inspect.signature(raw_env_class)
    env.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD],
        return_annotation=AECEnv,
    )
    raw_doc = inspect.getdoc(raw_env_class) or ""
    arguments = raw_doc[raw_doc.find("Args:") :] if "Args:" in raw_doc else ""
    env.__doc__ = (
        f"{raw_env_class.__name__} wrapped as PettingZoo's classic envs are.\n\n{arguments}"
    ).strip()
    return env
