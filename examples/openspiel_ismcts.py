"""OpenSpiel's ISMCTS against our ``heuristic``, through OpenSpiel's own ``evaluate_bots``.

    python examples/openspiel_ismcts.py                       # 2 players, 20 one-hand matches
    python examples/openspiel_ismcts.py --matches 2 --simulations 10   # a smoke run (the tests')

What it shows:

* ``import spinner_env.openspiel`` registers ``python_spinner``: ``pyspiel.load_game`` loads
  it like any OpenSpiel game, deals and draws are its chance nodes.
* OpenSpiel's Python ``ISMCTSBot`` plays it because the game implements
  ``resample_from_infostate`` with our exact belief sampler (OpenSpiel's own domino games
  do not, so its ISMCTS cannot play them); ``spinner_env.agents.openspiel.ISMCTSBot`` adds
  only the ``restart_at`` that ``evaluate_bots`` calls.
* Any of our agents is an OpenSpiel bot through ``AgentBot``; here ``heuristic`` takes
  every seat but one, and ISMCTS takes each seat in turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyspiel
from example_kit import parse_args
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from spinner_env.agents import make_agent
from spinner_env.agents.openspiel import AgentBot, make_openspiel_bot

import spinner_env.openspiel  # noqa: F401  (registers python_spinner)


@dataclass
class Args:
    matches: int = 20
    simulations: int = 100
    """ISMCTS simulations per move (each one a random rollout to the match's end)"""
    num_players: int = 2
    num_hands: int = 1
    seed: int = 0


def play(args: Args) -> dict:
    game = pyspiel.load_game(
        "python_spinner", {"players": args.num_players, "num_hands": args.num_hands}
    )
    rng = np.random.RandomState(args.seed)
    ismcts_returns = []
    for match in range(args.matches):
        seat = match % args.num_players
        bots = [
            make_openspiel_bot(f"ismcts,simulations={args.simulations}", game, args.seed + match)
            if s == seat
            else AgentBot(make_agent("heuristic", seed=args.seed + match))
            for s in range(args.num_players)
        ]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        if abs(sum(returns)) > 1e-9:
            raise AssertionError(f"returns {returns} do not sum to zero")
        ismcts_returns.append(returns[seat])
    wins = sum(r > 0 for r in ismcts_returns)
    print(
        f"ISMCTS ({args.simulations} simulations) against heuristic: {wins} of "
        f"{args.matches} matches won, mean return {np.mean(ismcts_returns):+.3f}"
    )
    return {"returns": ismcts_returns, "wins": wins}


def main(argv: Sequence[str] | None = None) -> dict:
    return play(parse_args(Args, argv, __doc__))


if __name__ == "__main__":
    main()
