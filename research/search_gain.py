"""How much a PIMC decision gains over its rollout policy's own move, by budget and margin.

The roots are positions of the rollout policy's own games (every seat played by it, full
matches under the default rules; a quarter of the decisions with a choice, any seat's).
At each root the script records what `pimc:rollout=<policy>` sees, each legal move's
score in every one of ``--determinizations`` determinizations (drawn and played out as the
search does), and what it cannot see: each legal move played out from the true position
(the hidden hands and the boneyard as dealt) by the rollout policy. For each budget (the
first k determinizations) and ``margin`` (option of `pimc`; "none": the best mean plays)
it then scores the move PIMC would play against the policy's own move:

- truth: by the true play-outs, points of hand score difference a decision (S7 / M6.2,
  x 100), with a 95% interval over the roots: what the move gains in the game played;
- model: by determinizations the pick did not use (the second half of them, for budgets
  up to half): what it gains where the hidden tiles are as uniform as the belief draws
  them, with a much smaller interval.

Each ``--seeds`` entry is one task (a process with ``--workers``) that collects
``--roots`` roots from its own matches:

    python research/search_gain.py --workers 2   # Mexican Train, 4 players, the expert; 6,000 roots
    python research/search_gain.py --smoke

With ``--oracle`` each root also gets as many determinizations that know the hidden hands
(the true hands, the boneyard reshuffled): a second table scores the search's pick, and the
pick of a search given the hands, by the held-out half of them (what the move is worth
with the hands as they are): how much better beliefs could be worth.

The budgets are a quarter, half and all of the determinizations unless ``--budgets``
names others. Under the table two lines bound what any budget could gain by the model (the
one-step improvement on the rollout policy, at this belief): the best move by one quarter
of the determinizations, scored by another (too low: the pick is noisy), and the best by
the held-out half, scored by itself (too high: it is scored by its own noise).

``--save FILE.npz`` keeps every root (its position as ``to_dict`` JSON, its legal moves,
the policy's move and both score tables) so that ``--load FILE.npz`` reports on them again,
with other margins, or analyses them otherwise, without playing anything.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from spinner_env.agents import make_agent
from spinner_env.agents.search import PIMCAgent, after_each, agent_move, pimc_choice
from spinner_env.train.executor import Executor, add_arguments

from spinner_env.belief import Belief
from spinner_env.core.match import MatchState
from spinner_env.files import atomic_write
from spinner_env.games import GAMES, game_spec

ROOT_SHARE = 0.25
"""The share of the decisions with a choice that become roots."""


@dataclass(frozen=True)
class Root:
    """One root: the policy's own move (an index into the legal moves), each move's score
    for the seat to act in each determinization (rows) and from the true position, and in
    each determinization that knows the hidden hands (``--oracle``; else no rows); the
    position (``to_dict`` as JSON) and its legal moves, for analyses beyond the report."""

    own: int
    determinized: np.ndarray
    true: np.ndarray
    informed: np.ndarray
    position: str
    moves: tuple[str, ...]


@dataclass(frozen=True)
class RootCollector:
    """Builds, in a worker, what collects one seed's roots (module docstring)."""

    game: str
    players: int
    rollout: str
    determinizations: int
    roots: int
    oracle: bool = False

    def __call__(self) -> Callable[[int], list[Root]]:
        return self.collect

    def collect(self, seed: int) -> list[Root]:
        search = make_agent(f"pimc:rollout={self.rollout},determinizations=1")
        assert isinstance(search, PIMCAgent)
        rng = random.Random(seed)
        oracle_rng = random.Random(f"oracle {seed}")  # its own: --oracle changes no other score
        chance = np.random.default_rng(seed)
        roots: list[Root] = []
        for state, legal, own in own_games(self.game, self.players, self.rollout, seed):
            if len(roots) == self.roots:
                break
            if len(legal) > 1 and chance.random() < ROOT_SHARE:
                roots.append(self._root(state, legal, own, search, rng, oracle_rng))
        return roots

    def _root(
        self,
        state: MatchState,
        legal: list[Any],
        own: int,
        search: PIMCAgent,
        rng: random.Random,
        oracle_rng: random.Random,
    ) -> Root:
        me = state.current
        play_out = search._play_out(state, game_spec(self.game).encoding, rng)
        belief = Belief(state)

        def scores(world: MatchState, rng: random.Random) -> list[float]:
            return [s[me] for s in play_out(after_each(world, legal), rng.getrandbits(63))]

        determinized = [scores(belief.determinize(rng), rng) for _ in range(self.determinizations)]
        true = [s[me] for s in play_out(after_each(state.copy(), legal), 0)]
        informed = []
        for _ in range(self.determinizations if self.oracle else 0):
            world = state.copy()
            oracle_rng.shuffle(world.boneyard)
            informed.append(scores(world, oracle_rng))
        return Root(
            own,
            np.array(determinized) * 100,
            np.array(true) * 100,
            np.array(informed).reshape(-1, len(legal)) * 100,
            json.dumps(state.to_dict()),  # type: ignore[attr-defined]  # both games' states
            tuple(str(m) for m in legal),
        )


