"""Masked PPO with Tianshou 2.x on the single-agent view of ``spinner_v0``.

    python examples/tianshou_single_agent.py                # 2 players, 20,000 steps
    python examples/tianshou_single_agent.py --steps 400    # a smoke run (what the tests run)

What it shows:

* The env is ``gym.make("spinner_env/Spinner-v0", ..., dict_observation=True)``: one
  learner against built-in opponents, with a Dict observation ``{"observation",
  "action_mask"}``. Tianshou turns it into a ``Batch``, so the actor reads the mask next to
  the observation and gives illegal actions probability 0 (:class:`MaskedActor`); the
  critic reads the observation alone.
* Rewards: each step's reward is everything the learner's seat was credited up to its
  next decision, the end of the match included, so an episode's rewards add up to the
  learner's match outcome; the episode hook checks it (:mod:`example_kit`).

Why not Tianshou's multi-agent path (``PettingZooEnv`` + ``MultiAgentPolicy``): it stores
each step under the seat that acted and trains each seat on its own steps' rewards only,
so a seat loses what the env pays it on a step another seat took. In a match that is the
final reward whenever another seat makes the last move (half the seat-episodes of random
2-player play); ``tests/test_examples.py`` counts them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from example_kit import count_mismatches, match_outcomes, parse_args, report, seat_outcome
from tianshou.algorithm import PPO, MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OnPolicyTrainerParams
from torch import nn

import spinner_env  # noqa: F401  (registers the Gymnasium ids)
from spinner_env import spinner_v0


@dataclass
class Args:
    steps: int = 20_000
    """learner decisions in all"""
    num_envs: int = 4
    collect_steps: int = 512
    """decisions collected between updates"""
    num_players: int = 2
    num_hands: int = 1
    opponents: str = "random"
    learning_rate: float = 3e-4
    batch_size: int = 128
    repeat: int = 4
    gamma: float = 1.0
    seed: int = 0


def mlp(out: int) -> nn.Module:
    size = spinner_v0.OBSERVATION_SIZE
    return nn.Sequential(
        nn.Linear(size, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, out)
    )


class MaskedActor(nn.Module):
    """Logits over the actions, illegal ones at -inf: the mask comes in the observation."""

    def __init__(self) -> None:
        super().__init__()
        self.net = mlp(spinner_v0.NUM_ACTIONS)

    def forward(self, obs: Batch, state: object = None, info: object = None) -> tuple:
        logits = self.net(torch.as_tensor(obs.observation, dtype=torch.float32))
        legal = torch.as_tensor(obs.action_mask).bool()
        return logits.masked_fill(~legal, -torch.inf), state


class Critic(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = mlp(1)

    def forward(self, obs: Batch, state: object = None, info: object = None) -> torch.Tensor:
        return self.net(torch.as_tensor(obs.observation, dtype=torch.float32))


class EpisodeCheck:
    """The collector's episode hook: credited rewards, match outcome, illegal actions."""

    def __init__(self) -> None:
        self.credited: list[float] = []
        self.outcomes: list[float] = []
        self.illegal = 0

    def __call__(self, episode: Batch) -> None:
        self.credited.append(float(np.sum(episode.rew)))
        self.outcomes.append(seat_outcome(episode.obs_next.observation[-1]))
        chosen = episode.obs.action_mask[np.arange(len(episode.act)), episode.act.astype(int)]
        self.illegal += int(np.sum(chosen == 0))


def make_env(args: Args) -> gym.Env:
    return gym.make(
        "spinner_env/Spinner-v0",
        num_players=args.num_players,
        num_hands=args.num_hands,
        opponents=args.opponents,
        dict_observation=True,
    )


def train(args: Args) -> dict:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: threads cost more than they give
    envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.num_envs)])
    envs.seed(args.seed)
    probe = make_env(args)
    policy = DiscreteActorPolicy(
        actor=MaskedActor(),
        action_space=probe.action_space,
        observation_space=probe.observation_space,
    )
    algorithm = PPO(
        policy=policy,
        critic=Critic(),
        optim=AdamOptimizerFactory(lr=args.learning_rate),
        gamma=args.gamma,
        max_grad_norm=0.5,
    )
    check = EpisodeCheck()
    collector = Collector(
        algorithm,
        envs,
        VectorReplayBuffer(args.collect_steps, args.num_envs),
        on_episode_done_hook=check,
    )
    epoch_steps = min(args.steps, 10 * args.collect_steps)
    algorithm.run_training(
        OnPolicyTrainerParams(
            training_collector=collector,
            max_epochs=max(1, args.steps // epoch_steps),
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=args.collect_steps,
            update_step_num_repetitions=args.repeat,
            batch_size=args.batch_size,
            test_in_training=False,
            show_progress=False,
        )
    )
    envs.close()
    return {
        "decisions": collector.collect_step,
        "illegal": check.illegal,
        "credited": check.credited,
        "outcomes": check.outcomes,
        "mismatches": count_mismatches(check.credited, check.outcomes),
    }


def multi_agent_reward_loss(episodes: int, num_players: int = 2, seed: int = 0) -> dict:
    """Random play through Tianshou's multi-agent path; per seat-episode, what Tianshou
        credits the seat (the rewards of the steps it acted on, as ``MARLDispatcher`` hands
        them to the seat's algorithm) and what the env paid it on every step (in the same
    buffer, ``rew[:, seat]``), next to its match outcome."""
    env = PettingZooEnv(spinner_v0.env(num_players=num_players, num_hands=1))
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    policy = MultiAgentPolicy(dict.fromkeys(env.agents, random_policy))
    credited: list[float] = []
    paid: list[float] = []
    outcomes: list[float] = []

    def on_episode(episode: Batch) -> None:
        observer = env.agent_idx[episode.obs_next.agent_id[-1]]
        outcome = match_outcomes(episode.obs_next.obs[-1])
        for agent, seat in env.agent_idx.items():
            acted = episode.obs.agent_id == agent
            credited.append(float(np.sum(episode.rew[acted, seat])))
            paid.append(float(np.sum(episode.rew[:, seat])))
            outcomes.append(outcome[(seat - observer) % num_players])

    np.random.seed(seed)  # the random policy draws from numpy's global generator
    envs = DummyVectorEnv([lambda: env])
    envs.seed(seed)
    collector = Collector(policy, envs, on_episode_done_hook=on_episode)
    collector.collect(n_episode=episodes, reset_before_collect=True)
    return {
        "credited": credited,
        "outcomes": outcomes,
        "mismatches": count_mismatches(credited, outcomes),
        "paid_mismatches": count_mismatches(paid, outcomes),
    }


def main(argv: Sequence[str] | None = None) -> dict:
    return train(parse_args(Args, argv, __doc__))


if __name__ == "__main__":
    sys.exit(report(main()))
