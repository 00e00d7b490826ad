"""Spinner dominoes as a PettingZoo AEC environment (rules: ``RULES.md``, S1-S8).

    from spinner_env import spinner_v0
    env = spinner_v0.env(num_players=4)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else choose(obs["action_mask"])
        env.step(action)

Its actions and observations are those of :mod:`spinner_env.games.spinner.encoding`, whose
names this module offers too: it is the user's page, as PettingZoo's env modules are.
"""

from __future__ import annotations

from typing import Any

from spinner_env.aec import DominoAECEnv, make_wrapped
from spinner_env.games.spinner import encoding
from spinner_env.games.spinner.encoding import *  # noqa: F403 (the names users import)
from spinner_env.games.spinner.encoding import ENCODING
from spinner_env.games.spinner.rules import MAX_HANDS, SpinnerRules, SpinnerState
from spinner_env.games.spinner.text import render_spinner


class raw_env(DominoAECEnv):
    """Spinner dominoes, unwrapped: illegal actions raise ValueError.

    Args:
        num_players: 2 to 8 (S2.1).
        num_hands: hands per match, 1 to 10 (S2.2 variant; default the full 10).
        draw_until_playable: S6.2 variant.
        shortened: S7.3 variant.
        seeded_first_dealer: S2.3 variant.
        reward: ``"match"`` (zero-sum match outcome at the episode's end) or
            ``"hand_score"`` (at each hand's end, the mean of the others' points left in
            hand minus one's own, / 100).
        episode: ``"match"`` (one episode is a whole match) or ``"hand"`` (one hand, its
            number drawn by the seed from the match's hands; ``"match"`` reward then
            goes to the lowest points of that hand).
        render_mode: None, ``"ansi"`` (render() returns text), ``"human"`` (prints) or
            ``"rgb_array"`` (render() returns a picture of the table, H x W x 3 uint8).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "spinner_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    encoding = ENCODING
    state_class = SpinnerState
    renderer = staticmethod(render_spinner)

    def __init__(
        self,
        num_players: int = 2,
        num_hands: int = MAX_HANDS,
        draw_until_playable: bool = False,
        shortened: bool = False,
        seeded_first_dealer: bool = False,
        reward: str = "match",
        episode: str = "match",
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        rules = SpinnerRules(
            num_players=num_players,
            num_hands=num_hands,
            draw_until_playable=draw_until_playable,
            shortened=shortened,
            seeded_first_dealer=seeded_first_dealer,
        )
        super().__init__(rules, reward, episode, render_mode, unknown)


env = make_wrapped(raw_env)

__all__ = [*encoding.__all__, "env", "raw_env"]
