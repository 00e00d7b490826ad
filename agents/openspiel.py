"""Agents across OpenSpiel, both ways (the ``[openspiel]`` extra).

- :class:`AgentBot`: any of our agents as an OpenSpiel bot (``pyspiel.Bot``), for
  ``evaluate_bots`` and OpenSpiel's other tools on ``python_spinner`` and
  ``python_mexican_train`` (:mod:`spinner_env.openspiel`).
- :class:`OpenSpielAgent`: an OpenSpiel bot as one of our agents, so ``spinner-evaluate``
  ranks it on our duplicate deals. The spec ``openspiel:ismcts,simulations=200`` builds
  OpenSpiel's Python ``ISMCTSBot`` (random-rollout evaluator; its C++ ``ISMCTSBot``
  segfaults on every Python game, OpenSpiel's own included). Options:
  ``simulations`` (100), ``uct_c`` (2.0), ``rollouts`` (1), ``world_samples`` (-1: a
  fresh deal every simulation). The bot is asked in an OpenSpiel state built from our
  engine's position (``DominoGame.state_from``), so it sees what its seat sees.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from spinner_env.agents.options import parse_options

from spinner_env import openspiel
from spinner_env.core.agent import Agent, EngineView, GameView
from spinner_env.games import GameSpec, game_of

BOTS = ("ismcts",)
"""The OpenSpiel bots an ``openspiel:`` spec names."""
ISMCTS_OPTIONS = {"simulations": 100, "uct_c": 2.0, "rollouts": 1, "world_samples": -1}


def openspiel_game(spec: GameSpec, rules: Any) -> pyspiel.Game:
    """The OpenSpiel game of our game under ``rules``; ValueError for a variant it lacks."""
    params = {k: v for k, v in asdict(rules).items() if k != "num_players"}
    for name in openspiel.UNOFFERED_VARIANTS:
        if params.pop(name, False):
            raise ValueError(f"the OpenSpiel games do not offer the variant {name}")
    params["players"] = rules.num_players
    return pyspiel.load_game(openspiel.GAME_NAMES[spec.name], params)


class AgentBot(pyspiel.Bot):
    """One of our agents as an OpenSpiel bot: asked at a decision, it answers with the
    agent's action for the state's engine position (observation, mask and view as our
    environments give them)."""

    def __init__(self, agent: Agent) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent

    def step(self, state: openspiel.DominoState) -> int:
        match = state.match
        encoding = game_of(match).encoding
        mask = np.zeros(encoding.num_actions, np.int8)
        mask[state.legal_actions()] = 1
        observation = encoding.observation(match, match.current)
        return self.agent.act(observation, mask, GameView(match, encoding))

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


class OpenSpielAgent(Agent):
    """An OpenSpiel bot as our agent (module docstring): ``make_bot(game, seed)`` builds the
    bot for an OpenSpiel game, once per game the agent meets."""

    needs_view = True
    needs_observation = False

    def __init__(self, name: str, make_bot: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.name = name
        self._make_bot = make_bot
        self._games: dict[Any, tuple[pyspiel.Game, pyspiel.Bot]] = {}

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self._games.clear()  # the bots are seeded from the agent's randomness

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        match = self._view(view).game
        key = (type(match), match.rules)
        if key not in self._games:
            game = openspiel_game(game_of(match), match.rules)
            self._games[key] = (game, self._make_bot(game, int(self.rng.integers(2**31))))
        game, bot = self._games[key]
        return int(bot.step(game.state_from(match)))


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS, able to sit in ``evaluate_bots`` (it searches afresh at
    every move, so there is nothing to restart or be told; the original refuses both) and
    seeded throughout (the original resamples with an unseeded sampler)."""

    def resample_from_infostate(self, state: pyspiel.State) -> pyspiel.State:
        return state.resample_from_infostate(state.current_player(), self.random_number)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player: int, action: int) -> None:
        pass


def parse_bot(options: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``BOT,key=value,...``: the bot's name, the options given, and every setting;
    ValueError naming what is wrong."""
    bot, _, rest = options.partition(",")
    bot = bot.strip()
    if bot not in BOTS:
        raise ValueError(f"openspiel bot {bot!r} is not one of {', '.join(BOTS)}")
    given = parse_options(f"openspiel:{bot}", rest)
    unknown = set(given) - set(ISMCTS_OPTIONS)
    if unknown:
        raise ValueError(
            f"unknown openspiel:{bot} option(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(ISMCTS_OPTIONS)}"
        )
    settings: dict[str, Any] = dict(ISMCTS_OPTIONS)
    for key, value in given.items():
        kind = type(ISMCTS_OPTIONS[key])
        try:
            settings[key] = kind(value)
        except ValueError:
            raise ValueError(f"openspiel:{bot} option {key} must be a {kind.__name__}") from None
    if settings["simulations"] < 1 or settings["rollouts"] < 1 or settings["uct_c"] < 0:
        raise ValueError("simulations and rollouts must be at least 1, uct_c at least 0")
    return bot, given, settings


def make_openspiel_bot(options: str, game: pyspiel.Game, seed: int) -> pyspiel.Bot:
    """The OpenSpiel bot ``BOT,key=value,...`` names, for ``game`` (module docstring)."""
    _, _, settings = parse_bot(options)
    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(settings["rollouts"], random_state)
    return ISMCTSBot(
        game,
        evaluator,
        settings["uct_c"],
        settings["simulations"],
        max_world_samples=settings["world_samples"],
        random_state=random_state,
    )


def make_openspiel_agent(options: str, seed: int | None = None) -> OpenSpielAgent:
    """The agent an ``openspiel:BOT,key=value,...`` spec names (module docstring)."""
    bot, given, _ = parse_bot(options)
    spec = ",".join([bot, *(f"{k}={v}" for k, v in given.items())])
    return OpenSpielAgent(
        f"openspiel:{spec}", lambda game, bot_seed: make_openspiel_bot(spec, game, bot_seed), seed
    )


__all__ = [
    "BOTS",
    "AgentBot",
    "ISMCTSBot",
    "OpenSpielAgent",
    "make_openspiel_agent",
    "make_openspiel_bot",
    "openspiel_game",
    "parse_bot",
]
