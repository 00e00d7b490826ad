"""How much the opponents' placements tell about their hands, and what that is worth to a
margin search: the uniform belief against the posterior that reads the choices.

The roots are positions of the Mexican Train expert's own matches (every seat the expert,
the default rules; ``--share`` of the decisions with a choice, any seat's); the collector
keeps each round's moves, which the posterior
(:class:`ChoicePosterior` (`research/posterior.py`), the expert's valuation as the
opponent model at ``--temperature`` with ``--uniform-share``) reads. Here the model is the
opponents' own valuation: at a low temperature this is as much as the choices can tell.
At each root, ``--samples`` deals from each belief give:

- the mass on the truth: for every tile in an opponent's hand, the share of the deals
  that put it in that hand (the uniform belief's is about its hand size over the hidden
  tiles; knowing the hands, 1);
- with ``--search``: each belief's deals as the determinizations of a margin search with
  the expert rolling out (``pimc:rollout=expert,margin=M``, each legal move played out in
  each deal, the same rollout seed for both beliefs' i-th deal), and the pick of each scored
  by as many determinizations that know the hidden hands (the true hands, the boneyard
  reshuffled): points a decision over the expert's own move, and the posterior's pick less
  the uniform's.

    python research/belief_choices.py --workers 2 --search      # 2 seeds x 300 roots
    python research/belief_choices.py --smoke
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from posterior import ChoicePosterior, Decision, expert_model
from search_gain import interval, margin_label, own_games, pick, switched
from spinner_env.agents import make_agent
from spinner_env.agents.search import PIMCAgent, after_each
from spinner_env.train.executor import Executor, add_arguments

from spinner_env.belief import dealt
from spinner_env.core.match import MatchState
from spinner_env.games import game_spec

Deal = tuple[list[list[Any]], list[Any]]


@dataclass(frozen=True)
class Root:
    """One root: the mass each belief puts on the truth, the expert's move (an index into
    the legal moves) and, with ``--search``, each move's score in each belief's deals and
    in the deals that know the hands (deals x moves; else no rows)."""

    uniform_mass: float
    posterior_mass: float
    own: int
    uniform: np.ndarray
    posterior: np.ndarray
    informed: np.ndarray
    window: int
    """Placements the posterior read (all opponents)."""


@dataclass(frozen=True)
class RootCollector:
    """Builds, in a worker, what collects one seed's roots (module docstring)."""

    players: int
    roots: int
    samples: int
    temperature: float
    uniform_share: float
    share: float
    search: bool
    burn_in: int
    thin: int

    def __call__(self) -> Callable[[int], list[Root]]:
        return self.collect

    def collect(self, seed: int) -> list[Root]:
        search = make_agent("pimc:rollout=expert,determinizations=1")
        assert isinstance(search, PIMCAgent)
        model = expert_model()
        rng = random.Random(seed)
        search_rng = random.Random(f"search {seed}")  # its own: --search changes no mass
        chance = np.random.default_rng(seed)
        roots: list[Root] = []
        log: list[Decision] = []  # the moves of the round in play
        for state, legal, own in own_games("mexican_train", self.players, "expert", seed):
            if len(roots) == self.roots:
                break
            if log and log[-1].before.hand_number != state.hand_number:
                log = []  # a new round (of this match or the next)
            if len(legal) > 1 and chance.random() < self.share:
                posterior = ChoicePosterior(
                    state,
                    log,
                    model,
                    self.temperature,
                    self.uniform_share,
                    burn_in=self.burn_in,
                    thin=self.thin,
                )
                roots.append(self._root(state, legal, own, posterior, search, rng, search_rng))
            log.append(Decision(state.copy(), legal[own]))
        return roots

    def _root(
        self,
        state: MatchState,
        legal: list[Any],
        own: int,
        posterior: ChoicePosterior,
        search: PIMCAgent,
        rng: random.Random,
        search_rng: random.Random,
    ) -> Root:
        me = state.current
        uniform_deals = [posterior.belief.sample_deal(rng) for _ in range(self.samples)]
        posterior_deals = [posterior.sample_deal(rng) for _ in range(self.samples)]
        tables = [np.zeros((0, len(legal)))] * 3
        if self.search:
            play_out = search._play_out(state, game_spec("mexican_train").encoding, search_rng)
            seeds = [search_rng.getrandbits(63) for _ in range(self.samples)]
            informed_deals = []
            for _ in range(self.samples):
                boneyard = list(state.boneyard)
                search_rng.shuffle(boneyard)
                informed_deals.append(([list(h) for h in state.hands], boneyard))

            def scores(deals: list[Deal]) -> np.ndarray:
                rows = []
                for (hands, boneyard), seed in zip(deals, seeds, strict=True):
                    world = dealt(state, hands, boneyard, random.Random(seed))
                    rows.append([s[me] for s in play_out(after_each(world, legal), seed)])
                return np.array(rows) * 100

            tables = [scores(d) for d in (uniform_deals, posterior_deals, informed_deals)]
        return Root(
            mass_on_truth(state, me, uniform_deals),
            mass_on_truth(state, me, posterior_deals),
            own,
            *tables,
            window=sum(len(w) for w in posterior.windows.values()),
        )


