"""PPO with action masking on Ray RLlib, against our baselines and its own past snapshots.

RLlib pins its own gymnasium, so it runs from a virtualenv of its own:

    make rllib-venv                                                 # .venv-rllib
    .venv-rllib/bin/python examples/rllib_ppo.py                    # 20 iterations of 2,000 steps
    .venv-rllib/bin/python examples/rllib_ppo.py --iterations 2 --batch 200 --snapshot-every 1
    .venv/bin/spinner-evaluate --agents runs/rllib/rllib_ppo.safetensors heuristic --players 2 \\
        --rule num_hands=1

What it shows (RLlib's new API stack: RLModule, EnvRunner, Learner):

* **The opponents**: one learner seat of ``spinner_v0`` (the project's single-agent view,
  ``spinner_env.wrappers.single_agent_env``) against opponents drawn every episode, one per
  other seat, from a pool: the baselines ``--opponents`` names (agent specs, played by the
  project's agents inside the env) and the learner's own last ``--pool`` snapshots, taken
  every ``--snapshot-every`` iterations (the first one before any training). Snapshots play
  as the project's ``PolicyAgent``: the learner's weights, converted as the final file is.
* **The glue** (:class:`SpinnerVsPool`): RLlib's action-masking module
  (``ActionMaskingTorchRLModule``) wants each observation as ``{"observations": ...,
  "action_mask": ...}`` with a float mask, where the env gives ``{"observation": ...,
  "action_mask": int8}``; the glue renames and converts, and puts the match outcome and the
  opponents' names in the last info, so that :class:`OutcomeCheck` compares the outcome
  with what RLlib credited and logs the return against each opponent.
* **A policy file at the end** (``--out``): the learner's weights, read from its RLModule's
  state dict, become a project policy file (``spinner_env.agents.rllib``), which
  ``spinner-evaluate``, ``spinner-exploit`` and the web game play. The example checks
  that the file's logits (legal actions) and values equal the RLlib module's on positions
  of random matches.
* **More than one env runner** (``--env-runners``, default 2): each is a Ray actor with its
  own copies of the env. On one machine Ray starts them as local processes; on a cluster
  the same script spreads them over the nodes:

      ray start --head                                   # on the head node
      ray start --address=HEAD_IP:6379                   # on every other node
      RAY_ADDRESS=HEAD_IP:6379 .venv-rllib/bin/python examples/rllib_ppo.py --env-runners 16

  ``ray.init()`` joins the cluster that ``RAY_ADDRESS`` names (or ``--address``); every node
  needs this package and the same venv (``make rllib-venv`` there, or a Ray
  ``runtime_env``).

The last line printed is a JSON record (decisions, episodes, credited != outcome, illegal
moves, the conversion's largest difference, the policy file) that
``tests/test_examples.py`` reads.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
import ray
import torch
from example_kit import parse_args
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)
from spinner_env.agents import make_agent
from spinner_env.agents.policy import PolicyAgent, ValueTarget
from spinner_env.agents.rllib import rllib_policy, save_rllib_policy

from spinner_env import spinner_v0
from spinner_env.core.encoding import zero_sum_outcome
from spinner_env.wrappers import single_agent_env

MODEL_CONFIG = {"fcnet_hiddens": [128, 128], "fcnet_activation": "tanh", "vf_share_layers": False}
"""Separate actor and critic MLPs with one activation: the layout of a policy file."""
MODULE = "default_policy"


@dataclass
class Args:
    iterations: int = 20
    """training iterations"""
    batch: int = 2_000
    """the learner's decisions per iteration"""
    opponents: str = "heuristic,greedy,random"
    """the baseline opponents, agent specs separated by commas"""
    pool: int = 4
    """the learner's snapshots kept as opponents (the newest)"""
    snapshot_every: int = 2
    env_runners: int = 2
    num_players: int = 2
    num_hands: int = 1
    learning_rate: float = 3e-4
    out: str = "runs/rllib/rllib_ppo.safetensors"
    """the policy file written at the end"""
    address: str = ""
    """a Ray cluster to join ("" = RAY_ADDRESS if set, else a local Ray)"""
    seed: int = 0


