"""Tournament evaluator: any agents, 2 to 8 players, full matches on duplicate deals.

    python -m train.evaluate --agents checkpoint heuristic greedy random --players 2 \\
        --matches 2000 --out results/eval_2p

With as many agents as seats, they play one lineup; with more agents than seats, every
combination of them plays (a round robin of pairs with 2 players; ``--first-only``: only the
lineups with the first agent). Name an agent twice to seat it twice
(``--agents runs/x.zip heuristic heuristic heuristic --players 4``).

Duplicate deals: every deal (one seed: the shuffles of all the match's hands) is played
once per rotation of the lineup around the table, so each agent holds each seat's cards
once and the luck of the deal cancels. The deal is the unit of the statistics: each
figure is a mean over deals of the per-deal mean, with a 95% normal interval
(1.96 standard errors of the per-deal means).

Per agent: match win rate (a match won jointly by k seats counts 1/k to each, S7.2), hand
win rate, mean points per hand (S7.1). Pairwise: how often the row agent finished a match
with a lower total than the column agent (ties count one half). Forced moves (one legal
move) are played without asking the agent.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from tqdm import tqdm

from agents import make_agent
from agents.base import Agent, GameView
from train.games import GameSpec, game_spec

Z95 = 1.96
RATE = (0.0, 1.0)


@dataclass(frozen=True)
class MatchRecord:
    """One match: who sat where, final totals, and each hand's winner and points."""

    seat_names: tuple[str, ...]
    totals: tuple[int, ...]
    hand_winners: tuple[int, ...]
    hand_points: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float

    @classmethod
    def of(
        cls, samples: Sequence[float], bounds: tuple[float, float] = (-math.inf, math.inf)
    ) -> Estimate:
        """Mean of independent samples with its 95% normal interval, clipped to ``bounds``."""
        values = np.asarray(samples, dtype=float)
        mean = float(values.mean())
        half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        return cls(mean, max(bounds[0], mean - half), min(bounds[1], mean + half))

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def play_match(
    game: GameSpec,
    num_players: int,
    seed: int,
    seat_agents: Sequence[Agent],
    rules: dict[str, Any] | None = None,
) -> MatchRecord:
    """Play one full match of ``game`` dealt from ``seed``; seat s is ``seat_agents[s]``."""
    state = game.new_state(num_players, seed, **(rules or {}))
    encoding = game.encoding
    view = GameView(state, encoding)
    mask = np.zeros(encoding.num_actions, np.int8)
    while True:
        legal = state.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        else:
            seat = state.current
            mask[:] = 0
            mask[[encoding.action_of(m) for m in legal]] = 1
            agent = seat_agents[seat]
            obs = encoding.observation(state, seat) if agent.needs_observation else None
            action = agent.act(obs, mask, view)
            if not 0 <= action < len(mask) or not mask[action]:
                raise ValueError(f"{agent!r} chose the illegal action {action}")
            move = encoding.move_of(action)
        state.play_legal(move)
        if state.hand_over:
            if state.match_over:
                break
            state.start_next_hand()
    return MatchRecord(
        seat_names=tuple(a.name for a in seat_agents),
        totals=tuple(state.totals),
        hand_winners=tuple(r.winner for r in state.results),
        hand_points=tuple(tuple(r.points) for r in state.results),
    )


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def play_deal(
    game: GameSpec,
    lineup: Sequence[Agent],
    seed: int,
    deal: int,
    rules: dict[str, Any] | None = None,
) -> list[MatchRecord]:
    """The deal ``deal`` played once per rotation of ``lineup`` around the table."""
    n = len(lineup)
    dseed = deal_seed(seed, deal)
    records = []
    for rotation in range(n):
        seats = [lineup[(s + rotation) % n] for s in range(n)]
        for position, agent in enumerate(seats):
            agent.seed([seed, deal, rotation, position])
        records.append(play_match(game, n, dseed, seats, rules))
    return records


