"""One-file masked PPO, CleanRL style, over the batched Gymnasium vector env.

    python examples/cleanrl_ppo.py                   # 64 games, 2 players, 200,000 steps
    python examples/cleanrl_ppo.py --steps 512       # a smoke run (what the tests run)

What it shows: ``spinner_env.batched.vector.SpinnerVectorEnv`` is a ``gymnasium.vector.VectorEnv``
over the compiled engine; each of its games seats one learner against batched opponents
(here the compiled random player), so the loop is CleanRL's ``ppo.py`` with two changes:

* the legal actions come with every step in ``infos["action_mask"]`` (also
  ``envs.action_masks()``), and the policy masks its logits with them, so it never picks
  an illegal move;
* autoreset is same-step: a finished game's next observation is already the new game's,
  and ``infos["final_obs"]`` holds the finished one's (``done`` marks the row).

A step's reward is everything the learner was credited from its action to its next
decision, opponents' moves and the end of the match included, so the rewards of an
episode add up to the learner's match outcome: the loop checks it episode by episode
against the final observation (:mod:`example_kit`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from example_kit import count_mismatches, parse_args, report, seat_outcome
from torch import nn
from torch.distributions import Categorical

from spinner_env.batched.vector import SpinnerVectorEnv
from spinner_env.games.spinner.rules import SpinnerRules


@dataclass
class Args:
    steps: int = 200_000
    """learner decisions in all (over every game)"""
    num_envs: int = 64
    num_steps: int = 64
    """steps per game between updates"""
    num_players: int = 2
    num_hands: int = 1
    opponents: str = "random"
    learning_rate: float = 2.5e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, 1, std=1.0)
        )
        self.actor = nn.Sequential(
            layer(obs_size, 128),
            nn.Tanh(),
            layer(128, 128),
            nn.Tanh(),
            layer(128, num_actions, std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        # The one change to CleanRL's agent: illegal actions get probability 0.
        logits = self.actor(x).masked_fill(~mask, -1e9)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def train(args: Args) -> dict:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: threads cost more than they give
    rules = SpinnerRules(num_players=args.num_players, num_hands=args.num_hands)
    envs = SpinnerVectorEnv(args.num_envs, rules, opponents=args.opponents)
    obs_size = envs.single_observation_space.shape[0]
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, e = args.num_steps, args.num_envs
    obs = torch.zeros((n, e, obs_size))
    masks = torch.zeros((n, e, num_actions), dtype=torch.bool)
    actions = torch.zeros((n, e), dtype=torch.long)
    logprobs = torch.zeros((n, e))
    rewards = torch.zeros((n, e))
    dones = torch.zeros((n, e))
    values = torch.zeros((n, e))

    next_obs_np, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np)
    next_mask = torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(e)
    episode_return = np.zeros(e)
    stats = {"decisions": 0, "illegal": 0, "credited": [], "outcomes": []}
    start = time.perf_counter()
    while stats["decisions"] < args.steps:
        for step in range(n):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            stats["illegal"] += int((~next_mask.gather(1, action[:, None])).sum())
            next_obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            done = terminated | truncated
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs_np)
            next_mask = torch.as_tensor(infos["action_mask"])
            next_done = torch.as_tensor(done, dtype=torch.float32)
            episode_return += reward
            for b in np.flatnonzero(done):  # the check: credited rewards == the outcome
                stats["credited"].append(float(episode_return[b]))
                stats["outcomes"].append(seat_outcome(infos["final_obs"][b]))
                episode_return[b] = 0.0
        stats["decisions"] += n * e

        # Generalised advantage estimation, as CleanRL's ppo.py.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten()
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(e)
            for t in reversed(range(n)):
                not_done = 1.0 - (next_done if t == n - 1 else dones[t + 1])
                following = next_value if t == n - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            returns = advantages + values

        b_obs, b_masks = obs.reshape(n * e, -1), masks.reshape(n * e, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        minibatch = n * e // args.num_minibatches
        for _ in range(args.update_epochs):
            for mb in torch.randperm(n * e).split(minibatch):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = stats["outcomes"][-200:]
        win_rate = float(np.mean([o > 0 for o in recent])) if recent else float("nan")
        rate = stats["decisions"] / (time.perf_counter() - start)
        print(
            f"decisions {stats['decisions']:>8}  win rate (last 200) {win_rate:.2f}  "
            f"{rate:,.0f} decisions/s"
        )
    envs.close()
    stats["mismatches"] = count_mismatches(stats["credited"], stats["outcomes"])
    return stats


def main(argv: Sequence[str] | None = None) -> dict:
    return train(parse_args(Args, argv, __doc__))


if __name__ == "__main__":
    sys.exit(report(main()))
