"""What Mexican Train's policies may read beside the observation
(``spinner_env.agents.features`` gathers every game's):

- ``plan``: which tiles of the hand make the longest chain from the own train's open end
  (M3.2), the hand's plan as :func:`~spinner_env.games.mexican_train.expert.longest_chain`
  finds it for the expert, and which tiles fit another train open now (its layout:
  :data:`spinner_env.games.mexican_train.batched_plan.PLAN_LAYOUT`; compiled, as training
  asks for it at every decision). Cloning the expert with ``plan`` beside the observation
  matches its moves far more often, and wins far more matches, than from the observation
  alone (``docs/results/league.md`` has the figures and their commands).
- ``expert``: the expert's value of each legal placement read from the observation
  (:data:`EXPERT`, by the compiled expert,
  :mod:`~spinner_env.games.mexican_train.batched_expert`), as one value per action.

And what a learned residual on the expert's values may read (:data:`INPUTS`):

- ``position``: every hand's size and the tiles in the boneyard, the points in its own
  hand, the round's number, whether it has drawn or takes a double's extra placement
  (M5.2), the unsatisfied doubles (M5.3), each seat's marker (M3.4), the trains open to it
  now, and how many values each other seat is known to lack (M7). Not the match totals:
  policy iteration values moves by the round's score, and its roots are rounds, whose
  totals it never sees.
"""

from __future__ import annotations

import numpy as np

from spinner_env.core.valuation import Feature, InputGroup, Valuation
from spinner_env.games.mexican_train import batched_expert
from spinner_env.games.mexican_train.batched import TILE_PIPS
from spinner_env.games.mexican_train.batched_plan import PLAN_SIZE, plan_features
from spinner_env.games.mexican_train.encoding import (
    ENCODING,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBSERVATION_SLICES,
)
from spinner_env.games.mexican_train.expert import MexicanTrainExpertWeights
from spinner_env.games.mexican_train.rules import NUM_VALUES
from spinner_env.games.mexican_train.weights import EXPERT_WEIGHT_NAMES

_SL = OBSERVATION_SLICES
_OTHER_VOIDS = slice(_SL["voids"].start + NUM_VALUES, _SL["voids"].stop)


def _position(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    voids = obs[:, _OTHER_VOIDS].reshape(len(obs), MAX_PLAYERS - 1, NUM_VALUES)
    per_root = np.concatenate(
        [
            obs[:, _SL["hand_sizes"]],
            obs[:, _SL["boneyard"]],
            obs[:, _SL["hand"]] @ TILE_PIPS[:, None].astype(np.float64),
            np.argmax(obs[:, _SL["round"]], axis=1)[:, None],
            obs[:, _SL["drew"]],
            obs[:, _SL["extra_placement"]],
            obs[:, _SL["unsatisfied"]].sum(axis=1, keepdims=True),
            obs[:, _SL["markers"]],
            obs[:, _SL["playable"]].sum(axis=1, keepdims=True),
            voids.sum(axis=2),
        ],
        axis=1,
    )
    return per_root[rows]


INPUTS = (InputGroup("position", 2 * MAX_PLAYERS + 7 + MAX_PLAYERS - 1, _position),)
"""What a residual may read beside the expert's terms (module docstring)."""


def _scores(obs: np.ndarray, mask: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return batched_expert.expert_values(obs, np.ascontiguousarray(mask, np.int8), weights)


def _terms(obs: np.ndarray, mask: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return batched_expert.expert_terms(obs, np.ascontiguousarray(mask, np.int8), weights)


EXPERT = Valuation(
    weight_names=EXPERT_WEIGHT_NAMES,
    default_weights=tuple(MexicanTrainExpertWeights().as_array().tolist()),
    linear_in=tuple(name for name in EXPERT_WEIGHT_NAMES if name != "late_hand_size"),
    legal=batched_expert.legal_masks,
    scores=_scores,
    player_weights=len(EXPERT_WEIGHT_NAMES),
    player=lambda weights, name: batched_expert.MexicanTrainExpertPolicy(weights, name=name),
    score_terms=_terms,
    input_groups=INPUTS,
)
"""The expert's value of each legal placement (``MexicanTrainExpertWeights``, without
``double_blank_50``, which the observation does not show); its scores are linear in every
weight but ``late_hand_size`` (and which follow-up of a double is best, M5.2)."""


def expert_advantages(observations: np.ndarray) -> np.ndarray:
    """``expert`` with the default weights: :func:`~spinner_env.core.valuation.advantages`
    of the expert's value of each legal placement, read from each row's observation."""
    return EXPERT.advantages(observations, EXPERT.defaults)


FEATURES = (
    Feature("plan", ENCODING.game_name, PLAN_SIZE, plan_features),
    Feature("expert", ENCODING.game_name, NUM_ACTIONS, expert_advantages, EXPERT),
)
"""Mexican Train's observation features."""

__all__ = ["EXPERT", "FEATURES", "INPUTS", "expert_advantages"]
