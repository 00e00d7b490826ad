"""What a decision costs the hand-written players: ``heuristic`` and ``expert``, same positions.

Plays matches with ``heuristic`` in every seat and, at every decision with two or more
legal actions, asks both agents to decide on that very position; prints the CPU time
(``time.thread_time``) per decision of each, in milliseconds, and the ratio. A teacher
for behaviour cloning (``train/imitate.py``) labels each decision once, so this is its
cost per label. Then the expert's compiled twin decides the same positions from their
observations, all in one call (what the batched engine's opponents, the ``expert``
feature and search rollouts use): its time per decision, and on how many of them it made
the agent's move.

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

from spinner_env.core.agent import GameView
from spinner_env.games import game_spec
from spinner_env.games.spinner.batched_heuristic import heuristic_actions_from_obs
from spinner_env.games.spinner.expert import SpinnerExpertWeights


def decision_times(game: str, num_players: int, decisions: int) -> dict[str, float]:
    """CPU seconds per decision of each agent over ``decisions`` positions of heuristic play,
    and of the expert's compiled twin (``compiled expert``) on the same positions, with the
    share of them where the twin made the agent's move (``same moves``)."""
    spec = game_spec(game)
    encoding = spec.encoding
    agents = {"heuristic": HeuristicAgent(), "expert": ExpertAgent()}
    clocks = dict.fromkeys(agents, 0.0)
    observations, masks, experts = [], [], []
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
            observations.append(encoding.observation(state, state.current))
            masks.append(mask)
            experts.append(chosen["expert"])
            state.play_legal(encoding.move_of(chosen["heuristic"]))
    times = {name: clock / decisions for name, clock in clocks.items()}
    twin = ExpertAgent().batched_twin(spec.rules_class(num_players=num_players))
    decide = twin.act_batch if twin is not None else compiled_spinner_expert
    obs, legal = np.array(observations), np.array(masks)
    decide(obs[:2], legal[:2])  # compiled and loaded: off the clock
    start = time.thread_time()
    actions = decide(obs, legal)
    times["compiled expert"] = (time.thread_time() - start) / decisions
    times["same moves"] = float(np.mean(actions == np.array(experts)))
    return times


def compiled_spinner_expert(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The Spinner expert's compiled twin (the compiled heuristic with its weights) from
    observations."""
    return heuristic_actions_from_obs(obs, masks, SpinnerExpertWeights().as_array())


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
    same = times.pop("same moves")
    print(f"{args.game}, {args.players} players, {args.decisions} decisions of heuristic play")
    for name, seconds in times.items():
        print(f"{name:<16} {1000 * seconds:8.4f} ms per decision")
    print(f"expert / heuristic: {times['expert'] / times['heuristic']:.1f}x")
    print(
        f"expert / compiled expert: {times['expert'] / times['compiled expert']:.0f}x, "
        f"the same move on {same:.1%} of the positions"
    )


if __name__ == "__main__":
    main()
