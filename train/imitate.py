"""Behaviour cloning: start a MaskablePPO policy from a teacher's play (``pretrain``).

A config's ``pretrain`` section (:class:`~spinner_env.train.config.PretrainConfig`) makes
``spinner-train`` fit the policy (fresh, or ``init_from``'s) to a teacher before PPO starts:

1. :func:`collect` lets the teacher (``imitate``: any agent spec; ``heuristic`` plays
   compiled in the config's batched games, a search player such as
   ``pimc:iterations=16`` as itself, reading each game's reference state) play the
   learner's seat against the config's opponent pool, and
   records ``samples`` of its decisions: the
   observation, the legal actions, the action it chose, and the discounted return that
   followed (the config's reward and ``gamma``);
2. :func:`fit` trains the policy network on them for ``epochs`` passes: a masked
   cross-entropy on the teacher's actions for the actor, a squared error on the returns
   for the critic (so PPO's first advantages come from a critic that knows the teacher's
   play), holding out ``holdout`` of the decisions to report how often the cloned policy's
   most likely action is the teacher's. Decisions with soft targets (a probability per
   legal move: a search's, in expert iteration) fit the actor to those instead
   (:func:`soft_cross_entropy`).

The policy learns the teacher's level in seconds to minutes, where PPO from scratch may
not find it in a million steps (a sparse, delayed reward: which tiles to shed early);
PPO then fine-tunes from there.

    demos = collect(config, pool, "heuristic", samples=100_000, seed=0)
    report = fit(model.policy, demos, epochs=6)   # report.holdout_accuracy: 0.88
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents import make_agent
from spinner_env.train.config import PretrainConfig, TrainConfig
from spinner_env.train.vec_env import make_vec_env

from spinner_env.batched.vector import AgentPolicy, BatchedPolicy, LearnerBatch, as_batched
from spinner_env.games import game_spec


@dataclass(frozen=True)
class Demonstrations:
    """A teacher's decisions, row by row."""

    obs: np.ndarray  # (N, observation size) float32
    masks: np.ndarray  # (N, number of actions) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32: the discounted reward from the decision on
    targets: np.ndarray | None = None
    """(N, number of actions) float32, or None: a soft target per decision (a probability
    per legal action, 0 elsewhere; a search's, ``research/expert_iteration.py``),
    which :func:`fit` fits in place of ``actions`` (then the targets' most likely ones)."""

    def __len__(self) -> int:
        return len(self.actions)

    def rows(self, chosen: np.ndarray) -> Demonstrations:
        """The decisions ``chosen`` (row indices), in that order."""
        return Demonstrations(*(_column(self, name, chosen) for name in _COLUMNS))

    @staticmethod
    def concatenate(parts: Sequence[Demonstrations]) -> Demonstrations:
        """``parts`` one after another (all with soft targets, or none)."""
        if len({part.targets is None for part in parts}) > 1:
            raise ValueError("decisions with soft targets and without cannot be joined")
        return Demonstrations(
            *(
                None
                if getattr(parts[0], name) is None
                else np.concatenate([getattr(part, name) for part in parts])
                for name in _COLUMNS
            )
        )


_COLUMNS = tuple(f.name for f in dataclasses.fields(Demonstrations))


def _column(demos: Demonstrations, name: str, chosen: np.ndarray) -> np.ndarray | None:
    column = getattr(demos, name)
    return None if column is None else column[chosen]


@dataclass(frozen=True)
class FitReport:
    """How the cloned policy did: per epoch, the mean training loss (cross-entropy and
    the critic's squared error); at the end, the share of held-out decisions where its
    most likely legal action is the teacher's."""

    losses: list[float]
    value_errors: list[float]
    holdout_accuracy: float
    holdout_size: int


Step = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""One learner decision in each of B games: observations (B, observation size), legal
actions (B, number of actions) bools, the actions chosen (B,), the rewards that followed
(B,) and whether each game's episode ended there (B,)."""