def deal_summary(records: Sequence[MatchRecord]) -> dict[str, dict[str, float]]:
    """Per agent name, its per-seat means over one deal's matches."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rec in records:
        best = min(rec.totals)
        winners = sum(1 for t in rec.totals if t == best)
        hands = len(rec.hand_winners)
        for seat, name in enumerate(rec.seat_names):
            s = sums[name]
            s["seats"] += 1
            s["match_win"] += (1 / winners) if rec.totals[seat] == best else 0.0
            s["hand_win"] += sum(1 for w in rec.hand_winners if w == seat) / hands
            s["points"] += sum(p[seat] for p in rec.hand_points) / hands
    return {
        name: {k: v / s["seats"] for k, v in s.items() if k != "seats"} for name, s in sums.items()
    }


def deal_pairwise(records: Sequence[MatchRecord]) -> dict[tuple[str, str], float]:
    """Per ordered pair of different names, the share of seat pairs the first finished lower."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for rec in records:
        for a, b in itertools.permutations(range(len(rec.seat_names)), 2):
            na, nb = rec.seat_names[a], rec.seat_names[b]
            if na == nb:
                continue
            ta, tb = rec.totals[a], rec.totals[b]
            cell = sums[(na, nb)]
            cell[0] += 1.0 if ta < tb else 0.5 if ta == tb else 0.0
            cell[1] += 1
    return {pair: won / count for pair, (won, count) in sums.items()}