def own_games(
    game: str, players: int, policy: str, seed: int
) -> Iterator[tuple[MatchState, list[Any], int]]:
    """The decisions of ``policy``'s own matches (every seat, full matches of seeds
    ``seed * 1000``, ``seed * 1000 + 1``, ...), without end: the position, its legal
    moves and the index of the policy's move, played once the caller asks for the next."""
    spec = game_spec(game)
    agent = make_agent(policy)
    for match in itertools.count():
        state = spec.new_state(players, seed * 1000 + match)
        while not state.match_over:
            legal = state.legal_moves()
            move = legal[0] if len(legal) == 1 else agent_move(agent, state, legal, spec.encoding)
            yield state, legal, legal.index(move)
            state.play_legal(move)
            if state.hand_over and not state.match_over:
                state.start_next_hand()


def refuse_existing(path: str) -> None:
    """ValueError if ``path`` exists (saved roots are never overwritten) or its folder
    does not."""
    if Path(path).exists():
        raise ValueError(f"{path} exists: give a new file to save the roots in")
    if not Path(path).resolve().parent.is_dir():
        raise ValueError(f"{path}: no folder {Path(path).parent} to save the roots in")


def save(path: str, roots: Sequence[Root], settings: dict[str, Any]) -> None:
    """Write ``roots`` and the run's ``settings`` to ``path`` (a new .npz file, written
    atomically; ValueError if it exists)."""
    refuse_existing(path)
    with atomic_write(path, "wb") as f:
        np.savez_compressed(
            f,
            settings=np.array(json.dumps(settings)),
            own=np.array([r.own for r in roots]),
            num_moves=np.array([len(r.moves) for r in roots]),
            determinized=np.concatenate([r.determinized for r in roots], axis=1),
            true=np.concatenate([r.true for r in roots]),
            informed=np.concatenate([r.informed for r in roots], axis=1),
            positions=np.array([r.position for r in roots]),
            moves=np.array([m for r in roots for m in r.moves]),
        )


def load(path: str) -> tuple[list[Root], dict[str, Any]]:
    """The roots and settings :func:`save` wrote to ``path`` (nothing is unpickled; files
    saved before ``--oracle`` existed have no informed determinizations); ValueError if
    it is not such a file."""
    with np.load(path, allow_pickle=False) as data:
        try:
            ends = np.cumsum(data["num_moves"])
            starts = ends - data["num_moves"]
            determinized, true = data["determinized"], data["true"]
            informed = data["informed"] if "informed" in data.files else np.zeros((0, len(true)))
            moves, positions = data["moves"], data["positions"]
            roots = [
                Root(
                    int(own),
                    determinized[:, a:b],
                    true[a:b],
                    informed[:, a:b],
                    str(position),
                    tuple(map(str, moves[a:b])),
                )
                for own, a, b, position in zip(data["own"], starts, ends, positions, strict=True)
            ]
            return roots, json.loads(str(data["settings"]))
        except KeyError as missing:
            raise ValueError(f"{path} is not a file of saved roots: {missing}") from None


def pick(scores: np.ndarray, own: int, margin: float | None) -> int:
    """The move PIMC plays from ``scores`` (determinizations x moves), as `pimc` decides."""
    squared_differences = ((scores - scores[:, [own]]) ** 2).sum(axis=0)
    return pimc_choice(scores.sum(axis=0), squared_differences, len(scores), own, margin)


def interval(gains: np.ndarray) -> str:
    return f"{gains.mean():+.3f} ± {1.96 * gains.std() / np.sqrt(len(gains)):.3f}"


def gains(roots: Sequence[Root], picks: Sequence[int], values: Sequence[np.ndarray]) -> str:
    """The mean gain of ``picks`` over each root's own move, each root's moves valued by
    ``values``, with its 95% interval."""
    differences = [v[p] - v[r.own] for r, p, v in zip(roots, picks, values, strict=True)]
    return interval(np.array(differences))


def switched(roots: Sequence[Root], picks: Sequence[int]) -> float:
    """The share of ``picks`` that are not the root's own move."""
    return float(np.mean([p != r.own for r, p in zip(roots, picks, strict=True)]))