def collect(
    config: TrainConfig,
    opponents: Any,
    teacher: str,
    samples: int,
    seed: int,
    student: BatchedPolicy | None = None,
    teacher_share: float = 1.0,
) -> Demonstrations:
    """``samples`` decisions (at least) of ``teacher`` playing the learner's seat of the
    config's games against ``opponents`` (an opponent pool or anything ``LearnerBatch``
    takes), in the config's ``n_envs`` batched games at a time. A compiled teacher
    decides in all of them at once; any other (a search player, ``pimc:iterations=16``)
    plays through ``as_batched``'s ``AgentPolicy``, one game at a time, where the cost is
    its own search. Only whole episodes are kept, so that every decision has its return;
    forced moves follow ``skip_forced``.

    With a ``student`` (DAgger, ``research/dagger.py``), the teacher labels every
    decision but plays only a random ``teacher_share`` of them; the student plays the
    rest, so the states are the student's own (its returns too)."""
    batch = make_vec_env(
        config.n_envs,
        config.num_players,
        opponents,
        game=config.game,
        skip_forced=config.skip_forced,
        **config.env,
    ).batch
    play = _batched_play(
        batch, teacher_policy(config, teacher, seed, batch.rules), seed, student, teacher_share
    )
    obs, masks, actions, rewards, dones = [], [], [], [], []
    complete = 0  # decisions in finished episodes so far
    open_steps: np.ndarray | None = None  # each game's decisions since its last end
    for step_obs, step_mask, chosen, step_rewards, step_dones in play:
        obs.append(step_obs)
        masks.append(step_mask)
        actions.append(chosen)
        rewards.append(step_rewards)
        dones.append(step_dones)
        if open_steps is None:
            open_steps = np.zeros(len(chosen), np.int64)
        open_steps += 1
        complete += int(open_steps[step_dones].sum())
        open_steps[step_dones] = 0
        if complete >= samples:
            break
    done = np.stack(dones)
    returns = discounted_returns(np.stack(rewards), done, config.ppo.gamma)
    # A step counts once its episode has ended: at or before the game's last done.
    steps = np.arange(len(done))[:, None]
    last_end = np.where(done.any(axis=0), len(done) - 1 - np.argmax(done[::-1], axis=0), -1)
    kept = steps <= last_end
    return Demonstrations(
        # Step by step, so that the observations are held at most twice (they are most of it).
        obs=np.concatenate([step[kept[t]] for t, step in enumerate(obs)]),
        masks=np.concatenate([step[kept[t]] for t, step in enumerate(masks)]),
        actions=np.concatenate(actions)[kept.ravel()],
        returns=returns[kept],
    )


def teacher_policy(
    config: TrainConfig, teacher: str, seed: int, rules: Any = None
) -> BatchedPolicy | AgentPolicy:
    """``teacher`` (a spec) as it plays the learner's seat of the config's batched games
    (``rules``: theirs, default the config's); ValueError, naming ``pretrain.imitate``,
    for a spec that is not an agent or an agent of another game."""
    spec = game_spec(config.game)
    if rules is None:
        rules = spec.raw_env(num_players=config.num_players, **config.env).rules
    try:
        return as_batched(make_agent(teacher, seed=seed, encoding=spec.encoding), rules)
    except ValueError as error:
        raise ValueError(f"pretrain.imitate: {error}") from None


def _batched_play(
    batch: LearnerBatch,
    player: BatchedPolicy | AgentPolicy,
    seed: int,
    student: BatchedPolicy | None = None,
    teacher_share: float = 1.0,
) -> Iterator[Step]:
    """``player`` in the learner's seat of every game of ``batch``, step by step; with a
    ``student``, ``player``'s actions are the labels, and the student's are played where
    a draw falls outside ``teacher_share``."""
    batch.reset(seed)
    shares = np.random.default_rng([seed, 1])  # its own draws: the games' are the batch's
    while True:
        obs, mask = batch.obs.copy(), batch.mask != 0
        chosen = batch.actions_of(player)
        played = chosen
        if student is not None:
            own = np.flatnonzero(shares.random(len(chosen)) >= teacher_share)
            if own.size:
                played = chosen.copy()
                played[own] = batch.actions_of(student, own)
        batch.step(played)
        yield obs, mask, chosen, batch.rewards.astype(np.float32), batch.dones.copy()


