"""Spinner dominoes (double-nine and 11 wild spinner tiles, 2-8 players): ``RULES.md`` S1-S8.

- ``rules.py``: the rules engine (``SpinnerRules``, ``SpinnerState``), no RL imports.
- ``encoding.py``: action ids and observation vectors; ``env.py``: the PettingZoo env
  (``spinner_env.spinner_v0`` gathers both under the versioned name).
- ``text.py``: the text picture; ``board.py``: the board in pictures and on the web page;
  ``demo.py``: a whole match played and shown in the terminal (``spinner-demo``).
- ``heuristic.py`` and ``expert.py``: the hand-written players (``heuristic`` and
  ``expert`` play Spinner through them); ``features.py``: what policies may read beside
  the observation (the expert's valuation of each action).
- ``batched.py``: the rules as numba-compiled loops over game records, held to
  ``rules.py`` decision by decision; ``batched_heuristic.py`` and ``batched_players.py``:
  the compiled players (random, greedy, heuristic, expert); ``weights.py``: their
  weights' names; ``rollout.py``: reference positions loaded into the batched engine.
"""

from __future__ import annotations

import random

from spinner_env.core.game import GameSpec
from spinner_env.games.spinner.encoding import ENCODING
from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState
from spinner_env.games.spinner.text import render_spinner


def _random_rules(rng: random.Random, num_players: int) -> SpinnerRules:
    return SpinnerRules(
        num_players=num_players,
        num_hands=rng.randint(1, 10),
        draw_until_playable=rng.random() < 0.3,
        shortened=rng.random() < 0.3,
        seeded_first_dealer=rng.random() < 0.3,
    )


GAME = GameSpec(
    name="spinner",
    env_name="spinner_v0",
    rules_class=SpinnerRules,
    state_class=SpinnerState,
    encoding=ENCODING,
    render_text=render_spinner,
    gym_id="spinner_env/Spinner-v0",
    aec_id="spinner_env/spinner-v0",
    hand_word="hand",
    hands_argument="num_hands",
    panel_searchers=(
        "pimc:determinizations=4",
        "pimc:determinizations=16",
        "ismcts:iterations=50",
        "ismcts:iterations=200",
    ),
    random_rules=_random_rules,
    env_path="spinner_env.games.spinner.env:raw_env",
    engine_path="spinner_env.games.spinner.batched:BatchedSpinner",
    opponents_path="spinner_env.games.spinner.batched_players",
    rollouts_path="spinner_env.games.spinner.rollout:SpinnerRollouts",
    heuristic_path="spinner_env.games.spinner.heuristic:SpinnerHeuristicAgent",
    expert_path="spinner_env.games.spinner.expert:SpinnerExpertAgent",
    board_path="spinner_env.games.spinner.board",
    features_path="spinner_env.games.spinner.features",
)