class OpponentPool:
    """Each episode's opponents, one per other seat, drawn from the baselines and the
    learner's newest snapshots (a ``SingleAgentEnv`` opponent sampler)."""

    def __init__(self, baselines: Sequence[str], size: int) -> None:
        self.baselines = [make_agent(spec, encoding=spinner_v0.ENCODING) for spec in baselines]
        self.snapshots: deque[PolicyAgent] = deque(maxlen=size)

    def __call__(self, rng: np.random.Generator, count: int) -> list:
        pool = [*self.baselines, *self.snapshots]
        return [pool[i] for i in rng.integers(len(pool), size=count)]


class SpinnerVsPool(gym.Wrapper):
    """The learner's seat against the pool, for RLlib's action-masking module."""

    def __init__(self, config: dict) -> None:
        self.pool = OpponentPool(config["opponents"].split(","), config["pool"])
        super().__init__(
            single_agent_env(
                "spinner",
                opponents=self.pool,
                dict_observation=True,
                num_players=config["num_players"],
                num_hands=config["num_hands"],
            )
        )
        self.observation_space = gym.spaces.Dict(
            {
                "observations": self.env.observation_space["observation"],
                "action_mask": gym.spaces.Box(0.0, 1.0, (spinner_v0.NUM_ACTIONS,), np.float32),
            }
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        obs, info = self.env.reset(seed=seed, options=options)
        return _renamed(obs), info

    def step(self, action: int) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            single = self.env.unwrapped
            outcome = zero_sum_outcome(single.raw.game.totals)[info["learner_seat"]]
            names = sorted({opponent.name for opponent in single.seat_opponents.values()})
            info = {**info, "outcome": outcome, "opponents": "+".join(names)}
        return _renamed(obs), reward, terminated, truncated, info

    def opponent_names(self) -> list[str]:
        return [opponent.name for opponent in [*self.pool.baselines, *self.pool.snapshots]]

    def add_snapshot(self, state: dict) -> None:
        """Add the learner's weights (its module's state) to the pool as an opponent."""
        self.pool.snapshots.append(PolicyAgent(rllib_policy(state, MODEL_CONFIG), "snapshot"))


def _renamed(obs: dict) -> dict:
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype("f4")}


class OutcomeCheck(RLlibCallback):
    """Per episode: what RLlib credited the learner next to the match outcome, and the
    return against each kind of opponent."""

    def on_episode_end(self, *, episode, prev_episode_chunks=None, metrics_logger, **kwargs):
        credited = sum(chunk.get_return() for chunk in [*(prev_episode_chunks or []), episode])
        info = episode.get_infos(-1)
        metrics_logger.log_value("episodes", 1, reduce="lifetime_sum")
        mismatch = not abs(credited - info.get("outcome", np.nan)) <= 1e-6  # no outcome: one
        metrics_logger.log_value("credited_not_outcome", int(mismatch), reduce="lifetime_sum")
        metrics_logger.log_value("illegal", int("illegal_action" in info), reduce="lifetime_sum")
        if "opponents" in info:
            vs = info["opponents"]
            metrics_logger.log_value(f"return_vs_{vs}", credited, reduce="mean", window=100)


def module_spec(**spaces: gym.Space) -> RLModuleSpec:
    """The learner's module; RLlib takes its spaces from the env unless ``spaces`` name them."""
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config=MODEL_CONFIG, **spaces
    )


def env_config(args: Args) -> dict:
    return {
        "opponents": args.opponents,
        "pool": args.pool,
        "num_players": args.num_players,
        "num_hands": args.num_hands,
    }


