"""What a decision costs the hand-written players: ``heuristic`` and ``expert``, same positions.

Plays matches with ``heuristic`` in every seat and, at every decision with two or more
legal actions, asks both agents to decide on that very position; prints the CPU time
(``time.thread_time``) per decision of each, in milliseconds, and the ratio. A teacher
for behaviour cloning (``train/imitate.py``) labels each decision once, so this is its
cost per label.

    python bench/bench_expert.py                          # Mexican Train, 4 players
    python bench/bench_expert.py --game spinner --players 2 --decisions 2000
    python bench/bench_expert.py --smoke                  # 50 decisions: does it run
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
from spinner_env.agents import ExpertAgent, HeuristicAgent
from spinner_env.agents.base import GameView

from spinner_env.games import game_spec


def decision_times(game: str, num_players: int, decisions: int) -> dict[str, float]:
    """CPU seconds per decision of each agent over ``decisions`` positions of heuristic play."""
    spec = game_spec(game)
    encoding = spec.encoding
    agents = {"heuristic": HeuristicAgent(), "expert": ExpertAgent()}
    clocks = dict.fromkeys(agents, 0.0)
    done, seed = 0, 0
    while done < decisions:
        state = spec.new_state(num_players, seed)
        seed += 1
        while not state.match_over and done < decisions:
            if state.hand_over:
                state.start_next_hand()
            moves = state.legal_moves()
            if len(moves) == 1:
                state.play_legal(moves[0])
                continue
            mask = np.zeros(encoding.num_actions, np.int8)
            mask[encoding.action_ids(moves)] = 1
            view = GameView(state, encoding)
            chosen = {}
            for name, agent in agents.items():
                start = time.thread_time()
                chosen[name] = agent.act(None, mask, view)
                clocks[name] += time.thread_time() - start
            done += 1
            state.play_legal(encoding.move_of(chosen["heuristic"]))
    return {name: clock / decisions for name, clock in clocks.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="mexican_train", choices=["spinner", "mexican_train"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--smoke", action="store_true", help="50 decisions")
    args = parser.parse_args(argv)
    if args.smoke:
        args.decisions = 50
    times = decision_times(args.game, args.players, args.decisions)
    print(f"{args.game}, {args.players} players, {args.decisions} decisions of heuristic play")
    for name, seconds in times.items():
        print(f"{name:<10} {1000 * seconds:8.3f} ms per decision")
    print(f"expert / heuristic: {times['expert'] / times['heuristic']:.1f}x")


if __name__ == "__main__":
    main()
