"""What recording costs an evaluation: ``heuristic`` against ``expert``, same run.

Each round plays the same duplicate deals twice, once plain and once writing every
match's record (``spinner-evaluate --record DIR --record-matches all``: the record built
move by move and each match's file written atomically), in alternating order so that a
busy machine slows both alike, after one uncounted warm-up round (the first matches of a
process pay for its caches). Prints CPU time of this process per round, the median of
the recorded / plain ratios and the ratio of the fastest recorded to the fastest plain
round (the target: at most 1.10).

    python bench/bench_records.py --matches 20 --rounds 10
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from spinner_env.train.evaluate import RecordKeeper, tournament

AGENTS = ["heuristic", "expert"]


def timed(matches: int, seed: int, hands: int, folder: Path | None) -> float:
    keeper = None if folder is None else RecordKeeper(folder)
    started = time.process_time()
    tournament(AGENTS, 2, matches, seed, rules={"num_hands": hands}, progress=False, record=keeper)
    return time.process_time() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="2 matches of 1 hand, 1 round")
    args = parser.parse_args(argv)
    if args.smoke:
        args.matches, args.rounds, args.hands = 2, 1, 1
    ratios, plains, recordeds = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        timed(args.matches, args.rounds, args.hands, Path(tmp) / "warm-up")  # unused seed
        for r in range(args.rounds):
            folder = Path(tmp) / f"round{r}"
            if r % 2:
                recorded = timed(args.matches, r, args.hands, folder)
                plain = timed(args.matches, r, args.hands, None)
            else:
                plain = timed(args.matches, r, args.hands, None)
                recorded = timed(args.matches, r, args.hands, folder)
            ratios.append(recorded / plain)
            plains.append(plain)
            recordeds.append(recorded)
            print(
                f"round {r}: plain {plain:.2f} s, recorded {recorded:.2f} s, "
                f"ratio {ratios[-1]:.3f} ({len(list(folder.glob('*.json')))} records)"
            )
    print(
        f"recorded / plain, median of {len(ratios)} rounds: {statistics.median(ratios):.3f}; "
        f"fastest recorded / fastest plain: {min(recordeds) / min(plains):.3f}"
    )


if __name__ == "__main__":
    main()
