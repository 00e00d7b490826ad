"""Search players: iterations per second, what an iteration costs, and strength by budget.

1. Speed: PIMC and ISMCTS (heuristic and random rollouts) deciding on positions of random
   play (decisions with two or more legal moves), both games, 2 players: iterations per
   second (a PIMC iteration is one determinization with a rollout of every legal move).
2. Cost of one iteration's parts on the reference engine: the belief (once per decision),
   a determinization, ``state.copy()``, and a rollout to the end of the hand; beside it
   the batched numba Spinner engine choosing with the compiled heuristic, whole loop, to
   say whether rollouts would be faster there.
3. Strength against budget: PIMC and ISMCTS at time budgets per move against
   ``heuristic`` in 2-player Spinner duplicate matches (``spinner_env.train.evaluate.tournament``),
   match win rate with its 95% interval.

    python bench/bench_search.py                      # budgets 0.01, 0.03 s; 20 matches each
    python bench/bench_search.py --budgets 0.01 0.03 0.1 0.3 --matches 100
    python bench/bench_search.py --skip-strength      # speed only (about a minute)
    python bench/bench_search.py --smoke              # a few seconds: does it run
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

import numpy as np
from spinner_env.agents import make_agent
from spinner_env.agents.base import GameView
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.train.evaluate import tournament

from spinner_env.belief import Belief
from spinner_env.games import game_spec
from spinner_env.match import MatchState


def positions(game: str, num_players: int, count: int) -> list[tuple[MatchState, np.ndarray]]:
    """``count`` decisions of random play (two or more legal moves), from seeds 0, 1, ..."""
    spec = game_spec(game)
    found: list[tuple[MatchState, np.ndarray]] = []
    seed = 0
    while len(found) < count:
        state = spec.new_state(num_players, seed)
        rng = random.Random(seed)
        while not state.hand_over and len(found) < count:
            legal = state.legal_moves()
            if len(legal) > 1 and rng.random() < 0.2:
                ids = np.array(sorted(spec.encoding.action_of(m) for m in legal))
                found.append((state.copy(), ids))
            state.play_legal(rng.choice(legal))
        seed += 1
    return found


def iteration_rate(game: str, agent_spec: str, iterations: int, spots: list) -> float:
    """Iterations per second of ``agent_spec`` with ``iterations`` per decision."""
    encoding = game_spec(game).encoding
    agent = make_agent(f"{agent_spec},iterations={iterations}", seed=0)
    start = time.perf_counter()
    for state, legal in spots:
        agent.choose(None, legal, GameView(state, encoding))
    return iterations * len(spots) / (time.perf_counter() - start)


def part_costs(game: str, spots: list) -> dict[str, float]:
    """Mean seconds of each part of an iteration, and decisions per rollout."""
    encoding = game_spec(game).encoding
    rng = random.Random(0)
    heuristic = HeuristicAgent()
    clocks = dict.fromkeys(("belief", "determinize", "copy", "rollout heuristic"), 0.0)
    clocks["rollout random"] = 0.0
    decisions = 0
    for state, _ in spots:
        t0 = time.perf_counter()
        belief = Belief(state)
        t1 = time.perf_counter()
        world = belief.determinize(rng)
        t2 = time.perf_counter()
        copy = world.copy()
        t3 = time.perf_counter()
        while not world.hand_over:
            legal = world.legal_moves()
            if len(legal) > 1:
                mask = np.zeros(encoding.num_actions, np.int8)
                mask[[encoding.action_of(m) for m in legal]] = 1
                move = encoding.move_of(heuristic.act(None, mask, GameView(world, encoding)))
            else:
                move = legal[0]
            world.play_legal(move)
            decisions += 1
        t4 = time.perf_counter()
        while not copy.hand_over:
            copy.play_legal(rng.choice(copy.legal_moves()))
        t5 = time.perf_counter()
        for key, dt in zip(clocks, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            clocks[key] += dt
    costs = {key: total / len(spots) for key, total in clocks.items()}
    costs["moves per rollout"] = decisions / len(spots)
    return costs


def batched_heuristic_rate(num_players: int, num_games: int, seconds: float) -> float:
    """Moves per second of the batched Spinner engine choosing with the compiled
    heuristic in every game (the whole loop: choose and step)."""
    from spinner_env.batched.spinner import BatchedSpinner
    from spinner_env.batched.spinner_heuristic import heuristic_actions
    from spinner_env.spinner import SpinnerRules

    weights = HeuristicAgent().weights.as_array()
    engine = BatchedSpinner(num_games, SpinnerRules(num_players=num_players))
    step = engine.reset(0)
    engine.step(heuristic_actions(engine.games, num_players, step.mask, weights))  # compile
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step = engine.step(heuristic_actions(engine.games, num_players, step.mask, weights))
        moves += num_games
    return moves / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20, help="decisions timed per row")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.01, 0.03])
    parser.add_argument("--matches", type=int, default=20, help="matches per budget and player")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument(
        "--smoke", action="store_true", help="2 positions, B up to 64, 2 matches at 0.01 s"
    )
    args = parser.parse_args(argv)
    batches, batch_seconds = (1, 64, 1024), 2.0
    if args.smoke:
        args.positions, args.budgets, args.matches = 2, [0.01], 2
        batches, batch_seconds = (1, 64), 0.1

    print("1. iterations per second (2 players, reference engine, one core)")
    print(f"{'game':<15}{'player':<10}{'rollout':<11}{'iterations/s':>14}")
    for game in ("spinner", "mexican_train"):
        spots = positions(game, 2, args.positions)
        for player, iterations in (("ismcts", 40), ("pimc", 4)):
            for rollout in ("heuristic", "random"):
                rate = iteration_rate(game, f"{player}:rollout={rollout}", iterations, spots)
                print(f"{game:<15}{player:<10}{rollout:<11}{rate:>14,.0f}")

    print("\n2. one iteration's parts on the reference engine (mean over the positions)")
    for game in ("spinner", "mexican_train"):
        costs = part_costs(game, positions(game, 2, args.positions))
        moves = costs.pop("moves per rollout")
        parts = ", ".join(f"{key} {1e3 * sec:.3f} ms" for key, sec in costs.items())
        print(f"{game}: {parts}; {moves:.0f} moves per rollout")
        if game == "spinner":
            reference = moves / costs["rollout heuristic"]
            print(f"  reference engine, heuristic rollout: {reference:,.0f} moves/s")
            for batch in batches:
                rate = batched_heuristic_rate(2, batch, batch_seconds)
                print(
                    f"  batched engine + compiled heuristic, B={batch}: {rate:,.0f} moves/s "
                    f"({rate / reference:.0f}x)"
                )

    if args.skip_strength:
        return
    print(f"\n3. strength against heuristic: 2-player Spinner, {args.matches} duplicate matches")
    print(f"{'player':<26}{'match win rate (95% CI)':>28}{'seconds':>10}")
    heuristic = make_agent("heuristic")
    for budget in args.budgets:
        for player in ("pimc", "ismcts"):
            agent = make_agent(f"{player}:time={budget}")
            start = time.perf_counter()
            report = tournament([agent, heuristic], 2, args.matches, seed=0, progress=False)
            win = report.agents[agent.name]["match_win"]
            cell = f"{100 * win.mean:5.1f}% [{100 * win.low:5.1f}, {100 * win.high:5.1f}]"
            print(f"{agent.name:<26}{cell:>28}{time.perf_counter() - start:>10.0f}")


if __name__ == "__main__":
    main()
