"""Decisions per second through TorchRL's and RLlib's PettingZoo wrappers: spinner_v0 next
to PettingZoo's connect_four_v3 in the same wrappers.

Every row plays masked random matches (2 players, whole matches) and reads each
decision's observation and mask as the wrapper hands them out:

1. the plain PettingZoo AEC loop (``bench_aec.random_play_rate``), for reference;
2. TorchRL's ``PettingZooWrapper(env, use_mask=True)``: ``rand_action`` (which, on one
   wrapped env, samples the mask) and ``step_and_maybe_reset``;
3. RLlib's ``PettingZooEnv``: a random legal action from the acting agent's mask, ``step``.

The rows run in rounds (every row once per round); a rate is the median over rounds, and
the ratio spinner_v0 / connect_four_v3 of a wrapper is the median of the same-round
ratios. RLlib pins its own gymnasium, so its rows run from ``.venv-rllib`` (``make
rllib-venv``); a wrapper that is not installed gives an empty row.

    python bench/bench_wrappers.py                     # TorchRL (main venv): 3 rounds of 3 s
    .venv-rllib/bin/python bench/bench_wrappers.py     # RLlib
    python bench/bench_wrappers.py --smoke             # 1 round of 0.1 s: does it run
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
from bench_aec import random_play_rate
from pettingzoo import AECEnv

from spinner_env import spinner_v0

MakeEnv = Callable[[], AECEnv]


def torchrl_rate(make_env: MakeEnv, seconds: float, seed: int = 0) -> float | None:
    """Decisions per second through TorchRL's wrapper; None without TorchRL."""
    try:
        from torchrl.envs import PettingZooWrapper
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "tested using PettingZoo 1.24.3"
        env = PettingZooWrapper(make_env(), use_mask=True, seed=seed)
    td = env.reset()
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        td = env.rand_action(td)
        _, td = env.step_and_maybe_reset(td)
        decisions += 1
    rate = decisions / (time.perf_counter() - start)
    env.close()
    return rate


def rllib_rate(make_env: MakeEnv, seconds: float, seed: int = 0) -> float | None:
    """Decisions per second through RLlib's wrapper; None without RLlib."""
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError:
        return None
    env = PettingZooEnv(make_env())
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        agent, agent_obs = next(iter(obs.items()))
        legal = np.flatnonzero(agent_obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step({agent: int(legal[rng.integers(len(legal))])})
        decisions += 1
        if terminated["__all__"] or truncated["__all__"]:
            obs, _ = env.reset(seed=int(rng.integers(2**31)))
    rate = decisions / (time.perf_counter() - start)
    env.close()
    return rate


def aec_rate(make_env: MakeEnv, seconds: float, seed: int = 0) -> float:
    return random_play_rate(make_env, seconds, seed)["decisions_per_s"]


WRAPPERS: dict[str, Callable[[MakeEnv, float], float | None]] = {
    "PettingZoo AEC loop": aec_rate,
    "TorchRL PettingZooWrapper": torchrl_rate,
    "RLlib PettingZooEnv": rllib_rate,
}


def games() -> dict[str, MakeEnv | None]:
    """The two games' ``env()``; connect_four_v3 is None without pygame."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        connect_four = None
    else:
        connect_four = connect_four_v3.env
    return {"spinner_v0": partial(spinner_v0.env, num_players=2), "connect_four_v3": connect_four}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="1 round of 0.1 s per row")
    args = parser.parse_args(argv)
    if args.smoke:
        args.seconds, args.rounds = 0.1, 1
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    envs = games()
    rates: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for wrapper, measure in WRAPPERS.items():
            for game, make_env in envs.items():
                rate = None if make_env is None else measure(make_env, args.seconds)
                if rate is not None:
                    rates.setdefault((wrapper, game), []).append(rate)
    print(f"{args.rounds} round(s) of {args.seconds:g} s per row; medians over rounds")
    print(f"{'wrapper':<27} {'spinner_v0':>12} {'connect_four_v3':>16} {'ratio':>7}")
    for wrapper in WRAPPERS:
        spinner = rates.get((wrapper, "spinner_v0"))
        peer = rates.get((wrapper, "connect_four_v3"))
        if spinner is None:
            print(f"{wrapper:<27} {'not installed in this venv':>37}")
            continue
        peer_text = f"{statistics.median(peer):>16,.0f}" if peer else f"{'-':>16}"
        ratio = (
            f"{statistics.median(s / p for s, p in zip(spinner, peer, strict=True)):>6.2f}x"
            if peer
            else f"{'-':>7}"
        )
        print(f"{wrapper:<27} {statistics.median(spinner):>12,.0f} {peer_text} {ratio}")


if __name__ == "__main__":
    main()