def discounted_returns(rewards: np.ndarray, dones: np.ndarray, gamma: float) -> np.ndarray:
    """(T, B) rewards of T steps in B games, ``dones[t, b]`` where game b's episode ended
    at step t: each step's reward plus ``gamma`` times the next step's return, within its
    episode (0 after the last step)."""
    returns = np.zeros_like(rewards)
    following = np.zeros(rewards.shape[1], rewards.dtype)
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following * ~dones[t]
        returns[t] = following
    return returns


def fit(
    policy: MaskableActorCriticPolicy,
    demos: Demonstrations,
    epochs: int,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    vf_coef: float = 0.5,
    holdout: float = 0.1,
    seed: int = 0,
    actor: bool = True,
) -> FitReport:
    """Train ``policy`` on ``demos`` (see the module docstring); a random ``holdout``
    share of them is only measured on. Without ``actor`` only the value head learns (the
    cross-entropy is measured, not followed): for a policy that already plays the moves."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    held = order[: int(len(demos) * holdout)]
    train_rows = order[len(held) :]
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    losses, value_errors = [], []
    for _ in range(epochs):
        rng.shuffle(train_rows)
        epoch_loss = epoch_error = 0.0
        for start in range(0, len(train_rows), batch_size):
            rows = train_rows[start : start + batch_size]
            obs, masks, actions, returns = _tensors(demos, rows)
            if demos.targets is None:
                values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
                cross_entropy = -log_prob.mean()
            else:
                cross_entropy = soft_cross_entropy(policy, obs, masks, demos.targets[rows])
                values = policy.predict_values(obs)
            value_error = torch.nn.functional.mse_loss(values.flatten(), returns)
            optimizer.zero_grad()
            (actor * cross_entropy + vf_coef * value_error).backward()
            optimizer.step()
            epoch_loss += cross_entropy.item() * len(rows)
            epoch_error += value_error.item() * len(rows)
        losses.append(epoch_loss / max(1, len(train_rows)))
        value_errors.append(epoch_error / max(1, len(train_rows)))
    policy.set_training_mode(False)
    return FitReport(losses, value_errors, agreement(policy, demos, held), len(held))


def soft_cross_entropy(
    policy: MaskableActorCriticPolicy,
    obs: torch.Tensor,
    masks: torch.Tensor,
    targets: np.ndarray,
) -> torch.Tensor:
    """The mean over rows of the cross-entropy of the policy's masked distribution against
    ``targets`` (a probability per action, 0 on the illegal ones): least where the
    policy's probabilities are the targets'."""
    log_probabilities = policy.get_distribution(obs, action_masks=masks).distribution.logits
    return -(torch.as_tensor(targets) * log_probabilities).sum(dim=1).mean()


def agreement(policy: MaskableActorCriticPolicy, demos: Demonstrations, rows: np.ndarray) -> float:
    """The share of ``rows`` of ``demos`` where the policy's most likely legal action is
    the teacher's (nan for no rows)."""
    if not len(rows):
        return float("nan")
    obs, masks, actions, _ = _tensors(demos, rows)
    with torch.no_grad():
        chosen = policy.get_distribution(obs, action_masks=masks).get_actions(deterministic=True)
    return float((chosen == actions).float().mean())


def pretrain(
    policy: MaskableActorCriticPolicy, settings: PretrainConfig, config: TrainConfig, opponents: Any
) -> FitReport:
    """A ``pretrain`` section's cloning on ``policy``, in the games of ``config`` against
    ``opponents``; the policy reads the config's ``features`` after each observation."""
    demos = collect(config, opponents, settings.imitate, settings.samples, config.seed)
    features = config.observation_features()
    if features is not None:
        demos = dataclasses.replace(demos, obs=features(demos.obs))
    return fit(
        policy,
        demos,
        settings.epochs,
        settings.batch_size,
        settings.learning_rate,
        config.ppo.vf_coef,
        seed=config.seed,
        actor=settings.actor,
    )


def _tensors(demos: Demonstrations, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    return (
        torch.as_tensor(demos.obs[rows]),
        torch.as_tensor(demos.masks[rows]),
        torch.as_tensor(demos.actions[rows]),
        torch.as_tensor(demos.returns[rows]),
    )
