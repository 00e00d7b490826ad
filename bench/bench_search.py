"""Search players: iterations per second, what an iteration costs, and strength by budget.

1. Speed: PIMC and ISMCTS (heuristic, random and policy-network rollouts: the committed
   ``spinner_2p_clone``, ``spinner_2p`` and ``mexican_train_4p``) deciding on positions of
   random play (decisions with two or more legal moves), both games, 2 players, rolling
   out on the reference engine and on the batched numba engine: iterations per CPU second (a PIMC
   iteration is one determinization with a rollout of every legal move; a network's
   PIMC rollouts share forward passes, so a larger budget runs faster per iteration).
2. Cost of one iteration's parts: the belief (once per decision), a determinization,
   ``state.copy()``, a rollout to the end of the hand on the reference engine (heuristic,
   random), and on the batched engine (``SpinnerRollouts``, ``MexicanTrainRollouts``:
   loading the position into a compiled record, then the compiled heuristic playing it
   out, one position per call as ISMCTS asks and 16 per call as PIMC does).
3. Strength against budget: PIMC and ISMCTS at time budgets per move against
   ``heuristic`` in 2-player Spinner duplicate matches (``spinner_env.train.evaluate.tournament``),
   match win rate with its 95% interval.

Run it with one BLAS thread (``OMP_NUM_THREADS=1``), as docs/results/search.md's figures are:
a threaded BLAS on small batches costs more than it gains on a busy machine.
Times are CPU seconds of the process (``time.thread_time``), so other work on the
machine does not change them; the search players' ``time`` budget is counted the same way.

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
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.agents.search import SearchAgent
from spinner_env.train.evaluate import tournament

from spinner_env.belief import Belief
from spinner_env.core.agent import GameView, choose_move
from spinner_env.core.match import MatchState
from spinner_env.games import game_spec

POLICIES = {
    "spinner": ("spinner_2p_clone", "spinner_2p"),
    "mexican_train": ("mexican_train_4p",),
}
"""The committed policy networks each game's network-guided rows roll out with: networks
that run a forward pass a step (``spinner_2p_clone``, ``mexican_train_4p``) and, in Spinner,
one that is its prior's player and so rolls out as the compiled heuristic with its learned
weights (``spinner_2p``, ``PolicyAgent.compiled_twin``)."""


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
    """Iterations per CPU second of ``agent_spec`` with ``iterations`` per decision."""
    encoding = game_spec(game).encoding
    agent = make_agent(f"{agent_spec},iterations={iterations}", seed=0)
    state, legal = spots[0]
    agent.choose(None, legal, GameView(state, encoding))  # load the compiled code first
    start = time.thread_time()
    for state, legal in spots:
        agent.choose(None, legal, GameView(state, encoding))
    return iterations * len(spots) / (time.thread_time() - start)


def part_costs(game: str, spots: list) -> dict[str, float]:
    """Mean CPU seconds of each part of an iteration, and decisions per rollout."""
    encoding = game_spec(game).encoding
    rng = random.Random(0)
    heuristic = HeuristicAgent()
    clocks = dict.fromkeys(("belief", "determinize", "copy", "rollout heuristic"), 0.0)
    clocks["rollout random"] = 0.0
    decisions = 0
    for state, _ in spots:
        t0 = time.thread_time()
        belief = Belief(state)
        t1 = time.thread_time()
        world = belief.determinize(rng)
        t2 = time.thread_time()
        copy = world.copy()
        t3 = time.thread_time()
        while not world.hand_over:
            world.play_legal(choose_move(heuristic, world, encoding))
            decisions += 1
        t4 = time.thread_time()
        while not copy.hand_over:
            copy.play_legal(rng.choice(copy.legal_moves()))
        t5 = time.thread_time()
        for key, dt in zip(clocks, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            clocks[key] += dt
    costs = {key: total / len(spots) for key, total in clocks.items()}
    costs["moves per rollout"] = decisions / len(spots)
    return costs


def batched_rollout_costs(spots: list, repeats: int) -> dict[str, float]:
    """Mean CPU seconds per position of the batched engine's rollouts: loading a position
    into a compiled record, and loading plus the compiled heuristic's play-out, one
    position per call (ISMCTS) and 16 per call (PIMC)."""
    rng = random.Random(0)
    searcher = make_agent("pimc:rollout=heuristic,engine=batched")
    assert isinstance(searcher, SearchAgent)
    rollouts = searcher._batched_rollouts(spots[0][0])  # as the search players make them
    assert rollouts is not None
    rollouts.play_out([spots[0][0].copy()], 0)  # load the compiled code first
    worlds = [Belief(state).determinize(rng) for state, _ in spots for _ in range(repeats)]
    start = time.thread_time()
    for world in worlds:
        rollouts.load_state(rollouts.games[0], world)
    loaded = time.thread_time()
    for world in worlds:
        rollouts.play_out([world.copy()], 0)
    single = time.thread_time()
    for first in range(0, len(worlds), 16):
        rollouts.play_out([w.copy() for w in worlds[first : first + 16]], 0)
    batched = time.thread_time()
    return {
        "load": (loaded - start) / len(worlds),
        "load + rollout, 1 per call": (single - loaded) / len(worlds),
        "load + rollout, 16 per call": (batched - single) / len(worlds),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20, help="decisions timed per row")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.01, 0.03])
    parser.add_argument("--matches", type=int, default=20, help="matches per budget and player")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="2 positions, 2 matches at 0.01 s")
    args = parser.parse_args(argv)
    if args.smoke:
        args.positions, args.budgets, args.matches = 2, [0.01], 2

    print("1. iterations per CPU second (2 players, one core; player:iterations per decision)")
    print(f"{'game':<15}{'player':<11}{'rollout':<18}{'engine':<11}{'iterations/s':>14}")
    for game in ("spinner", "mexican_train"):
        spots = positions(game, 2, args.positions)
        rows = [
            (player, iterations, rollout)
            for player, iterations in (("ismcts", 40), ("pimc", 4))
            for rollout in ("heuristic", "random", *POLICIES[game])
        ]
        # A network's batches fill with more determinizations.
        rows.extend(("pimc", 32, policy) for policy in POLICIES[game])
        for player, iterations, rollout in rows:
            for engine in ("reference", "batched"):
                spec = f"{player}:rollout={rollout},engine={engine}"
                rate = iteration_rate(game, spec, iterations, spots)
                label = f"{player}:{iterations}"
                print(f"{game:<15}{label:<11}{rollout:<18}{engine:<11}{rate:>14,.0f}")

    print("\n2. one iteration's parts (mean CPU time over the positions)")
    for game in ("spinner", "mexican_train"):
        spots = positions(game, 2, args.positions)
        costs = part_costs(game, spots)
        moves = costs.pop("moves per rollout")
        parts = ", ".join(f"{key} {1e3 * sec:.3f} ms" for key, sec in costs.items())
        print(f"{game}, reference engine: {parts}; {moves:.0f} moves per rollout")
        batched = batched_rollout_costs(spots, repeats=5)
        parts = ", ".join(f"{key} {1e3 * sec:.3f} ms" for key, sec in batched.items())
        print(f"{game}, batched engine: {parts}")
        speedup = costs["rollout heuristic"] / batched["load + rollout, 1 per call"]
        print(f"  a heuristic rollout is {speedup:.0f}x cheaper on the batched engine")

    if args.skip_strength:
        return
    print(f"\n3. strength against heuristic: 2-player Spinner, {args.matches} duplicate matches")
    print(f"{'player':<26}{'match win rate (95% CI)':>28}{'CPU s':>10}")
    heuristic = make_agent("heuristic")
    for budget in args.budgets:
        for player in ("pimc", "ismcts"):
            agent = make_agent(f"{player}:time={budget}")
            start = time.thread_time()
            report = tournament([agent, heuristic], 2, args.matches, seed=0, progress=False)
            win = report.agents[agent.name]["match_win"]
            cell = f"{100 * win.mean:5.1f}% [{100 * win.low:5.1f}, {100 * win.high:5.1f}]"
            print(f"{agent.name:<26}{cell:>28}{time.thread_time() - start:>10.0f}")


if __name__ == "__main__":
    main()