def build(args: Args):
    config = (
        PPOConfig()
        # RLlib's env checker steps random actions, which ignore the mask.
        .environment(SpinnerVsPool, env_config=env_config(args), disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .rl_module(rl_module_spec=module_spec())
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


def learner_state(algorithm) -> dict:
    """The learner's module state (actor and critic, as arrays by name)."""
    state = algorithm.learner_group.get_state(components=f"learner/rl_module/{MODULE}")
    return state["learner"]["rl_module"][MODULE]


def add_snapshot(algorithm) -> None:
    """The learner's current weights join every env runner's pool."""
    state = learner_state(algorithm)

    def add(runner) -> None:
        if runner.env is not None:  # the local env runner has none; .unwrapped: the vector env
            runner.env.unwrapped.call("add_snapshot", state)

    algorithm.env_runner_group.foreach_env_runner(add)


def random_positions(count: int, num_players: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and action masks of ``count`` decisions in random matches."""
    env, rng = spinner_v0.env(num_players=num_players), np.random.default_rng(seed)
    observations, masks = [], []
    while len(observations) < count:
        env.reset(seed=int(rng.integers(2**31)))
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            action = None
            if not (termination or truncation):
                observations.append(obs["observation"])
                masks.append(obs["action_mask"])
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return np.array(observations), np.array(masks, dtype=np.float32)


def conversion_error(state: dict, path: Path, args: Args) -> float:
    """The largest difference between the policy file's logits (legal actions) and values
    and those of the RLlib module with ``state``, over positions of random matches."""
    observations, masks = random_positions(200, args.num_players, args.seed)
    env = SpinnerVsPool(env_config(args))
    module = module_spec(observation_space=env.observation_space, action_space=env.action_space)
    module = module.build()
    module.set_state(state)

    def batch() -> dict:  # the module pops the mask out of the batch it is given
        return {
            "obs": {"observations": torch.tensor(observations), "action_mask": torch.tensor(masks)}
        }

    with torch.no_grad():
        logits = module.forward_inference(batch())["action_dist_inputs"].numpy()
        values = module.compute_values(batch()).numpy()
    agent = PolicyAgent.load(path, spinner_v0.ENCODING)
    logit_gap = np.where(masks > 0, logits - agent.logits(observations), 0.0)
    return float(max(np.abs(logit_gap).max(), np.abs(values - agent.value(observations)).max()))


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(Args, argv, __doc__)
    ray.init(address=args.address or None, include_dashboard=False)
    algorithm = build(args)
    for iteration in range(args.iterations):
        if iteration % args.snapshot_every == 0:
            add_snapshot(algorithm)
        result = algorithm.train()
        runners = result["env_runners"]
        returns = {
            key.removeprefix("return_vs_"): round(float(value), 3)
            for key, value in sorted(runners.items())
            if key.startswith("return_vs_") and not np.isnan(value)  # none this iteration
        }
        print(
            f"iteration {algorithm.iteration:>3}  "
            f"decisions {int(result['num_env_steps_sampled_lifetime']):>7}  "
            f"episodes {int(runners.get('episodes', 0)):>5}  mean return vs {returns}"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    state = learner_state(algorithm)
    value = ValueTarget("match", "match", gamma=1.0)
    save_rllib_policy(state, out, spinner_v0.ENCODING, MODEL_CONFIG, value)
    pools = algorithm.env_runner_group.foreach_env_runner(
        lambda runner: runner.env.unwrapped.call("opponent_names"), local_env_runner=False
    )
    algorithm.stop()
    ray.shutdown()
    record = {
        "args": asdict(args),
        "decisions": int(result["num_env_steps_sampled_lifetime"]),
        "episodes": int(runners.get("episodes", 0)),
        "mismatches": int(runners.get("credited_not_outcome", 0)),
        "illegal": int(runners.get("illegal", 0)),
        "returns": returns,
        "pool": pools[0][0],  # the first env runner's first env
        "conversion_error": conversion_error(state, out, args),
        "policy_file": str(out),
    }
    print(json.dumps(record))
    return record


if __name__ == "__main__":
    record = main()
    sys.exit(int(record["illegal"] > 0 or record["mismatches"] > 0))
