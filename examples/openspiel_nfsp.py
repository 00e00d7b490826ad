"""NFSP (OpenSpiel's PyTorch version) trained by self-play on ``python_spinner`` through
OpenSpiel's ``rl_environment``, then evaluated against random play.

    python examples/openspiel_nfsp.py                      # 2 players, 2,000 one-hand matches
    python examples/openspiel_nfsp.py --episodes 20 --eval-matches 10   # a smoke run (the tests')

What it shows:

* ``rl_environment.Environment("python_spinner", players=2, num_hands=1)`` steps our game as
  any OpenSpiel game: the agents read ``info_state`` (our encoder's observation, what our
  PettingZoo env shows the seat) and ``legal_actions`` (our action mask), and the
  environment plays the deal's and the draws' chance nodes itself.
* Rewards are the match outcome, zero-sum, paid at the end (``time_step.rewards``), so one
  one-hand match is one episode of -1/+1 for two players.
* The average policy (NFSP's answer) then plays both seats in turn against OpenSpiel's
  ``RandomAgent``; the mean return and wins are printed, not asserted (a short run learns
  little; the tests check that it runs and that every action was legal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from example_kit import parse_args
from open_spiel.python import rl_environment
from open_spiel.python.algorithms.random_agent import RandomAgent
from open_spiel.python.pytorch import nfsp

import spinner_env.openspiel  # noqa: F401  (registers python_spinner)


@dataclass
class Args:
    episodes: int = 2_000
    """self-play matches to train on"""
    eval_matches: int = 200
    num_players: int = 2
    num_hands: int = 1
    hidden: int = 128
    reservoir: int = 50_000
    anticipatory: float = 0.1
    seed: int = 0


def make_agents(env: rl_environment.Environment, args: Args) -> list[nfsp.NFSP]:
    info_state_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    return [
        nfsp.NFSP(
            seat,
            info_state_size,
            num_actions,
            [args.hidden],
            args.reservoir,
            args.anticipatory,
            batch_size=64,
            min_buffer_size_to_learn=256,
            learn_every=32,
            replay_buffer_capacity=args.reservoir,
            epsilon_decay_duration=args.episodes * 20,
            seed=args.seed + seat,
        )
        for seat in range(args.num_players)
    ]


def run_episode(env: rl_environment.Environment, agents: list, is_evaluation: bool) -> tuple:
    """One match; the final rewards and how many actions were illegal."""
    time_step = env.reset()
    illegal = 0
    while not time_step.last():
        seat = time_step.observations["current_player"]
        action = agents[seat].step(time_step, is_evaluation=is_evaluation).action
        illegal += action not in time_step.observations["legal_actions"][seat]
        time_step = env.step([action])
    if not is_evaluation:  # learners see how the match ended (NFSP fails on it when evaluating)
        for agent in agents:
            agent.step(time_step)
    return time_step.rewards, illegal


def train(args: Args) -> dict:
    torch.set_num_threads(1)  # on a few cores torch's default threads slow small nets down
    env = rl_environment.Environment(
        "python_spinner", players=args.num_players, num_hands=args.num_hands
    )
    env.seed(args.seed)
    agents = make_agents(env, args)
    illegal = 0
    for _ in range(args.episodes):
        illegal += run_episode(env, agents, is_evaluation=False)[1]
    num_actions = env.action_spec()["num_actions"]
    returns = []
    for match in range(args.eval_matches):
        seat = match % args.num_players
        lineup = [
            agents[s] if s == seat else RandomAgent(s, num_actions) for s in range(args.num_players)
        ]
        with agents[seat].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            rewards, wrong = run_episode(env, lineup, is_evaluation=True)
        returns.append(rewards[seat])
        illegal += wrong
    wins = sum(r > 0 for r in returns)
    print(
        f"NFSP after {args.episodes} self-play matches against random: {wins} of "
        f"{args.eval_matches} won, mean return {np.mean(returns):+.3f}, {illegal} illegal"
    )
    return {"returns": returns, "wins": wins, "illegal": illegal}


def main(argv: Sequence[str] | None = None) -> dict:
    return train(parse_args(Args, argv, __doc__))


if __name__ == "__main__":
    main()