@dataclass
class Report:
    """Everything one tournament measured."""

    game: str
    num_players: int
    deals: int
    matches: int
    agents: dict[str, dict[str, Estimate]]
    pairwise: dict[tuple[str, str], Estimate]
    command: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "deals": self.deals,
            "matches": self.matches,
            "command": self.command,
            "agents": {
                name: {k: e.as_dict() for k, e in stats.items()}
                for name, stats in self.agents.items()
            },
            "pairwise": [
                {"agent": a, "opponent": b, "lower_total_rate": e.as_dict()}
                for (a, b), e in self.pairwise.items()
            ],
        }

    def table(self) -> str:
        """The per-agent table and the pairwise table as plain text."""
        lines = [
            f"{self.game}, {self.num_players} players: {self.matches} matches "
            f"({self.deals} duplicate deals x {self.num_players} seatings per lineup)",
            "",
            f"{'agent':<22}{'match win rate':>24}{'hand win rate':>24}{'points/hand':>22}",
        ]
        for name, s in self.agents.items():
            lines.append(
                f"{name:<22}{_fmt_rate(s['match_win']):>24}{_fmt_rate(s['hand_win']):>24}"
                f"{_fmt_num(s['points']):>22}"
            )
        names = list(self.agents)
        lines += ["", "pairwise: row finished lower than column (share of matches, 95% CI)"]
        lines.append(f"{'':<22}" + "".join(f"{n[:20]:>24}" for n in names))
        for a in names:
            cells = []
            for b in names:
                e = self.pairwise.get((a, b))
                cells.append(f"{_fmt_rate(e) if e else '-':>24}")
            lines.append(f"{a:<22}" + "".join(cells))
        return "\n".join(lines)

    def plot(self, path: Path) -> None:
        """A bar chart of match and hand win rates with their 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = list(self.agents)
        x = np.arange(len(names))
        fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(names)), 4))
        for offset, key, label in (
            (-0.2, "match_win", "match win rate"),
            (0.2, "hand_win", "hand win rate"),
        ):
            est = [self.agents[n][key] for n in names]
            means = np.array([e.mean for e in est])
            err = np.array([[e.mean - e.low for e in est], [e.high - e.mean for e in est]])
            ax.bar(x + offset, means, 0.4, yerr=err, capsize=4, label=label)
        ax.axhline(1 / self.num_players, color="grey", linestyle="--", label="fair share")
        ax.set_xticks(x, names)
        ax.set_ylim(0, 1)
        ax.set_ylabel("rate (95% CI)")
        ax.set_title(f"{self.game}, {self.num_players} players, {self.matches} matches per lineup")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)


def _fmt_rate(e: Estimate) -> str:
    return f"{100 * e.mean:5.1f}% [{100 * e.low:5.1f}, {100 * e.high:5.1f}]"


def _fmt_num(e: Estimate) -> str:
    return f"{e.mean:6.2f} [{e.low:6.2f}, {e.high:6.2f}]"


def lineups_of(
    num_agents: int, num_players: int, first_only: bool = False
) -> list[tuple[int, ...]]:
    """One lineup of all agents if they fill the table, else every combination of them
    (only those with the first agent if ``first_only``)."""
    if num_agents < num_players:
        raise ValueError(
            f"{num_agents} agents for {num_players} seats: name an agent more than once "
            "to seat it more than once"
        )
    if num_agents == num_players:
        return [tuple(range(num_agents))]
    lineups = itertools.combinations(range(num_agents), num_players)
    return [lineup for lineup in lineups if not first_only or 0 in lineup]


def tournament(
    agents: Sequence[Agent],
    num_players: int = 2,
    matches: int = 100,
    seed: int = 0,
    game: str = "spinner",
    rules: dict[str, Any] | None = None,
    progress: bool = True,
    first_only: bool = False,
) -> Report:
    """Play ``matches`` matches (rounded up to whole deals) for each lineup, and sum up.

    Agents sharing a name are pooled (several seats of one baseline); agents of
    different kinds must have different names.
    """
    spec = game_spec(game)
    deals = max(1, math.ceil(matches / num_players))
    lineups = lineups_of(len(agents), num_players, first_only)
    per_deal: list[dict[str, dict[str, float]]] = []
    pair_deal: list[dict[tuple[str, str], float]] = []
    with tqdm(total=len(lineups) * deals * num_players, unit="match", disable=not progress) as bar:
        for lineup in lineups:
            seated = [agents[i] for i in lineup]
            for deal in range(deals):
                records = play_deal(spec, seated, seed, deal, rules)
                per_deal.append(deal_summary(records))
                pair_deal.append(deal_pairwise(records))
                bar.update(len(records))
    names = list(dict.fromkeys(a.name for a in agents))
    summary = {
        name: {
            key: Estimate.of(
                [d[name][key] for d in per_deal if name in d],
                RATE if key != "points" else (0.0, math.inf),
            )
            for key in ("match_win", "hand_win", "points")
        }
        for name in names
    }
    pairs = {
        pair: Estimate.of([d[pair] for d in pair_deal if pair in d], RATE)
        for pair in itertools.permutations(names, 2)
        if any(pair in d for d in pair_deal)
    }
    return Report(spec.name, num_players, deals, deals * num_players, summary, pairs)


def main(argv: Sequence[str] | None = None) -> Report:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="random, greedy, heuristic, checkpoint (the committed one) or checkpoint paths",
    )
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=200, help="matches per lineup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", default="spinner")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an env argument, repeatable: num_hands=3 (Spinner), num_rounds=2 (Mexican Train)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.png")
    parser.add_argument(
        "--first-only",
        action="store_true",
        help="with more agents than seats, only the lineups with the first agent",
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    agents = [make_agent(spec) for spec in args.agents]
    seen: dict[str, str] = {}
    for spec, agent in zip(args.agents, agents, strict=True):
        if seen.setdefault(agent.name, spec) != spec:
            raise SystemExit(f"two different agents are named {agent.name!r}: rename a file")
    rules = {}
    for item in args.rule:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--rule {item!r}: expected KEY=VALUE")
        rules[key] = yaml.safe_load(value)
    report = tournament(
        agents,
        args.players,
        args.matches,
        args.seed,
        args.game,
        rules,
        not args.no_progress,
        args.first_only,
    )
    report.command = "python -m train.evaluate " + " ".join(
        argv if argv is not None else __import__("sys").argv[1:]
    )
    print(report.table())
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(report.as_dict(), indent=2))
        report.plot(args.out.with_suffix(".png"))
        print(f"\nwrote {args.out.with_suffix('.json')} and {args.out.with_suffix('.png')}")
    return report


if __name__ == "__main__":
    main()
