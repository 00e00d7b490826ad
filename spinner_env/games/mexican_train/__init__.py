"""Mexican Train (double-twelve, trains and markers, 2-8 players): ``RULES.md`` M1-M7.

- ``rules.py``: the rules engine (``MexicanTrainRules``, ``MexicanTrainState``), no RL
  imports.
- ``encoding.py``: action ids and observation vectors; ``env.py``: the PettingZoo env
  (``spinner_env.mexican_train_v0`` gathers both under the versioned name).
- ``text.py``: the text picture; ``board.py``: the board in pictures and on the web page.
- ``heuristic.py`` and ``expert.py``: the hand-written players (``heuristic`` and
  ``expert`` play Mexican Train through them); ``features.py``: what policies may read
  beside the observation (the hand's plan, the expert's valuation of each action).
- ``batched.py``: the rules as numba-compiled loops over game records, held to
  ``rules.py`` decision by decision; ``batched_players.py``, ``batched_expert.py`` and
  ``batched_plan.py``: the compiled players (random, greedy, heuristic, expert) and the
  expert's chain planning; ``weights.py``: their weights' names; ``rollout.py``:
  reference positions loaded into the batched engine.
"""

from __future__ import annotations

import random

from spinner_env.core.game import GameSpec
from spinner_env.games.mexican_train.encoding import ENCODING
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.mexican_train.text import render_mexican_train


def _random_rules(rng: random.Random, num_players: int) -> MexicanTrainRules:
    return MexicanTrainRules(
        num_players=num_players,
        num_rounds=rng.randint(1, 13),
        double_blank_50=rng.random() < 0.3,
    )


GAME = GameSpec(
    name="mexican_train",
    env_name="mexican_train_v0",
    rules_class=MexicanTrainRules,
    state_class=MexicanTrainState,
    encoding=ENCODING,
    render_text=render_mexican_train,
    gym_id="spinner_env/MexicanTrain-v0",
    aec_id="spinner_env/mexican_train-v0",
    hand_word="round",
    hands_argument="num_rounds",
    panel_searchers=(  # a little smaller than Spinner's: its matches are longer
        "pimc:determinizations=4",
        "pimc:determinizations=12",
        "ismcts:iterations=30",
        "ismcts:iterations=100",
    ),
    random_rules=_random_rules,
    env_path="spinner_env.games.mexican_train.env:raw_env",
    engine_path="spinner_env.games.mexican_train.batched:BatchedMexicanTrain",
    opponents_path="spinner_env.games.mexican_train.batched_players",
    rollouts_path="spinner_env.games.mexican_train.rollout:MexicanTrainRollouts",
    heuristic_path="spinner_env.games.mexican_train.heuristic:MexicanTrainHeuristicAgent",
    expert_path="spinner_env.games.mexican_train.expert:MexicanTrainExpertAgent",
    board_path="spinner_env.games.mexican_train.board",
    features_path="spinner_env.games.mexican_train.features",
)