def budgets_up_to(total: int) -> list[int]:
    """A quarter, half and all of ``total`` determinizations (the report's budgets)."""
    return sorted({max(1, total // 4), max(1, total // 2), total})


def margin_label(margin: float | None) -> str:
    return "none" if margin is None else f"{margin:g}"


def report(
    roots: Sequence[Root], margins: Sequence[float | None], budgets: Sequence[int] | None = None
) -> None:
    """The gain table for ``budgets`` (default :func:`budgets_up_to` the determinizations),
    the model's bounds on any budget's gain and, with informed determinizations, the
    second table (module docstring)."""
    total = roots[0].determinized.shape[0]
    print(f"{len(roots)} roots, gain over the rollout policy's move (points a decision, 95%):")
    print("determinizations | margin | plays another move | truth | model (held-out half)")
    half, quarter = total // 2, (total - total // 2) // 2
    held = [r.determinized[half:].mean(axis=0) for r in roots]
    for budget in budgets or budgets_up_to(total):
        for margin in margins:
            picks = [pick(r.determinized[:budget], r.own, margin) for r in roots]
            truth = gains(roots, picks, [r.true for r in roots])
            model = gains(roots, picks, held) if 2 * budget <= total else "-"
            shown = margin_label(margin)
            print(
                f"{budget:>16} | {shown:>6} | {switched(roots, picks):>17.1%} | {truth} | {model}"
            )
    if quarter:  # two disjoint quarters, both inside the held-out half
        by_one = [r.determinized[half : half + quarter].mean(axis=0) for r in roots]
        by_other = [r.determinized[half + quarter : half + 2 * quarter].mean(axis=0) for r in roots]
        print(
            f"the best by {quarter} held-out determinizations, scored by {quarter} others "
            f"(a bound below): {gains(roots, [int(np.argmax(v)) for v in by_one], by_other)}"
        )
    print(
        "the best by the held-out half, scored by itself (a bound above): "
        f"{gains(roots, [int(np.argmax(v)) for v in held], held)}"
    )
    if roots[0].informed.shape[0] >= 2:
        report_informed(roots, margins)


def report_informed(roots: Sequence[Root], margins: Sequence[float | None]) -> None:
    """The second table (``--oracle``): the search's pick and that of a search given the
    hidden hands, both scored by the informed determinizations the latter did not use."""
    total = roots[0].informed.shape[0]
    held = [r.informed[total // 2 :].mean(axis=0) for r in roots]
    print("scored by the held-out half of the determinizations that know the hidden hands:")
    print("determinizations | margin | search: plays another, gain | given the hands: the same")
    for budget in [b for b in budgets_up_to(total) if 2 * b <= total]:
        for margin in margins:
            cells = []
            for table in ([r.determinized for r in roots], [r.informed for r in roots]):
                picks = [pick(t[:budget], r.own, margin) for t, r in zip(table, roots, strict=True)]
                cells.append(f"{switched(roots, picks):.1%}, {gains(roots, picks, held)}")
            print(f"{budget:>16} | {margin_label(margin):>6} | {cells[0]} | {cells[1]}")


def main(argv: Sequence[str] | None = None) -> int | None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="Spinner, greedy rollouts, 6 roots")
    parser.add_argument("--game", choices=sorted(GAMES), default="mexican_train")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rollout", default="expert", help="the rollout policy (an agent spec)")
    parser.add_argument("--determinizations", type=int, default=256)
    parser.add_argument("--roots", type=int, default=3000, help="per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--margins", nargs="+", default=["none", "1", "2", "3"])
    parser.add_argument(
        "--budgets",
        type=int,
        nargs="+",
        help="determinizations to pick by (default: a quarter, half and all of them)",
    )
    parser.add_argument(
        "--oracle", action="store_true", help="also determinizations that know the hands"
    )
    parser.add_argument("--save", metavar="FILE.npz", help="keep the roots in this new file")
    parser.add_argument(
        "--load", metavar="FILE.npz", help="report on roots saved before (plays nothing)"
    )
    add_arguments(parser, "the seeds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.game, args.players, args.rollout = "spinner", 2, "greedy"
        args.determinizations, args.roots, args.seeds = 8, 3, [1, 2]
    margins = [None if m == "none" else float(m) for m in args.margins]
    try:
        if args.roots < 1 or args.determinizations < 1:
            raise ValueError("--roots and --determinizations must be at least 1")
        if args.save is not None:
            refuse_existing(args.save)  # before the collection, not after it
        if args.load is not None:
            roots, settings = load(args.load)
            took = f"{settings['seconds']} s when saved"
        else:
            make_agent(args.rollout)  # a bad spec fails here, not in a worker
        total = roots[0].determinized.shape[0] if args.load else args.determinizations
        if args.budgets and not all(1 <= b <= total for b in args.budgets):
            raise ValueError(f"--budgets must be from 1 to the {total} determinizations")
    except (OSError, ValueError) as error:
        print(f"search_gain: {error}", file=sys.stderr)
        return 2
    if args.load is None:
        collector = RootCollector(
            args.game, args.players, args.rollout, args.determinizations, args.roots, args.oracle
        )
        settings = {**asdict(collector), "seeds": args.seeds}
        started = time.perf_counter()
        executor = Executor.from_args(args)
        roots = [r for part in executor.map(collector, args.seeds, unit="seed") for r in part]
        settings["seconds"] = round(time.perf_counter() - started)
        took = f"{settings['seconds']} s"
        if args.save is not None:
            save(args.save, roots, settings)
    game, players, rollout = settings["game"], settings["players"], settings["rollout"]
    print(f"{game}, {players} players, pimc:rollout={rollout}: {took}")
    report(roots, margins, args.budgets)
    return None


if __name__ == "__main__":
    sys.exit(main())
