"""The record a game registers: everything the shared layers need of it.

A :class:`GameSpec` holds the game's rules class, state class and encoding, its text
picture, its registered ids, the fuzzers' random rules, and the import paths of the layers
that load PettingZoo, Pillow, numba or torch (its PettingZoo env, its board drawing, its
batched engine, compiled players and rollouts), loaded on first use so
that importing a game loads none of them. Each game builds its record in its package's
``__init__`` (:mod:`spinner_env.games.spinner`); :mod:`spinner_env.games` lists them.
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

from spinner_env.core.encoding import Encoding
from spinner_env.core.match import MatchState


@dataclass(frozen=True)
class GameSpec:
    """A game of the suite: what every layer needs of it (module docstring).

    ``rules`` keyword arguments are the env's own (``num_hands``, variant flags). Fields
    named ``*_path`` are ``module`` or ``module:attribute`` import paths, loaded by the
    methods (or, for ``env_path``, the property ``raw_env``) of the same name without
    the suffix.
    """

    name: str
    """The name configs, command lines and policy files' callers use (``spinner``)."""
    env_name: str
    """Its PettingZoo env's versioned name (``spinner_v0``): ``spinner_env.spinner_v0``
    is its env module under that name, and the env's ``metadata["name"]``."""
    rules_class: type
    state_class: type[MatchState]
    encoding: Encoding
    render_text: Callable[[Any, int | None], str]
    """``render_text(state, viewer)``: the state as text, ``viewer``'s hand shown (None:
    no hand), what ``render_mode="ansi"`` returns."""
    gym_id: str
    """The Gymnasium id of its single-agent view (``spinner_env/Spinner-v0``)."""
    aec_id: str
    """The PettingZoo registry id of its AEC env (``spinner_env/spinner-v0``)."""
    hand_word: str
    """What the game calls one hand of its match (``hand``; a Mexican Train match is 13
    ``round``s, M2.2), so flags and output say it as its rules and text picture do."""
    hands_argument: str
    """The env argument that sets how many hands a match has (``num_hands``)."""
    panel_searchers: tuple[str, ...]
    """The search players of its default robustness panel (``spinner-evaluate --styles``),
    at a small and a larger budget each, as its matches' length affords them."""
    random_rules: Callable[[random.Random, int], Any]
    """``random_rules(rng, num_players)``: rules with random variants (the fuzzers')."""
    env_path: str
    """Its PettingZoo env class, a ``spinner_env.aec.DominoAECEnv``
    (``spinner_env.games.spinner.env:raw_env``)."""
    engine_path: str
    """Its batched engine class (a ``spinner_env.batched.core.BatchedEngine``)."""
    opponents_path: str
    """Its compiled players' module: ``compiled_action`` (a compiled seat's move, which
    the shared loops of ``spinner_env.batched.core`` call), ``greedy_points(rules)``
    (what its compiled greedy maximises),
    ``heuristic_policy(weights, name, rules)`` (the batched policy of its compiled
    heuristic) and ``NUM_WEIGHTS`` (the length of that heuristic's weights)."""
    rollouts_path: str
    """Its ``spinner_env.batched.rollout.BatchedRollouts`` subclass, whose ``state_of``
    reads a record back as the reference state."""
    heuristic_path: str
    """Its hand-written heuristic, the agent class ``heuristic`` plays the game as
    (``spinner_env.agents.HeuristicAgent``): a ``spinner_env.core.agent.ScoringAgent``
    made as ``Class(seed, weights)`` (None: its default weights), with a ``weights``
    attribute (a dataclass of floats, which ``heuristic:jitter=...`` perturbs), playing
    this game only."""
    expert_path: str
    """Its hand-written expert, the agent class ``expert`` plays the game as, made and
    read as the heuristic's (``heuristic_path``)."""
    board_path: str
    """Its board's module, for pictures and the web page (``spinner_env.picture`` draws the
    rest of the table): ``draw_board(scene, state)``, ``title(state)``, ``WILD_VALUE``
    (the value drawn as a star, or None) and ``move_target(state, move)`` (where a
    placement goes, as the board's targets name it)."""

    features_path: str | None = None
    """Its observation features' module, whose ``FEATURES`` (a tuple of
    ``spinner_env.core.valuation.Feature``) policies may read beside the observation
    (``spinner_env.agents.features``); None: it has none."""

    @property
    def class_prefix(self) -> str:
        """What the per-game classes made from the record are named after: its rules
        class's name without ``Rules`` (``Spinner``: ``SpinnerVectorEnv``, ``SpinnerGame``)."""
        return self.rules_class.__name__.removesuffix("Rules")

    @property
    def raw_env(self) -> Any:
        """The PettingZoo env class (``raw_env``; its module's ``env`` wraps it)."""
        return _load(self.env_path)

    @property
    def env_module(self) -> ModuleType:
        """The PettingZoo module of the env (``spinner_env.spinner_v0`` is its name for
        users): ``env``, ``raw_env``, ``ENCODING`` and the encoding's constants."""
        return importlib.import_module(self.env_path.partition(":")[0])

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

    def board(self) -> ModuleType:
        return _load(self.board_path)

    def features(self) -> tuple[Any, ...]:
        """Its observation features (``features_path``), none if it declares none."""
        return () if self.features_path is None else _load(self.features_path).FEATURES

    def hand_written(self, role: str) -> type:
        """Its hand-written player class of ``role``, ``heuristic`` or ``expert``."""
        if role not in HAND_WRITTEN_ROLES:
            raise ValueError(f"role must be one of {', '.join(HAND_WRITTEN_ROLES)}, got {role!r}")
        return _load(getattr(self, role + "_path"))


HAND_WRITTEN_ROLES = ("heuristic", "expert")
"""The hand-written players every game has (its record's ``heuristic_path`` and
``expert_path``)."""


COMPILED_KINDS = ("random", "greedy", "heuristic")
"""The players every game's compiled opponents play (``OPPONENT_*`` of
``spinner_env.games.spinner.batched_players``)."""


@dataclass(frozen=True, eq=False)
class CompiledPlayer:
    """The compiled twin of a player: the kind of compiled opponent that decides exactly as
    it does, and for ``heuristic`` the weights (the game's ``NUM_WEIGHTS`` of them) it reads.

    A player declares its twin with ``compiled_twin(rules) -> CompiledPlayer | None``
    (``spinner_env.core.agent.Agent`` and the batched policies); the batched engine's
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
    raw_env: Callable[..., Any], num_players: int, rules: tuple[tuple[str, Any], ...]
) -> Any:
    return raw_env(num_players=num_players, **dict(rules))


__all__ = ["COMPILED_KINDS", "HAND_WRITTEN_ROLES", "CompiledPlayer", "GameSpec"]
