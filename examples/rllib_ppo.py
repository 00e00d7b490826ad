"""Multi-agent PPO with action masking and self-play on ``spinner_v0``, on Ray RLlib.

RLlib pins its own gymnasium, so it runs from a virtualenv of its own:

    make rllib-venv                                            # .venv-rllib (CPU torch, ray[rllib])
    .venv-rllib/bin/python examples/rllib_ppo.py               # 2 env runners, 20,000 steps
    .venv-rllib/bin/python examples/rllib_ppo.py --steps 400   # a smoke run (what the tests run)

What it shows (RLlib's new API stack: RLModule, EnvRunner, Learner):

* **The glue** (:class:`MaskedSpinner`, about 35 lines): RLlib's ``PettingZooEnv`` steps the
  AEC env and hands each seat its rewards when the seat is next to act or when the match
  ends, so every seat gets its outcome, whoever moved last. RLlib's action-masking module
  (``ActionMaskingTorchRLModule``) wants each observation as ``{"observations": ...,
  "action_mask": ...}`` with a float mask, where the env gives ``{"observation": ...,
  "action_mask": int8}``: the glue renames and converts, and puts the env's own match
  outcome in each seat's last info so that :class:`OutcomeCheck` can compare it with what
  RLlib credited the seat.
* **Self-play policy mapping**: module ``main`` learns; each episode one seat (drawn by the
  episode id) plays ``main`` and the others ``opponent``, a frozen copy of ``main``
  refreshed every ``--snapshot-every`` iterations.
* **More than one env runner** (``--env-runners``, default 2): each is a Ray actor with its
  own copies of the env. On one machine Ray starts them as local processes; on a cluster
  the same script spreads them over the nodes:

      ray start --head                                   # on the head node
      ray start --address=HEAD_IP:6379                   # on every other node
      RAY_ADDRESS=HEAD_IP:6379 .venv-rllib/bin/python examples/rllib_ppo.py --env-runners 16

  ``ray.init()`` joins the cluster that ``RAY_ADDRESS`` names (or ``--address``); every node
  needs this package and the same venv (``make rllib-venv`` there, or a Ray
  ``runtime_env``).

The last line printed is a JSON record (decisions, seat-episodes, credited != outcome,
illegal moves) that ``tests/test_examples.py`` reads.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np
import ray
from example_kit import parse_args
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)

from spinner_env import spinner_v0
from spinner_env.aec import zero_sum_outcome


@dataclass
class Args:
    steps: int = 20_000
    """env steps (decisions of every seat) in all"""
    batch: int = 2_000
    """env steps per training iteration"""
    env_runners: int = 2
    num_players: int = 2
    num_hands: int = 1
    snapshot_every: int = 5
    learning_rate: float = 3e-4
    address: str = ""
    """a Ray cluster to join ("" = RAY_ADDRESS if set, else a local Ray)"""
    seed: int = 0


class MaskedSpinner(MultiAgentEnv):
    """``spinner_v0`` for RLlib's action-masking module (see the module docstring)."""

    def __init__(self, config: dict) -> None:
        super().__init__()
        self.pz = PettingZooEnv(spinner_v0.env(**config))
        # Seats in the game's order: RLlib's PettingZooEnv lists its agents from a set, in
        # an order that changes from process to process.
        self.agents = self.possible_agents = list(self.pz.env.possible_agents)
        space = gym.spaces.Dict(
            {
                "observations": self.pz.observation_spaces[self.agents[0]]["observation"],
                "action_mask": gym.spaces.Box(0.0, 1.0, (spinner_v0.NUM_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.agents, space)
        self.action_spaces = dict(self.pz.action_spaces)
        self.illegal = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        self.illegal = 0
        obs, info = self.pz.reset(seed=seed, options=options)
        return self._renamed(obs), info

    def step(self, action: dict) -> tuple:
        acting = self.pz.env.agent_selection
        self.illegal += int(self.pz.env.observe(acting)["action_mask"][action[acting]] == 0)
        obs, rewards, terminated, truncated, infos = self.pz.step(action)
        if terminated["__all__"] or truncated["__all__"]:
            outcome = zero_sum_outcome(self.pz.env.unwrapped.game.totals)
            for seat, agent in enumerate(self.possible_agents):
                infos[agent] = {"outcome": outcome[seat], "illegal": self.illegal}
        return self._renamed(obs), rewards, terminated, truncated, infos

    @staticmethod
    def _renamed(obs: dict) -> dict:
        return {
            agent: {
                "observations": o["observation"],
                "action_mask": o["action_mask"].astype(np.float32),
            }
            for agent, o in obs.items()
        }


class OutcomeCheck(RLlibCallback):
    """Per seat-episode: RLlib's return for the seat next to the env's outcome."""

    def on_episode_end(self, *, episode, prev_episode_chunks=None, metrics_logger, **kwargs):
        chunks = [*(prev_episode_chunks or []), episode]
        for agent in episode.agent_ids:
            credited = sum(sum(chunk.get_rewards().get(agent, [])) for chunk in chunks)
            info = episode.agent_episodes[agent].get_infos(-1)
            metrics_logger.log_value("seat_episodes", 1, reduce="lifetime_sum")
            mismatch = int(abs(credited - info["outcome"]) > 1e-6)
            metrics_logger.log_value("credited_not_outcome", mismatch, reduce="lifetime_sum")
        metrics_logger.log_value("illegal", info["illegal"], reduce="lifetime_sum")


def build(args: Args):
    env_config = {"num_players": args.num_players, "num_hands": args.num_hands}
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": [128, 128]},
    )

    def seat_to_module(agent_id: str, episode, **kwargs) -> str:
        main_seat = hash(episode.id_) % args.num_players
        return "main" if agent_id == f"player_{main_seat}" else "opponent"

    config = (
        PPOConfig()
        # RLlib's env checker steps random actions, which ignore the mask.
        .environment(MaskedSpinner, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .multi_agent(
            policies={"main", "opponent"},
            policy_mapping_fn=seat_to_module,
            policies_to_train=["main"],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": module, "opponent": module})
        )
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(128, args.batch),
            num_epochs=4,
            lr=args.learning_rate,
            gamma=1.0,
        )
        .callbacks(OutcomeCheck)
        .debugging(seed=args.seed)
    )
    return config.build_algo()


def refresh_opponent(algorithm) -> None:
    """Copy ``main``'s weights into ``opponent``, on the learner and on every env runner
    (``sync_weights`` after a training step pushes only the modules that learn)."""
    main = algorithm.learner_group.get_state(components="learner/rl_module/main")
    weights = main["learner"]["rl_module"]["main"]
    algorithm.set_state({"learner_group": {"learner": {"rl_module": {"opponent": weights}}}})
    algorithm.env_runner_group.foreach_env_runner(
        lambda runner: runner.module["opponent"].set_state(weights)
    )


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(Args, argv, __doc__)
    args.batch = min(args.batch, args.steps)
    ray.init(address=args.address or None, include_dashboard=False)
    algorithm = build(args)
    refresh_opponent(algorithm)
    decisions, runners = 0, {}
    while decisions < args.steps:
        result = algorithm.train()
        runners = result["env_runners"]
        decisions = int(result["num_env_steps_sampled_lifetime"])
        print(
            f"iteration {algorithm.iteration:>3}  decisions {decisions:>7}  "
            f"seat-episodes {int(runners.get('seat_episodes', 0)):>5}"
        )
        if algorithm.iteration % args.snapshot_every == 0:
            refresh_opponent(algorithm)
    algorithm.stop()
    ray.shutdown()
    record = {
        "args": asdict(args),
        "decisions": decisions,
        "seat_episodes": int(runners.get("seat_episodes", 0)),
        "mismatches": int(runners.get("credited_not_outcome", 0)),
        "illegal": int(runners.get("illegal", 0)),
    }
    print(json.dumps(record))
    return record


if __name__ == "__main__":
    record = main()
    sys.exit(int(record["illegal"] > 0 or record["mismatches"] > 0))
