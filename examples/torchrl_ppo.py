"""Masked PPO self-play on ``spinner_v0`` through TorchRL's ``PettingZooWrapper``.

    python examples/torchrl_ppo.py                  # 2 players, one-hand matches, 20,000 steps
    python examples/torchrl_ppo.py --steps 300      # a smoke run (what the tests run)

What it shows:

* **Groups and masks in a turn-based game.** ``PettingZooWrapper(env, use_mask=True,
  group_map={"players": [...]})``: every seat in one group, so one network plays every
  seat (self-play). ``use_mask=True`` is compulsory for an AEC (turn-based) env: each step's
  tensordict holds, per seat, the observation, ``mask`` (True only for the seat to act:
  only its action is played) and ``action_mask`` (the legal actions of the seat to act; all
  True for the others). The actor is a ``MaskedCategorical`` over ``action_mask``, so it
  never picks an illegal move.
* **Random actions: sample the mask, not the spec.** A single wrapped env's
  ``rand_action`` respects the mask (the wrapper updates its action spec every step), but
  a batched ``SerialEnv`` / ``ParallelEnv``'s does not: the sub-envs' specs get the mask,
  the parent's never does, and about every random action is illegal (the classic wrapper
  then ends the game, -1 to the mover). :func:`masked_random_actor` samples uniformly over
  each row's ``action_mask`` instead: use it (or the trained actor) for exploration.
* **Who gets which reward.** The game pays every seat when the match ends, whichever seat
  moved last, so a step's ``("next", "players", "reward")`` holds rewards for seats that did
  not act. :func:`seat_decisions` credits each seat's decision with everything the seat
  got from that decision up to its next one (or the end), and gives each seat its own
  chain of decisions for GAE; TorchRL's ``ClipPPOLoss`` then trains on those decisions.

Each rollout starts new games and drops the unfinished one at its end (its rewards are
not known yet). The per-episode check (:mod:`example_kit`) compares every seat's credited
rewards with its match outcome.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from example_kit import count_mismatches, parse_args, report, seat_outcome
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import PettingZooWrapper, SerialEnv
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss

from spinner_env import spinner_v0

OBS = ("players", "observation", "observation")
ACTION_MASK = ("players", "action_mask")
ACTION = ("players", "action")
LOG_PROB = ("players", "action_log_prob")
VALUE = ("players", "state_value")
KEPT = ("observation", "action_mask", "action", "action_log_prob")
"""What PPO needs of a seat's row of a step."""


@dataclass
class Args:
    steps: int = 20_000
    """decisions in all (over every game of the batch)"""
    rollout: int = 500
    """steps per game of the batch between updates"""
    num_envs: int = 2
    num_players: int = 2
    num_hands: int = 1
    epochs: int = 4
    minibatch: int = 256
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    seed: int = 0


def make_env(args: Args) -> PettingZooWrapper:
    aec = spinner_v0.env(num_players=args.num_players, num_hands=args.num_hands)
    return PettingZooWrapper(aec, use_mask=True, group_map={"players": aec.possible_agents})


def mlp(out: int) -> nn.Module:
    size = spinner_v0.OBSERVATION_SIZE
    return nn.Sequential(
        nn.Linear(size, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, out)
    )


