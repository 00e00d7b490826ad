"""What Spinner's policies may read beside the observation (``spinner_env.agents.features``
gathers every game's): ``expert``, the expert's score of each legal placement read from
the observation (:data:`EXPERT`, by the compiled expert,
:mod:`~spinner_env.games.spinner.batched_heuristic`), as one value per action, and what a
learned residual on its scores may read (:data:`INPUTS`):

- ``position``: the seat's position, the same for each of its moves: every hand's size and
  the tiles in the boneyard, the points in its own hand, the hand's number, whether it has
  drawn, the unfilled doubles, the end values open to play, and how many values each other
  seat is known to lack (S8). Not the match totals: policy iteration values moves by the
  hand's score, and its roots are hands, whose totals it never sees.
- ``move``: the move itself: the end value it goes on and the one it opens (S4), its
  tile's points and whether it is a double, then what it leaves: the own hand's tiles of
  each value and the layout's open ends of each value, and the values each other seat is
  known to lack.
"""

from __future__ import annotations

import numpy as np

from spinner_env.core.valuation import Feature, InputGroup, Valuation
from spinner_env.games.spinner.batched import (
    ACTION_END,
    ACTION_OPENS,
    ACTION_TILE,
    TILE_HIGH,
    TILE_LOW,
    TILE_POINTS,
)
from spinner_env.games.spinner.batched_heuristic import (
    heuristic_scores_from_obs,
    heuristic_terms_from_obs,
    legal_masks_from_obs,
)
from spinner_env.games.spinner.batched_players import HeuristicPolicy
from spinner_env.games.spinner.encoding import (
    ENCODING,
    MAX_PLAYERS,
    MAX_UNFILLED,
    NUM_ACTIONS,
    NUM_TILES,
    OBSERVATION_SLICES,
)
from spinner_env.games.spinner.expert import SpinnerExpertWeights
from spinner_env.games.spinner.rules import NUM_VALUES
from spinner_env.games.spinner.weights import COMPILED_WEIGHT_NAMES, WEIGHT_NAMES

_SL = OBSERVATION_SLICES
_OTHER_VOIDS = slice(_SL["voids"].start + NUM_VALUES, _SL["voids"].stop)
"""The voids of relative seats 1 and on (seat 0 is the observer)."""
_TILE_VALUES = np.zeros((NUM_TILES, NUM_VALUES))
"""``_TILE_VALUES[tile, v]``: 1 where the tile has an end of value v (2 on a double's)."""
np.add.at(_TILE_VALUES, (np.arange(NUM_TILES), TILE_LOW), 1.0)
np.add.at(_TILE_VALUES, (np.arange(NUM_TILES), TILE_HIGH), 1.0)
_TILE_VALUES = np.minimum(_TILE_VALUES, 1.0)  # a double counts once among a hand's tiles


def _position(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    hand = obs[:, _SL["hand"]].astype(np.float64)
    arms_left = obs[:, _SL["unfilled"]].reshape(len(obs), MAX_UNFILLED, NUM_VALUES + 1)[:, :, -1]
    voids = obs[:, _OTHER_VOIDS].reshape(len(obs), MAX_PLAYERS - 1, NUM_VALUES)
    per_root = np.concatenate(
        [
            obs[:, _SL["hand_sizes"]],
            obs[:, _SL["boneyard"]],
            hand @ TILE_POINTS[:, None].astype(np.float64),
            np.argmax(obs[:, _SL["hand_number"]], axis=1)[:, None],
            obs[:, _SL["drew"]],
            (arms_left > 0).sum(axis=1, keepdims=True),
            obs[:, _SL["playable_ends"]].sum(axis=1, keepdims=True),
            voids.sum(axis=2),
        ],
        axis=1,
    )
    return per_root[rows]


def _move(obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    moves = np.arange(len(rows))
    end = np.zeros((len(rows), NUM_VALUES))
    end[moves, ACTION_END[actions]] = 1.0
    opens = np.zeros((len(rows), NUM_VALUES))
    opened = ACTION_OPENS[actions]
    some = opened >= 0
    opens[moves[some], opened[some]] = 1.0
    tile = ACTION_TILE[actions]
    seat = obs[rows]
    return np.concatenate(
        [
            end,
            opens,
            TILE_POINTS[tile][:, None],
            (TILE_LOW[tile] == TILE_HIGH[tile])[:, None],
            seat[:, _SL["hand"]] @ _TILE_VALUES - _TILE_VALUES[tile],
            seat[:, _SL["free_ends"]] - end + opens,
            seat[:, _OTHER_VOIDS],
        ],
        axis=1,
    )


INPUTS = (
    InputGroup("position", MAX_PLAYERS + 6 + MAX_PLAYERS - 1, _position),
    InputGroup("move", 4 * NUM_VALUES + 2 + (MAX_PLAYERS - 1) * NUM_VALUES, _move),
)
"""What a residual may read beside the expert's terms (module docstring)."""


def _scores(obs: np.ndarray, mask: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return heuristic_scores_from_obs(obs, np.ascontiguousarray(mask, np.int8), weights)


EXPERT = Valuation(
    weight_names=COMPILED_WEIGHT_NAMES,
    default_weights=tuple(SpinnerExpertWeights().as_array().tolist()),
    linear_in=tuple(name for name in COMPILED_WEIGHT_NAMES if name != "late_hand_size"),
    legal=legal_masks_from_obs,
    scores=_scores,
    player_weights=len(WEIGHT_NAMES),
    player=HeuristicPolicy,
    score_terms=heuristic_terms_from_obs,
    input_groups=INPUTS,
)
"""The expert's score of each legal placement (``SpinnerExpertWeights``), with phase
weights (0 for the expert) after its own."""


def expert_advantages(observations: np.ndarray) -> np.ndarray:
    """``expert`` with the default weights: :func:`~spinner_env.core.valuation.advantages`
    of the expert's score of each legal placement, read from each row's observation."""
    return EXPERT.advantages(observations, EXPERT.defaults)


FEATURES = (Feature("expert", ENCODING.game_name, NUM_ACTIONS, expert_advantages, EXPERT),)
"""Spinner's observation features."""

__all__ = ["EXPERT", "FEATURES", "INPUTS", "expert_advantages"]
