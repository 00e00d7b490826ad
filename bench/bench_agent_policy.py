"""What an agent with no compiled twin costs in batched games (``AgentPolicy``).

Such an agent (a search player, the Mexican Train expert) plays each batched game's
reference state, read back from the game's record (``state_of``). This prints the cost of
reading a state back, unchecked (as ``AgentPolicy`` reads the engine's own records) and
validated, and the learner steps a second of a 2-player ``LearnerBatch`` of one-hand
episodes whose every opponent seat is the agent, the learner's seat played by the compiled
heuristic (so the count is the opponent's and the engine's cost, in games as the league's
win-rate measurements play them). CPU time of this process.

    python bench/bench_agent_policy.py --seconds 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from spinner_env.agents import make_agent

from spinner_env.batched.core import sample_legal
from spinner_env.batched.vector import LearnerBatch, as_batched
from spinner_env.games import game_of
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.rules import SpinnerRules

OPPONENTS = {
    "spinner": ["heuristic", "pimc:determinizations=2", "ismcts:iterations=25"],
    "mexican_train": ["heuristic", "expert", "pimc:determinizations=2"],
}


def read_back_cost(rules: SpinnerRules | MexicanTrainRules, check: bool, seconds: float) -> float:
    """Microseconds per ``state_of`` over the records of random play."""
    game = game_of(rules)
    engine = game.engine()(64, rules)
    step = engine.reset(0)
    rng = np.random.default_rng(0)
    records = []
    for _ in range(40):
        step = engine.step(sample_legal(step.mask, rng.random(64)))
        records.extend(engine.games.copy())
    done = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        for record in records:
            game.rollouts().state_of(record, rules, check)
        done += len(records)
    return (time.process_time() - started) / done * 1e6


def learner_steps_per_second(
    rules: SpinnerRules | MexicanTrainRules, spec: str, seconds: float
) -> float:
    batch = LearnerBatch(
        16,
        rules,
        opponents=make_agent(spec, seed=0),
        reward="hand_score",
        episode="hand",
        skip_forced=True,
    )
    learner = as_batched("heuristic", rules)
    batch.reset(0)
    steps = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        batch.step(batch.actions_of(learner))
        steps += batch.num_envs
    return steps / (time.process_time() - started)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--smoke", action="store_true", help="0.05 s each, one opponent")
    args = parser.parse_args(argv)
    seconds = 0.05 if args.smoke else args.seconds
    for name, rules in (
        ("spinner", SpinnerRules(num_players=2)),
        ("mexican_train", MexicanTrainRules(num_players=2)),
    ):
        unchecked = read_back_cost(rules, False, seconds)
        checked = read_back_cost(rules, True, seconds)
        print(f"{name}: state_of {unchecked:.0f} us a record, {checked:.0f} us validated")
        for spec in OPPONENTS[name][: 2 if args.smoke else None]:
            rate = learner_steps_per_second(rules, spec, seconds)
            print(f"  every opponent seat {spec:26s} {rate:10,.0f} learner steps/s")


if __name__ == "__main__":
    main()