def make_actor(logits: nn.Module) -> ProbabilisticActor:
    """A masked categorical policy: illegal actions get probability 0."""
    return ProbabilisticActor(
        TensorDictModule(logits, in_keys=[OBS], out_keys=[("players", "logits")]),
        in_keys={"logits": ("players", "logits"), "mask": ACTION_MASK},
        out_keys=[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOG_PROB,
    )


class _Zeros(nn.Module):
    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.zeros((*obs.shape[:-1], spinner_v0.NUM_ACTIONS))


def masked_random_actor() -> ProbabilisticActor:
    """Uniform over each row's legal actions (what ``rand_action`` should do)."""
    return make_actor(_Zeros())


@dataclass
class Decisions:
    """Every seat's decisions of a rollout, flattened, with what each was credited."""

    data: TensorDict | None
    """the acting seat's row of each decision (observation, mask, action, log-prob);
    None if no game finished"""
    rewards: torch.Tensor
    next_index: torch.Tensor
    """the same seat's next decision in the same game, or -1 when the game ended first"""
    credited: list[float]
    """per finished seat-episode: the rewards credited to the seat's decisions"""
    outcomes: list[float]
    """per finished seat-episode: the seat's match outcome"""


def seat_decisions(rollout: TensorDict) -> Decisions:
    """Split a ``[games, steps]`` rollout into each seat's chain of decisions."""
    rows, rewards, next_index, credited, outcomes = [], [], [], [], []
    for game in rollout.unbind(0):
        acting = game["players", "mask"].float().argmax(-1).tolist()  # the seat to act
        paid = game["next", "players", "reward"].squeeze(-1)  # [steps, seats]
        done = game["next", "done"].squeeze(-1).tolist()
        seats = paid.shape[1]
        last: list[int | None] = [None] * seats  # each seat's latest decision
        start = len(rows)  # the episode's first decision
        episode_credit = [0.0] * seats
        for t, seat in enumerate(acting):
            if last[seat] is not None:
                next_index[last[seat]] = len(rows)
            last[seat] = len(rows)
            rows.append(game[t]["players"][seat].select(*KEPT))
            rewards.append(0.0)
            next_index.append(-1)
            for s in range(seats):
                if last[s] is not None:
                    rewards[last[s]] += float(paid[t, s])
                    episode_credit[s] += float(paid[t, s])
            if done[t]:
                final = game[t]["next", "players", "observation", "observation"]
                credited += episode_credit
                outcomes += [seat_outcome(final[s].numpy()) for s in range(seats)]
                last, start, episode_credit = [None] * seats, len(rows), [0.0] * seats
        del rows[start:], rewards[start:], next_index[start:]  # the unfinished game
    data = TensorDict({"players": torch.stack(rows)}, batch_size=[len(rows)]) if rows else None
    return Decisions(data, torch.tensor(rewards), torch.tensor(next_index), credited, outcomes)


def advantages(d: Decisions, values: torch.Tensor, gamma: float, lam: float) -> torch.Tensor:
    """GAE along each seat's own chain of decisions (a chain ends with its game)."""
    adv = torch.zeros_like(values)
    for i in reversed(range(len(values))):
        j = int(d.next_index[i])
        next_value, next_adv = (values[j], adv[j]) if j >= 0 else (0.0, 0.0)
        adv[i] = d.rewards[i] + gamma * next_value - values[i] + gamma * lam * next_adv
    return adv


def train(args: Args) -> dict:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: threads cost more than they give
    env = SerialEnv(args.num_envs, lambda: make_env(args))
    env.set_seed(args.seed)
    actor = make_actor(mlp(spinner_v0.NUM_ACTIONS))
    critic = ValueOperator(mlp(1), in_keys=[OBS], out_keys=[VALUE])
    loss = ClipPPOLoss(actor, critic, clip_epsilon=args.clip, entropy_coeff=0.01)
    loss.set_keys(action=ACTION, sample_log_prob=LOG_PROB, value=VALUE)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.learning_rate)
    stats = {"decisions": 0, "illegal": 0, "credited": [], "outcomes": []}
    while stats["decisions"] < args.steps:
        steps = min(args.rollout, -(-(args.steps - stats["decisions"]) // args.num_envs))
        with torch.no_grad():
            rollout = env.rollout(steps, actor, break_when_any_done=False)
        chosen = rollout[ACTION].unsqueeze(-1)
        acting = rollout["players", "mask"]
        legal = rollout[ACTION_MASK].gather(-1, chosen).squeeze(-1)
        stats["illegal"] += int((acting & ~legal).sum())
        stats["decisions"] += rollout.numel()
        d = seat_decisions(rollout)
        stats["credited"] += d.credited
        stats["outcomes"] += d.outcomes
        if d.data is None:
            continue
        with torch.no_grad():
            values = critic(d.data.clone())[VALUE].squeeze(-1)
        adv = advantages(d, values, args.gamma, args.gae_lambda)
        batch = d.data.clone()
        batch["advantage"] = adv.unsqueeze(-1)
        batch["value_target"] = (adv + values).unsqueeze(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(len(adv)).split(args.minibatch):
                losses = loss(batch[idx])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optimizer.step()
        matches = len(d.outcomes) // args.num_players
        print(
            f"decisions {stats['decisions']:>7}  matches {matches:>4}  "
            f"value loss {losses['loss_critic'].item():.3f}"
        )
    env.close()
    stats["mismatches"] = count_mismatches(stats["credited"], stats["outcomes"])
    return stats


def main(argv: Sequence[str] | None = None) -> dict:
    return train(parse_args(Args, argv, __doc__))


if __name__ == "__main__":
    sys.exit(report(main()))
