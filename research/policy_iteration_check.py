"""Batched match win rates of policy files whose `expert` prior carries learned weights
(``spinner-policy-iteration``) against the compiled expert: thousands of matches in
seconds, where the evaluator's 400 take a minute and leave a few points of interval.

For each file: its valuation played without the network (the player of its weights,
Spinner's compiled heuristic or Mexican Train's compiled expert, or where the file adds a
learned residual to the weights' scores, ``ValuationPolicy`` in Python; the same moves as
the file) over ``--matches``
matches from each of ``--seeds``, then the file
itself (``PolicyAgent``, its network included) over ``--file-matches`` from one more seed;
each is the first match of that many batched games (``train.league.win_rate``: the
learner's seat drawn, the expert at every other seat, whole matches under the default
rules).

    python research/policy_iteration_check.py runs/spinner_2p_policy_iteration/generation_2.*
    python research/policy_iteration_check.py --players 4 runs/<4-player run>/generation_1.*
    python research/policy_iteration_check.py --game mexican_train --players 4 --matches 1024 <file>
    python research/policy_iteration_check.py --smoke    # files of its own in each game, 16 matches
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from spinner_env.agents.features import FEATURES, Residual, Valuation, ValuationPolicy
from spinner_env.agents.policy import PolicyAgent
from spinner_env.train.config import load_config
from spinner_env.train.league import win_rate
from spinner_env.train.policy_iteration import policy_file

from spinner_env.games import GAMES, game_spec

BASE_CONFIGS = {
    "spinner": "spinner_2p_policy_iteration",
    "mexican_train": str(
        Path(__file__).resolve().parent / "configs" / "mexican_train_4p_policy_iteration.yaml"
    ),
}
"""The config each game's matches are played under (its rules, at ``--players``): a shipped
one in Spinner, research's in Mexican Train."""


def learned_weights(agent: PolicyAgent, path: str) -> np.ndarray:
    """The weights of the file's ``expert`` feature; ValueError if it carries none."""
    weights = agent.features.weights.get("expert") if agent.features else None
    if weights is None:
        raise ValueError(f"{path} reads no expert feature with weights of its own")
    return weights


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--smoke", action="store_true", help="files of its own, 16 matches")
    parser.add_argument("--game", choices=sorted(GAMES), default="spinner")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=2048, help="per seed, for the weights")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--file-matches", type=int, default=1024)
    args = parser.parse_args(argv)
    if not args.smoke:
        if not args.files:
            parser.error("give policy files (or --smoke)")
        check(parser, args)
        return
    args.matches, args.seeds, args.file_matches = 8, [1], 16
    with tempfile.TemporaryDirectory() as folder:
        for game in GAMES:  # each game's files of its own: does it run
            valuation = _valuation(game)
            weights = valuation.defaults * 0.5  # the expert's moves
            shipped = load_config(BASE_CONFIGS[game])
            size = len(valuation.linear)
            rng = np.random.default_rng(0)
            hidden = (rng.normal(size=(8, size)), np.zeros(8))
            residual = Residual(
                np.zeros(size), np.ones(size), (hidden, (np.ones((1, 8)), np.zeros(1)))
            )
            args.game, args.players = game, shipped.num_players
            args.files = [
                str(policy_file(shipped, weights, 0, Path(folder) / f"{game}.safetensors")),
                str(
                    policy_file(
                        shipped, weights, 0, Path(folder) / f"{game}_r.safetensors", residual
                    )
                ),
            ]
            check(parser, args)


def _valuation(game: str) -> Valuation:
    return FEATURES["expert"][game_spec(game).encoding.game_name].valuation


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    config = load_config(BASE_CONFIGS[args.game]).replace(
        num_players=args.players, env={"reward": "match", "episode": "match"}
    )
    encoding = game_spec(args.game).encoding
    valuation = _valuation(args.game)
    expert = valuation.player(valuation.defaults, "expert")
    for path in args.files:
        try:
            agent = PolicyAgent.load(path, encoding)
            weights = learned_weights(agent, path)
        except ValueError as error:
            parser.error(str(error))
        start = time.time()
        residual = agent.features.residuals.get("expert")
        if residual is None:
            player = valuation.player(weights, "learned")
        else:
            player = ValuationPolicy(valuation, weights, residual, "learned")
        rates = [win_rate(player, expert, config, args.matches, seed) for seed in args.seeds]
        file_rate = win_rate(agent, expert, config, args.file_matches, max(args.seeds) + 1000)
        print(
            f"{path}: its valuation {np.mean(rates):.1%} of {args.matches * len(args.seeds)} "
            f"matches ({', '.join(f'{r:.1%}' for r in rates)}), the file {file_rate:.1%} of "
            f"{args.file_matches} ({time.time() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
