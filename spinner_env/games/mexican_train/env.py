"""Mexican Train as a PettingZoo AEC environment (rules: ``RULES.md``, M1-M7).

    from spinner_env import mexican_train_v0
    env = mexican_train_v0.env(num_players=4)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else choose(obs["action_mask"])
        env.step(action)

Its actions and observations are those of :mod:`spinner_env.games.mexican_train.encoding`, whose
names this module offers too: it is the user's page, as PettingZoo's env modules are.
"""

from __future__ import annotations

from typing import Any

from spinner_env.aec import DominoAECEnv, make_wrapped
from spinner_env.games.mexican_train import encoding
from spinner_env.games.mexican_train.encoding import *  # noqa: F403 (the names users import)
from spinner_env.games.mexican_train.encoding import ENCODING
from spinner_env.games.mexican_train.rules import NUM_ROUNDS, MexicanTrainRules, MexicanTrainState
from spinner_env.games.mexican_train.text import render_mexican_train


class raw_env(DominoAECEnv):
    """Mexican Train, unwrapped: illegal actions raise ValueError.

    Args:
        num_players: 2 to 8 (M2.1).
        num_rounds: rounds per match, 1 to 13 (M2.2 variant; default the full 13).
        double_blank_50: M1.3 variant, ``0-0`` left in hand counts 50.
        reward: ``"match"`` (zero-sum match outcome at the episode's end) or
            ``"hand_score"`` (at each round's end, the mean of the others' points left in
            hand minus one's own, / 100).
        episode: ``"match"`` (one episode is a whole match) or ``"hand"`` (one round, its
            number drawn by the seed from the match's rounds; ``"match"`` reward then
            goes to the lowest points of that round).
        render_mode: None, ``"ansi"`` (render() returns text), ``"human"`` (prints) or
            ``"rgb_array"`` (render() returns a picture of the table, H x W x 3 uint8).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "mexican_train_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    encoding = ENCODING
    state_class = MexicanTrainState
    renderer = staticmethod(render_mexican_train)

    def __init__(
        self,
        num_players: int = 2,
        num_rounds: int = NUM_ROUNDS,
        double_blank_50: bool = False,
        reward: str = "match",
        episode: str = "match",
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        rules = MexicanTrainRules(
            num_players=num_players, num_rounds=num_rounds, double_blank_50=double_blank_50
        )
        super().__init__(rules, reward, episode, render_mode, unknown)


env = make_wrapped(raw_env)

__all__ = [*encoding.__all__, "env", "raw_env"]
