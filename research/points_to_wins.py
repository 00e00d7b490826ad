"""What a steady lead of some points a hand is worth in match wins.

A player that improves on a policy gains points a hand (what ``research/search_gain.py``
measures, a decision at a time); a target is a match win rate. This script plays the
policy's own matches (every seat the same policy, full matches under the default rules),
keeps every hand's points, and reports the match win rate (S7.2 / M6.3: the lowest total
wins, ties share the win) of a seat whose every hand had scored ``delta`` points fewer, the
others' hands as they were, for each ``--deltas`` entry; every seat in turn, with a 95%
interval over the matches. It is a model: a better player would change the hands it plays,
not only its own points in them.

Each ``--seeds`` entry is one task (a process with ``--workers``) that plays ``--matches``
matches, dealt from seeds ``seed * 100000``, ``seed * 100000 + 1``, ...:

    python research/points_to_wins.py --workers 2   # Mexican Train, 4 experts, 2,000 matches: 3 min
    python research/points_to_wins.py --smoke
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from spinner_env.agents import make_agent
from spinner_env.train.evaluate import Estimate, play_match
from spinner_env.train.executor import Executor, add_arguments

from spinner_env.games import GAMES, game_spec


@dataclass(frozen=True)
class HandPoints:
    """Builds, in a worker, what plays one seed's matches and returns each hand's points
    (matches x hands x seats)."""

    game: str
    players: int
    policy: str
    matches: int

    def __call__(self) -> Callable[[int], np.ndarray]:
        return self.play

    def play(self, seed: int) -> np.ndarray:
        spec = game_spec(self.game)
        agents = [make_agent(self.policy) for _ in range(self.players)]
        for seat, agent in enumerate(agents):
            agent.seed(seed * 100 + seat)
        records = [
            play_match(spec, self.players, seed * 100000 + match, agents)
            for match in range(self.matches)
        ]
        return np.array([record.hand_points for record in records], dtype=float)


def win_shares(points: np.ndarray, delta: float) -> np.ndarray:
    """Each seat's share of each match's win (matches x seats) had that seat alone scored
    ``delta`` points fewer in every hand of ``points`` (matches x hands x seats)."""
    totals = points.sum(axis=1)
    shares = np.empty_like(totals)
    for seat in range(totals.shape[1]):
        moved = totals.copy()
        moved[:, seat] -= delta * points.shape[1]
        winners = moved == moved.min(axis=1, keepdims=True)
        shares[:, seat] = winners[:, seat] / winners.sum(axis=1)
    return shares


def report(points: np.ndarray, deltas: Sequence[float]) -> None:
    matches, hands, seats = points.shape
    print(
        f"{matches} matches of {hands} hands; a seat's points a hand: mean {points.mean():.2f}, "
        f"standard deviation {points.std():.2f}"
    )
    print("points fewer a hand | match win rate (95%) | fair share")
    for delta in deltas:
        # A match's seats are not independent: the interval is over matches, each the rate
        # of its seats' counterfactual wins.
        rate = Estimate.rate(win_shares(points, delta).mean(axis=1), seats)
        interval = f"{rate.mean:.1%} [{rate.low:.1%}, {rate.high:.1%}]"
        print(f"{delta:>19g} | {interval:>20} | {1 / seats:.1%}")


def main(argv: Sequence[str] | None = None) -> int | None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="Spinner, 2 greedy players, 4 matches")
    parser.add_argument("--game", choices=sorted(GAMES), default="mexican_train")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="expert", help="every seat's agent spec")
    parser.add_argument("--matches", type=int, default=100, help="per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(20)))
    parser.add_argument("--deltas", type=float, nargs="+", default=[0, 1, 2, 3, 3.5, 4, 5, 6, 8])
    add_arguments(parser, "the seeds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.game, args.players, args.policy, args.matches, args.seeds = (
            "spinner",
            2,
            "greedy",
            2,
            [1, 2],
        )
    try:
        if args.matches < 1:
            raise ValueError("--matches must be at least 1")
        if min(args.seeds) < 0:
            raise ValueError("--seeds must not be negative")
        game_spec(args.game).new_state(args.players, 0)  # a bad table fails here, not in a worker
        make_agent(args.policy)
        executor = Executor.from_args(args)
    except ValueError as error:
        print(f"points_to_wins: {error}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    player = HandPoints(args.game, args.players, args.policy, args.matches)
    points = np.concatenate(list(executor.map(player, args.seeds, unit="seed")))
    took = time.perf_counter() - started
    print(f"{args.game}, {args.players} players, every seat {args.policy}: {took:.0f} s")
    report(points, args.deltas)
    return None


if __name__ == "__main__":
    sys.exit(main())