def mass_on_truth(state: MatchState, me: int, deals: Sequence[Deal]) -> float:
    """The mean, over the tiles in the other seats' hands, of the share of ``deals`` that
    put each in the hand that holds it."""
    held = {
        tile: seat for seat in range(state.num_players) if seat != me for tile in state.hands[seat]
    }
    if not held:
        return float("nan")
    right = sum(
        held.get(tile) == seat
        for hands, _ in deals
        for seat in range(state.num_players)
        if seat != me
        for tile in hands[seat]
    )
    return right / (len(held) * len(deals))


def report(roots: Sequence[Root], margins: Sequence[float | None], search: bool) -> None:
    uniform = np.array([r.uniform_mass for r in roots])
    posterior = np.array([r.posterior_mass for r in roots])
    kept = ~np.isnan(uniform)
    print(f"{len(roots)} roots, {np.mean([r.window for r in roots]):.1f} placements read a root")
    print("mass on the truth (a tile of an opponent's hand, the share of deals putting it there):")
    print(
        f"  uniform belief {uniform[kept].mean():.4f} | posterior {posterior[kept].mean():.4f}"
        f" | difference {interval(posterior[kept] - uniform[kept])} | knowing the hands 1"
    )
    if not search:
        return
    print(
        "margin search, scored by the deals that know the hands (points a decision over the"
        " expert's move, 95%):"
    )
    print(
        "margin | uniform: plays another, gain | posterior: plays another, gain"
        " | posterior less uniform"
    )
    informed = [r.informed.mean(axis=0) for r in roots]
    for margin in margins:
        cells, values = [], []
        for table in ("uniform", "posterior"):
            picks = [pick(getattr(r, table), r.own, margin) for r in roots]
            value = np.array(
                [v[p] - v[r.own] for r, p, v in zip(roots, picks, informed, strict=True)]
            )
            cells.append(f"{switched(roots, picks):.1%}, {interval(value)}")
            values.append(value)
        label = margin_label(margin)
        print(f"{label:>6} | {cells[0]} | {cells[1]} | {interval(values[1] - values[0])}")


def main(argv: Sequence[str] | None = None) -> int | None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="2 players, 2 roots, 4 deals")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--roots", type=int, default=300, help="per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--samples", type=int, default=64, help="deals from each belief")
    parser.add_argument("--temperature", type=float, default=3.0)
    parser.add_argument("--uniform-share", type=float, default=0.1)
    parser.add_argument("--share", type=float, default=0.1, help="decisions that become roots")
    parser.add_argument("--burn-in", type=int, default=200, help="the posterior chain's")
    parser.add_argument("--thin", type=int, default=10, help="chain steps between deals")
    parser.add_argument("--search", action="store_true", help="also the margin search's gain")
    parser.add_argument("--margins", nargs="+", default=["1", "2"])
    add_arguments(parser, "the seeds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.players, args.roots, args.seeds, args.samples = 2, 2, [1], 4
        args.search, args.share = True, 0.5
    try:
        if args.roots < 1 or args.samples < 2:
            raise ValueError("--roots must be at least 1 and --samples at least 2")
        if not 0 < args.share <= 1:
            raise ValueError(f"--share must be in (0, 1], got {args.share}")
        margins = [None if m == "none" else float(m) for m in args.margins]
        collector = RootCollector(
            args.players,
            args.roots,
            args.samples,
            args.temperature,
            args.uniform_share,
            args.share,
            args.search,
            args.burn_in,
            args.thin,
        )
        ChoicePosterior(
            game_spec("mexican_train").new_state(args.players, 0),
            [],
            expert_model(),
            args.temperature,
            args.uniform_share,
            burn_in=args.burn_in,
            thin=args.thin,
        )  # bad settings fail here
    except ValueError as error:
        print(f"belief_choices: {error}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    executor = Executor.from_args(args)
    roots = [r for part in executor.map(collector, args.seeds, unit="seed") for r in part]
    print(
        f"mexican_train, {args.players} players, temperature {args.temperature:g}, uniform share"
        f" {args.uniform_share:g}, {args.samples} deals (chain: burn-in {args.burn_in}, thin"
        f" {args.thin}): {time.perf_counter() - started:.0f} s"
    )
    report(roots, margins, args.search)
    return None


if __name__ == "__main__":
    sys.exit(main())
