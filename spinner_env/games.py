"""The suite's games, one record each: every layer reaches a game through :data:`GAMES`.

A :class:`GameSpec` holds what the other layers need of its game: the PettingZoo env class
(a ``DominoAECEnv``: it validates the rules arguments and knows its rules engine's state
class and its encoding), the rules class, the registered ids, the fuzzers' random rules,
and the import paths of the layers that load numba or torch (the batched engine, its
compiled opponents, its rollouts, the SB3 VecEnv), loaded on first use so that importing
``spinner_env`` loads neither.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.aec import DominoAECEnv
from spinner_env.core.encoding import Encoding
from spinner_env.core.match import MatchState
from spinner_env.mexican_train import MexicanTrainRules
from spinner_env.spinner import SpinnerRules


@dataclass(frozen=True)
class GameSpec:
    """A game of the suite: what every layer needs of it (module docstring).

    ``rules`` keyword arguments are the env's own (``num_hands``, variant flags). Fields
    named ``*_path`` are ``module`` or ``module:attribute`` import paths, loaded by the
    methods of the same name without the suffix.
    """

    name: str
    """The name configs, command lines and policy files' callers use (``spinner``)."""
    raw_env: Callable[..., DominoAECEnv]
    rules_class: type
    gym_id: str
    """The Gymnasium id of its single-agent view (``spinner_env/Spinner-v0``)."""
    aec_id: str
    """The PettingZoo registry id of its AEC env (``spinner_env/spinner-v0``)."""
    random_rules: Callable[[random.Random, int], Any]
    """``random_rules(rng, num_players)``: rules with random variants (the fuzzers')."""
    engine_path: str
    """Its batched engine class (``spinner_env.batched.core.BatchedEngine``)."""
    opponents_path: str
    """Its compiled opponents' module: ``compiled_action`` (a compiled seat's move, which
    the shared loops of ``spinner_env.batched.core`` call), ``greedy_points(rules)``
    (what its compiled greedy maximises),
    ``heuristic_policy(weights, name, rules)`` (the batched policy of its compiled
    heuristic) and ``NUM_WEIGHTS`` (the length of that heuristic's weights)."""
    rollouts_path: str
    """Its ``spinner_env.batched.rollout.BatchedRollouts`` subclass, whose ``state_of``
    reads a record back as the reference state."""
    vec_env_path: str
    """Its Stable-Baselines3 VecEnv (``spinner_env.train.vec_env``)."""

    @property
    def encoding(self) -> Encoding:
        return self.raw_env.encoding

    @property
    def state_class(self) -> type[MatchState]:
        return self.raw_env.state_class

    @property
    def env_module(self) -> ModuleType:
        """The PettingZoo module (``spinner_v0``): ``env``, ``raw_env``, ``ENCODING``."""
        return importlib.import_module(self.raw_env.__module__)

    def new_state(self, num_players: int, seed: int, **rules: Any) -> MatchState:
        """A fresh match dealt from ``seed``, under the env's rules for these arguments."""
        env = _env_for(self.raw_env, num_players, tuple(sorted(rules.items())))
        return env.state_class.new(env.rules, seed=seed)

    def engine(self) -> type:
        return _load(self.engine_path)

    def opponents(self) -> ModuleType:
        return _load(self.opponents_path)

    def rollouts(self) -> type:
        return _load(self.rollouts_path)

    def vec_env(self) -> type:
        return _load(self.vec_env_path)


COMPILED_KINDS = ("random", "greedy", "heuristic")
"""The players every game's compiled opponents play (``OPPONENT_*`` of
``spinner_env.batched.spinner_opponents``)."""


@dataclass(frozen=True, eq=False)
class CompiledPlayer:
    """The compiled twin of a player: the kind of compiled opponent that decides exactly as
    it does, and for ``heuristic`` the weights (the game's ``NUM_WEIGHTS`` of them) it reads.

    A player declares its twin with ``compiled_twin(rules) -> CompiledPlayer | None``
    (``spinner_env.agents.base.Agent`` and the batched policies); the batched engine's
    opponents and the search players' rollouts play it in compiled code, where one exists
    for those rules.
    """

    kind: str
    weights: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.kind not in COMPILED_KINDS:
            raise ValueError(f"kind must be one of {', '.join(COMPILED_KINDS)}, got {self.kind!r}")
        if (self.kind == "heuristic") != (self.weights is not None):
            raise ValueError("a compiled heuristic has weights, and only it")


def _load(path: str) -> Any:
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


@lru_cache(maxsize=64)
def _env_for(
    raw_env: Callable[..., DominoAECEnv], num_players: int, rules: tuple[tuple[str, Any], ...]
) -> DominoAECEnv:
    return raw_env(num_players=num_players, **dict(rules))


GAMES: dict[str, GameSpec] = {
    game.name: game
    for game in (
        GameSpec(
            name="spinner",
            raw_env=spinner_v0.raw_env,
            rules_class=SpinnerRules,
            gym_id="spinner_env/Spinner-v0",
            aec_id="spinner_env/spinner-v0",
            random_rules=lambda rng, n: SpinnerRules(
                num_players=n,
                num_hands=rng.randint(1, 10),
                draw_until_playable=rng.random() < 0.3,
                shortened=rng.random() < 0.3,
                seeded_first_dealer=rng.random() < 0.3,
            ),
            engine_path="spinner_env.batched.spinner:BatchedSpinner",
            opponents_path="spinner_env.batched.spinner_opponents",
            rollouts_path="spinner_env.batched.spinner_rollout:SpinnerRollouts",
            vec_env_path="spinner_env.train.vec_env:SpinnerVecEnv",
        ),
        GameSpec(
            name="mexican_train",
            raw_env=mexican_train_v0.raw_env,
            rules_class=MexicanTrainRules,
            gym_id="spinner_env/MexicanTrain-v0",
            aec_id="spinner_env/mexican_train-v0",
            random_rules=lambda rng, n: MexicanTrainRules(
                num_players=n,
                num_rounds=rng.randint(1, 13),
                double_blank_50=rng.random() < 0.3,
            ),
            engine_path="spinner_env.batched.mexican_train:BatchedMexicanTrain",
            opponents_path="spinner_env.batched.mexican_train_opponents",
            rollouts_path="spinner_env.batched.mexican_train_rollout:MexicanTrainRollouts",
            vec_env_path="spinner_env.train.vec_env:MexicanTrainVecEnv",
        ),
    )
}
"""Every game of the suite by name: the one table of games."""


def game_spec(name: str) -> GameSpec:
    """The game called ``name``; ValueError naming the games for any other."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}: one of {', '.join(GAMES)}") from None


def game_of(rules_or_state: Any) -> GameSpec:
    """The game whose rules (or state) this is: a ``SpinnerRules`` or ``SpinnerState``
    is Spinner's; ValueError for anything that is no registered game's."""
    for game in GAMES.values():
        if isinstance(rules_or_state, (game.rules_class, game.state_class)):
            return game
    raise ValueError(f"{rules_or_state!r} is the rules or state of no game of the suite")


def game_named_in_files(game_name: str) -> GameSpec | None:
    """The game whose encoding calls itself ``game_name`` (``Spinner``, as policy files
    and observations name it), or None."""
    for game in GAMES.values():
        if game.encoding.game_name == game_name:
            return game
    return None


__all__ = [
    "COMPILED_KINDS",
    "GAMES",
    "CompiledPlayer",
    "GameSpec",
    "game_named_in_files",
    "game_of",
    "game_spec",
]
