"""The batched engines as Stable-Baselines3 ``VecEnv``s, for MaskablePPO.

The same games as :mod:`spinner_env.batched.vector` (one learner seat per game, batched
opponents, every argument of :class:`~spinner_env.batched.vector.LearnerBatch`), in SB3's
interface: done games carry ``terminal_observation`` in their info, and
``action_masks()`` gives MaskablePPO the legal actions. Kept in the training package
because it loads SB3 (and with it torch), which the environments never do.

    from spinner_env.train.vec_env import SpinnerVecEnv
    venv = SpinnerVecEnv(256, SpinnerRules(num_players=2), opponents="random")
    model = MaskablePPO("MlpPolicy", venv)           # reads venv.action_masks()
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from spinner_env.agents.features import ObservationFeatures
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper

from spinner_env.batched.core import action_ids
from spinner_env.batched.vector import LearnerBatch, Rules
from spinner_env.core.encoding import check_choice
from spinner_env.games import GAMES, game_spec, per_game_subclasses


class BatchedVecEnv(VecEnv):
    """Stable-Baselines3 ``VecEnv`` over :class:`LearnerBatch` (same arguments, plus
    ``seed``); ``action_masks()`` for MaskablePPO. Done games carry
    ``terminal_observation`` and an ``episode`` record (return, length) in their info,
    as SB3's Monitor writes it. ``rules`` picks the game; each game's subclass
    (``SpinnerVecEnv``) fixes it (``rules_class``; None rules are its defaults)."""

    render_mode = None
    rules_class: type | None = None

    def __init__(self, num_envs: int, rules: Rules | None = None, **kwargs: Any) -> None:
        self.batch = LearnerBatch.of_game(self.rules_class, num_envs, rules, **kwargs)
        observation_space, action_space = self.batch.spaces()
        super().__init__(num_envs, observation_space, action_space)
        self._seed: int | None = None
        self._actions = np.zeros(num_envs, np.int64)
        self._returns = np.zeros(num_envs, np.float64)
        self._lengths = np.zeros(num_envs, np.int64)
        self._start = time.time()

    def reset(self) -> np.ndarray:
        self.batch.reset(self._seed)
        self._seed = None
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return self.batch.obs.copy()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seed = seed
        return [None if seed is None else seed + b for b in range(self.num_envs)]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = action_ids(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        batch = self.batch
        batch.step(self._actions)
        self._returns += batch.rewards
        self._lengths += 1
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        elapsed = round(time.time() - self._start, 6)
        for b in np.flatnonzero(batch.dones):
            infos[b]["terminal_observation"] = batch.final_obs[b].copy()
            infos[b]["episode"] = {
                "r": float(self._returns[b]),
                "l": int(self._lengths[b]),
                "t": elapsed,
            }
        self._returns[batch.dones] = 0.0
        self._lengths[batch.dones] = 0
        return (
            batch.obs.copy(),
            batch.rewards.astype(np.float32),
            batch.dones.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """(B, number of actions) booleans: the learner's legal actions."""
        return self.batch.mask != 0

    def close(self) -> None:
        pass

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":  # how sb3-contrib asks a VecEnv for masks
            return list(self.action_masks()[rows])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))


PER_GAME = per_game_subclasses(BatchedVecEnv, "VecEnv", __name__)
"""Each game's :class:`BatchedVecEnv` under the name users import: ``SpinnerVecEnv``,
``MexicanTrainVecEnv`` (named after each registered game's rules class)."""
globals().update(PER_GAME)


class WithFeatures(VecEnvWrapper):
    """Any VecEnv of a game's observations with ``features`` appended to each (terminal
    observations too), as :class:`~spinner_env.agents.policy.PolicyAgent` appends them
    when it plays; the action masks pass through."""

    def __init__(self, venv: VecEnv, features: ObservationFeatures) -> None:
        inner = venv.observation_space
        assert isinstance(inner, spaces.Box)
        extra = features.size - features.obs_size
        space = spaces.Box(
            np.concatenate([inner.low, np.zeros(extra, np.float32)]),
            np.concatenate([inner.high, np.ones(extra, np.float32)]),
            dtype=np.float32,
        )
        super().__init__(venv, observation_space=space)
        self.features = features

    def reset(self) -> np.ndarray:
        return self.features(self.venv.reset())

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self.features(info["terminal_observation"])
        return self.features(obs), rewards, dones, infos


def make_vec_env(
    num_envs: int,
    num_players: int,
    opponents: Any = "random",
    *,
    game: str | None = None,
    learner_seat: int | None = None,
    skip_forced: bool = False,
    reward: str = "match",
    episode: str = "match",
    **rules: Any,
) -> BatchedVecEnv:
    """The ``game``'s VecEnv (None: the default game's) from the arguments its ``raw_env``
    takes (the variant flags go to its rules class): what ``spinner_env.train.ppo`` trains
    on."""
    if game is not None:
        check_choice("game", game, list(GAMES))
    spec = game_spec(game)
    return PER_GAME[spec.class_prefix + "VecEnv"](
        num_envs,
        spec.rules_class(num_players=num_players, **rules),
        opponents=opponents,
        reward=reward,
        episode=episode,
        learner_seat=learner_seat,
        skip_forced=skip_forced,
    )


__all__ = [
    "BatchedVecEnv",
    "WithFeatures",
    "make_vec_env",
    *PER_GAME,
]
