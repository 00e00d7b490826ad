"""Tournament evaluator: any agents, 2 to 8 players, full matches on duplicate deals.

    spinner-evaluate --agents checkpoint heuristic greedy random --players 2 \\
        --matches 2000 --out results/eval_2p

With as many agents as seats, they play one lineup; with more agents than seats, every
combination of them plays (a round robin of pairs with 2 players; ``--first-only``: only the
lineups with the first agent). Name an agent twice to seat it twice
(``--agents runs/x.zip heuristic heuristic heuristic --players 4``).

Duplicate deals: every deal (one seed: the shuffles of all the match's hands) is played
once per rotation of the lineup around the table, so each agent holds each seat's cards
once and the luck of the deal cancels; with 3+ players every other deal seats the lineup
the other way round (:func:`table_order`), so no agent always sits before another. The
deal is the unit of the statistics: each figure is a mean over deals of the per-deal mean.
A rate's 95% interval is Wilson's score interval (:meth:`Estimate.rate`), honest at a few
matches and at rates of 0 or 1; points per hand have a normal interval (1.96 standard errors
of the per-deal means).

Per agent: match win rate (a match won jointly by k seats counts 1/k to each, S7.2), hand
win rate, mean points per hand (S7.1). Pairwise: how often the row agent finished a match
with a lower total than the column agent (ties count one half). Forced moves (one legal
move) are played without asking the agent.

League (``--league``): ratings on the Elo scale fitted to the pairwise results by
Bradley-Terry maximum likelihood (:func:`bradley_terry`): every pair of seats in every
match is one game, won by the lower total (ties half). The anchor agent (``--anchor``,
``random`` when it plays) is rated 0, else the mean is 0; the 95% intervals are
percentiles of the ratings refitted to bootstrap resamples of the deals.

``--workers N`` plays the deals in N processes, ``--ray`` as Ray tasks (on the cluster
``--ray-address`` or ``RAY_ADDRESS`` names, else on a local Ray): see
:mod:`spinner_env.train.executor`. Each worker builds the agents from their specs; every
match reseeds its agents from (seed, deal, rotation, seat), so the results are identical
to a serial run's.

``--records-dir DIR`` writes match records (:mod:`spinner_env.records`) into DIR, one JSON
file per match: every match (``--record-matches all``), those the first agent lost
(``lost``), or the N where its total was furthest above the best other seat's
(``worst:N``); ``--record-views`` has each agent say what it saw at every decision.
Recording plays the same moves: the results are those of a run without it.

Robustness panel (``--styles [SPEC ...]``, :func:`robustness_panel`): the one agent of
``--agents`` against each opponent style in turn, the style in every other seat, on the
same duplicate deals in every cell; each cell is the agent's win rate with its 95%
interval, beside the fair share, and the worst cell is named first. Without SPECs the
game's default panel (:data:`STYLE_PANELS`): baselines, hand-written players with jittered
weights (``heuristic:jitter=0.5,seed=2``) and search players at iteration budgets.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import heapq
import itertools
import json
import math
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from spinner_env.agents import make_agent
from spinner_env.train import executor as executors
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.executor import SERIAL, Executor, one_thread_each

from spinner_env.core.agent import Agent, choose_move_explained
from spinner_env.extras import require
from spinner_env.files import atomic_write, write_text_atomic
from spinner_env.games import GAMES, GameSpec, default_game, game_spec
from spinner_env.records import Record, Recorder, Seat, save_record

Z95 = 1.96

MoveWatcher = Callable[[Any, Sequence[Agent], int, Any], None]
"""Called after every move with the match state, the agent of each seat, the seat that
moved and its move."""


@dataclass(frozen=True)
class MatchRecord:
    """One match: who sat where, final totals, and each hand's winner and points."""

    seat_names: tuple[str, ...]
    totals: tuple[int, ...]
    hand_winners: tuple[int, ...]
    hand_points: tuple[tuple[int, ...], ...]
    recording: Record | None = None
    """The match's record (:mod:`spinner_env.records`), when it was recorded."""


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

    @classmethod
    def rate(cls, per_deal: Sequence[float], trials_per_deal: float) -> Estimate:
        """A rate, the mean of per-deal rates (each over ``trials_per_deal`` matches, or
        hands), with its 95% Wilson score interval (:func:`wilson_interval`) at an effective
        count of trials: that of independent trials whose binomial variance equals the
        per-deal rates' (so duplicate deals that cancel luck narrow it), but never more than
        the trials played, so deals that all agree (every match won) claim no certainty."""
        values = np.asarray(per_deal, dtype=float)
        mean = float(values.mean())
        trials = len(values) * trials_per_deal
        variance = float(values.var(ddof=1)) if len(values) > 1 else 0.0
        binomial = mean * (1 - mean)
        effective = trials if variance == 0 else min(trials, len(values) * binomial / variance)
        return cls(mean, *wilson_interval(mean, effective))

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}

    def percent(self, width: int = 0) -> str:
        """A rate in percent with its interval, ``55.0% [39.8, 69.3]`` (each number
        ``width`` characters wide)."""
        return (
            f"{100 * self.mean:{width}.1f}% "
            f"[{100 * self.low:{width}.1f}, {100 * self.high:{width}.1f}]"
        )


def wilson_interval(rate: float, trials: float) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate observed over ``trials`` trials (a count of
    trials may be fractional, an effective count): unlike the normal interval, it is not
    empty at a rate of 0 or 1, and stays inside [0, 1]. No trials: [0, 1]."""
    if trials <= 0:
        return 0.0, 1.0
    z2 = Z95 * Z95 / trials
    centre = (rate + z2 / 2) / (1 + z2)
    half = Z95 / (1 + z2) * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials))
    # It holds the rate itself: min and max keep rounding from moving an end past it.
    return max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half))


def play_match(
    game: GameSpec,
    num_players: int,
    seed: int,
    seat_agents: Sequence[Agent],
    rules: dict[str, Any] | None = None,
    on_move: MoveWatcher | None = None,
    record: Recording | None = None,
) -> MatchRecord:
    """Play one full match of ``game`` dealt from ``seed``; seat s is ``seat_agents[s]``.
    ``on_move(state, seat_agents, seat, move)``, if given, sees every move just after it is
    played (a hand's last move with ``state.hand_over`` true and the hands as scored).
    ``record``: keep the match's record in the result's ``recording``."""
    state = game.new_state(num_players, seed, **(rules or {}))
    recorder = None if record is None else Recorder(game, state, record.seats, record.info)
    explain = record is not None and record.views
    while True:
        legal = state.legal_moves()
        seat = state.current
        view = None
        if len(legal) == 1:
            move = legal[0]
        else:
            move, view = choose_move_explained(seat_agents[seat], state, game.encoding, explain)
        state.play_legal(move)
        if on_move is not None:
            on_move(state, seat_agents, seat, move)
        if recorder is not None:
            recorder.played(state, seat, move, view)
        if state.hand_over:
            if state.match_over:
                break
            state.start_next_hand()
            if recorder is not None:
                recorder.new_hand(state)
    return MatchRecord(
        seat_names=tuple(a.name for a in seat_agents),
        totals=tuple(state.totals),
        hand_winners=tuple(r.winner for r in state.results),
        hand_points=tuple(tuple(r.points) for r in state.results),
        recording=None if recorder is None else recorder.record(),
    )


@dataclass(frozen=True)
class Recording:
    """What a recorded match's record names: its seats, and ``info`` (where it came from);
    ``views``: ask each agent what it saw (:meth:`Agent.act_explained`)."""

    seats: Sequence[Seat]
    info: dict[str, Any]
    views: bool = False


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def table_order(num_players: int, deal: int) -> list[int]:
    """The lineup's order around the table on deal ``deal``: as listed on even deals, and on
    odd deals with 3+ players the other way round (first agent first). Rotations keep the
    order, so without the odd deals an agent would always sit just before the same other
    agent, and where a seat's play binds the next seat's turn (a double to fill, S5, M5.3)
    that order alone moves the pairwise results of two identical players by several points."""
    if deal % 2 == 0 or num_players < 3:
        return list(range(num_players))
    return [0, *range(num_players - 1, 0, -1)]


def play_deal(
    game: GameSpec,
    lineup: Sequence[Agent],
    seed: int,
    deal: int,
    rules: dict[str, Any] | None = None,
    on_move: MoveWatcher | None = None,
    record: Recording | None = None,
) -> list[MatchRecord]:
    """The deal ``deal`` played once per rotation of ``lineup`` around the table, in
    :func:`table_order` (``on_move``: as :func:`play_match` takes it; ``record``: the
    lineup's seats and the info every match's record carries, with its deal and rotation
    added)."""
    n = len(lineup)
    dseed = deal_seed(seed, deal)
    order = table_order(n, deal)
    records = []
    for rotation in range(n):
        at_seat = [order[(s + rotation) % n] for s in range(n)]
        seats = [lineup[i] for i in at_seat]
        for position, agent in enumerate(seats):
            agent.seed([seed, deal, rotation, position])
        rotated = None
        if record is not None:
            rotated = Recording(
                [record.seats[i] for i in at_seat],
                {**record.info, "deal": deal, "rotation": rotation},
                record.views,
            )
        records.append(play_match(game, n, dseed, seats, rules, on_move, rotated))
    return records


def deal_summary(records: Sequence[MatchRecord]) -> dict[str, dict[str, float]]:
    """Per agent name, its per-seat means over one deal's matches (``hands``: hands a
    match)."""
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
            s["hands"] += hands
    return {
        name: {k: v / s["seats"] for k, v in s.items() if k != "seats"} for name, s in sums.items()
    }


def pair_counts(records: Sequence[MatchRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """Per ordered pair of different names: (seat pairs the first finished lower, ties
    counting one half; seat pairs)."""
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
    return {pair: (won, int(count)) for pair, (won, count) in sums.items()}


def deal_pairwise(records: Sequence[MatchRecord]) -> dict[tuple[str, str], float]:
    """Per ordered pair of different names, the share of seat pairs the first finished lower."""
    return {pair: won / count for pair, (won, count) in pair_counts(records).items()}


@dataclass
class Report:
    """Everything one tournament measured (``ratings``: the league's, if it fitted them)."""

    game: str
    num_players: int
    deals: int
    matches: int
    agents: dict[str, dict[str, Estimate]]
    pairwise: dict[tuple[str, str], Estimate]
    command: str = ""
    ratings: dict[str, Estimate] = field(default_factory=dict)
    anchor: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = {
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
        if self.ratings:
            data["ratings"] = {
                "scale": "Elo (Bradley-Terry)",
                "anchor": self.anchor or "mean 0",
                "leaderboard": [
                    {"agent": name, **e.as_dict()} for name, e in self.leaderboard_order()
                ],
            }
        return data

    def leaderboard_order(self) -> list[tuple[str, Estimate]]:
        return sorted(self.ratings.items(), key=lambda item: -item[1].mean)

    def table(self) -> str:
        """The per-agent table and the pairwise table (and the leaderboard) as plain text."""
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
        if self.ratings:
            lines += [
                "",
                f"leaderboard: Elo (Bradley-Terry), {self.anchor or 'the mean'} = 0, "
                "95% bootstrap interval over deals",
            ]
            for rank, (name, e) in enumerate(self.leaderboard_order(), start=1):
                lines.append(
                    f"{rank:>3}. {name:<22}{e.mean:>8.0f} [{e.low:>6.0f}, {e.high:>6.0f}]"
                    f"{_fmt_rate(self.agents[name]['match_win']):>26}"
                )
        return "\n".join(lines)

    def plot(self, path: Path) -> None:
        """A bar chart of match and hand win rates with their 95% intervals, beside the
        league's ratings when it has them."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = list(self.agents)
        x = np.arange(len(names))
        panels = 2 if self.ratings else 1
        width = max(5.0, 1.6 * len(names))
        fig, axes = plt.subplots(1, panels, figsize=(width * panels, 4), squeeze=False)
        ax = axes[0, 0]
        for offset, key, label in (
            (-0.2, "match_win", "match win rate"),
            (0.2, "hand_win", "hand win rate"),
        ):
            means, err = _bars([self.agents[n][key] for n in names])
            ax.bar(x + offset, means, 0.4, yerr=err, capsize=4, label=label)
        ax.axhline(1 / self.num_players, color="grey", linestyle="--", label="fair share")
        ax.set_xticks(x, names)
        ax.set_ylim(0, 1)
        ax.set_ylabel("rate (95% CI)")
        ax.set_title(f"{self.game}, {self.num_players} players, {self.matches} matches per lineup")
        ax.legend()
        if self.ratings:
            ax = axes[0, 1]
            board = self.leaderboard_order()
            means, err = _bars([e for _, e in board])
            ax.bar(np.arange(len(board)), means, 0.6, yerr=err, capsize=4)
            ax.set_xticks(np.arange(len(board)), [name for name, _ in board])
            ax.axhline(0, color="grey", linestyle="--")
            ax.set_ylabel(f"Elo, {self.anchor or 'mean'} = 0 (95% CI)")
            ax.set_title("league ratings (Bradley-Terry)")
        fig.tight_layout()
        save_figure(fig, path)
        plt.close(fig)

    def save(self, out: Path) -> tuple[Path, Path]:
        """Write ``OUT.json`` and ``OUT.png``."""
        return save_report(self.as_dict(), self.plot, out)


def save_report(data: dict[str, Any], plot: Callable[[Path], None], out: Path) -> tuple[Path, Path]:
    """Write a report's ``data`` to ``OUT.json`` and its chart (``plot``) to ``OUT.png``."""
    json_path, png_path = out.with_suffix(".json"), out.with_suffix(".png")
    write_text_atomic(json_path, json.dumps(data, indent=2))
    plot(png_path)
    return json_path, png_path


def save_figure(fig: Any, path: Path) -> None:
    """A matplotlib figure as a PNG, written in one step."""
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format="png", dpi=100)


def _bars(estimates: Sequence[Estimate]) -> tuple[np.ndarray, np.ndarray]:
    """Bar heights and asymmetric error bars of estimates."""
    means = np.array([e.mean for e in estimates])
    return means, np.array(
        [means - [e.low for e in estimates], [e.high for e in estimates] - means]
    )


def _fmt_rate(e: Estimate) -> str:
    return e.percent(5)


def _fmt_num(e: Estimate) -> str:
    return f"{e.mean:6.2f} [{e.low:6.2f}, {e.high:6.2f}]"


ELO_PER_NATURAL_UNIT = 400 / math.log(10)
"""Elo points per unit of the log-odds: a 400-point gap is odds of 10 to 1."""


def bradley_terry(wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, with mean 0.

    ``wins[i, j]``: games agent i won against agent j (a tie counts one half to each side),
    ``games[i, j] = games[j, i]``: games they played; leading axes hold independent data
    sets, fitted at once. The chance that i beats j is ``1 / (1 + 10 ** ((r_j - r_i) /
    400))``. One virtual drawn game between every pair that met keeps the ratings finite
    when an agent won (or lost) every game. Newton's method on the concave
    log-likelihood, the first rating held at 0.
    """
    wins, games = np.asarray(wins, float), np.asarray(games, float)
    k = wins.shape[-1]
    met = games > 0
    for linked in met.reshape(-1, k, k):
        _check_connected(linked)
    w = wins + 0.5 * met
    n = games + 1.0 * met
    theta = np.zeros(wins.shape[:-1])
    diagonal = np.arange(k)
    for _ in range(100):
        p = 1 / (1 + np.exp(theta[..., None, :] - theta[..., :, None]))  # p[i, j]: i beats j
        gradient = (w - n * p).sum(axis=-1)
        information = -n * p * (1 - p)
        information[..., diagonal, diagonal] -= information.sum(axis=-1)
        step = np.linalg.solve(information[..., 1:, 1:], gradient[..., 1:, None])[..., 0]
        theta[..., 1:] += step
        if np.abs(step).max() < 1e-10:
            break
    return ELO_PER_NATURAL_UNIT * (theta - theta.mean(axis=-1, keepdims=True))


def _check_connected(met: np.ndarray) -> None:
    reached, frontier = {0}, [0]
    while frontier:
        for j in np.flatnonzero(met[frontier.pop()]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    if len(reached) < len(met):
        raise ValueError("the matches do not link every agent to every other: no common scale")


def league_ratings(
    wins: np.ndarray,
    games: np.ndarray,
    names: Sequence[str],
    anchor: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Estimate]:
    """Ratings with 95% intervals from per-deal results: ``wins[d, i, j]`` and
    ``games[d, i, j]`` of deal d (all lineups). The intervals are the 2.5 and 97.5
    percentiles over ``resamples`` bootstrap resamples of the deals. ``anchor``'s rating is
    0 (else the mean is)."""
    deals = len(wins)
    chosen = np.random.default_rng(seed).integers(deals, size=(resamples, deals))
    everything = np.arange(deals)[None, :]  # the data set itself, fitted with the resamples
    resampled = np.concatenate([everything, chosen])
    ratings = bradley_terry(wins[resampled].sum(axis=1), games[resampled].sum(axis=1))
    if anchor is not None:
        ratings -= ratings[:, [list(names).index(anchor)]]
    low, high = np.percentile(ratings[1:], [2.5, 97.5], axis=0)
    return {
        name: Estimate(float(ratings[0, i]), float(low[i]), float(high[i]))
        for i, name in enumerate(names)
    }


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


@dataclass
class DealPlayer:
    """Plays one (lineup, deal) task: the deal once per rotation of the lineup; returns
    its per-agent summary and pair counts. The same in a worker process as in this one."""

    agents: Sequence[Agent]
    game: GameSpec
    seed: int
    rules: dict[str, Any]
    record: Sequence[str] | None = None
    """The agents' specs, to record every match (the records come back third)."""
    views: bool = False

    def __call__(self, task: tuple[tuple[int, ...], int]) -> tuple[dict, dict, list[Record]]:
        lineup, deal = task
        recording = None
        if self.record is not None:
            seats = [Seat(self.record[i], self.agents[i].name) for i in lineup]
            recording = Recording(seats, {"source": "spinner-evaluate"}, self.views)
        records = play_deal(
            self.game,
            [self.agents[i] for i in lineup],
            self.seed,
            deal,
            self.rules,
            None,
            recording,
        )
        kept = [r.recording for r in records if r.recording is not None]
        return deal_summary(records), pair_counts(records), kept


RECORD_CHOICES = ("all", "lost", "worst:N")


@dataclass
class RecordKeeper:
    """Writes the records ``--records-dir`` keeps into ``folder``: every match (``all``), those
    the first agent lost (``lost``: none of its seats among the winners, S7.2), or the
    ``count`` where its total was furthest above the best other seat's (``worst``)."""

    folder: Path
    which: str = "all"
    count: int = 0
    agent: str = ""
    """The first agent's name (``lost`` and ``worst`` judge its matches)."""
    written: int = 0
    _offered: int = 0
    _worst: list[tuple[int, int, Record]] = field(default_factory=list)

    @classmethod
    def parse(cls, folder: Path, text: str) -> RecordKeeper:
        """From ``--record-matches``: ``all``, ``lost`` or ``worst:N``."""
        which, _, count = text.partition(":")
        if which in ("all", "lost") and not count:
            return cls(folder, which)
        if which == "worst" and count.isdigit() and int(count) > 0:
            return cls(folder, which, int(count))
        raise ValueError(f"--record-matches {text!r}: one of {', '.join(RECORD_CHOICES)}")

    def offer(self, record: Record) -> None:
        mine = [s for s, seat in enumerate(record.seats) if seat.name == self.agent]
        others = [t for s, t in enumerate(record.totals) if s not in mine]
        if self.which == "all":
            self._write(record)
        elif not mine or not others:
            return
        elif self.which == "lost":
            if min(record.totals[s] for s in mine) > min(record.totals):
                self._write(record)
        else:
            margin = min(record.totals[s] for s in mine) - min(others)
            self._offered += 1
            entry = (margin, -self._offered, record)  # equal margins: the earlier stays
            if len(self._worst) < self.count:
                heapq.heappush(self._worst, entry)
            else:
                heapq.heappushpop(self._worst, entry)

    def close(self) -> int:
        """Write what ``worst`` kept; how many records were written in all."""
        for _, _, record in sorted(self._worst, key=lambda e: (-e[0], -e[1])):
            self._write(record)
        self._worst = []
        return self.written

    def _write(self, record: Record) -> None:
        info = record.info
        name = f"lineup{info['lineup']:03d}-deal{info['deal']:05d}-rotation{info['rotation']}.json"
        save_record(record, self.folder / name)
        self.written += 1


@dataclass(frozen=True)
class DealPlayerStart:
    """Builds a :class:`DealPlayer` from the agents' specs, in a worker process or a Ray
    task (:mod:`spinner_env.train.executor`)."""

    specs: tuple[str, ...]
    game: str
    seed: int
    rules: dict[str, Any]
    record: bool = False
    views: bool = False

    def __call__(self) -> DealPlayer:
        spec = game_spec(self.game)
        recorded = list(self.specs) if self.record else None
        agents = build_agents(self.specs, spec)
        return DealPlayer(agents, spec, self.seed, self.rules, recorded, self.views)


def build_agents(agents: Sequence[Agent | str], game: GameSpec) -> list[Agent]:
    """Agents from spinner_env.agents and specs (a policy file is checked against the game as it
    loads); two different specs may not share a name."""
    built = [make_agent(a, encoding=game.encoding) if isinstance(a, str) else a for a in agents]
    seen: dict[str, str] = {}
    for given, agent in zip(agents, built, strict=True):
        if isinstance(given, str) and seen.setdefault(agent.name, given) != given:
            raise ValueError(f"two different agents are named {agent.name!r}: rename a file")
    return built


def prepared(
    agents: Sequence[Agent | str],
    num_players: int,
    matches: int,
    game: str,
    rules: dict[str, Any] | None,
    executor: Executor,
    per: str,
) -> tuple[GameSpec, dict[str, Any], list[Agent]]:
    """The game, its rules and the built agents of a run, once its input is checked:
    ``matches`` (``per`` lineup or cell), specs where the deals play elsewhere, and the
    player count and rules (by the game)."""
    spec = game_spec(game)
    rules = dict(rules or {})
    if matches < 1:
        raise ValueError(f"matches must be at least 1 (per {per}), got {matches}")
    if not executor.in_process and not all(isinstance(a, str) for a in agents):
        raise ValueError(
            "with workers > 1 or Ray, give the agents as specs: each worker builds its own"
        )
    spec.new_state(num_players, 0, **rules)  # the player count and rules, checked by the game
    return spec, rules, build_agents(agents, spec)


def deal_start(
    built: Sequence[Agent],
    specs: Sequence[str],
    game: GameSpec,
    seed: int,
    rules: dict[str, Any],
    executor: Executor,
    record: bool = False,
    views: bool = False,
) -> Callable[[], DealPlayer]:
    """What the executor starts to play (lineup, deal) tasks: the built agents here, their
    specs in worker processes and Ray tasks; ``record``: keep every match's record."""
    if executor.in_process:
        return partial(DealPlayer, built, game, seed, rules, list(specs) if record else None, views)
    return DealPlayerStart(tuple(specs), game.name, seed, rules, record, views)


def agent_estimates(
    per_deal: Sequence[dict[str, dict[str, float]]], name: str, matches_per_deal: int
) -> dict[str, Estimate]:
    """``name``'s match and hand win rates and points per hand over the deals it played
    (:func:`deal_summary` of each deal, ``matches_per_deal`` matches each), with their 95%
    intervals; the hand win rate's trials are the hands played."""
    played = [d[name] for d in per_deal if name in d]
    hands = float(np.mean([d["hands"] for d in played]))
    return {
        "match_win": Estimate.rate([d["match_win"] for d in played], matches_per_deal),
        "hand_win": Estimate.rate([d["hand_win"] for d in played], hands * matches_per_deal),
        "points": Estimate.of([d["points"] for d in played], (0.0, math.inf)),
    }


def tournament(
    agents: Sequence[Agent | str],
    num_players: int = 2,
    matches: int = 100,
    seed: int = 0,
    game: str | None = None,
    rules: dict[str, Any] | None = None,
    progress: bool = True,
    first_only: bool = False,
    *,
    executor: Executor = SERIAL,
    league: bool = False,
    anchor: str | None = None,
    record: RecordKeeper | None = None,
    record_views: bool = False,
) -> Report:
    """Play ``matches`` matches (rounded up to whole deals) for each lineup, and sum up.

    Agents are agents or ``make_agent`` specs; with an ``executor`` that plays the deals
    elsewhere (processes, Ray) they must be specs, and each worker builds its own. Agents
    sharing a name are pooled (several seats of one baseline); agents of different kinds
    must have different names.
    ``league``: fit ratings (:func:`league_ratings`), ``anchor`` (an agent's name) at 0.
    ``record``: offer every match's record to it (``record_views``: with what the agents
    saw), which writes those it keeps; the results are the same.
    """
    spec, rules, built = prepared(agents, num_players, matches, game, rules, executor, "lineup")
    names = list(dict.fromkeys(a.name for a in built))
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} is not one of the agents: {', '.join(names)}")
    deals = math.ceil(matches / num_players)
    lineups = lineups_of(len(built), num_players, first_only)
    tasks = [(lineup, deal) for lineup in lineups for deal in range(deals)]
    per_deal: list[dict[str, dict[str, float]]] = []
    pair_deal: list[dict[tuple[str, str], float]] = []
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((deals, len(names), len(names)))
    games = np.zeros_like(wins)
    specs = [a if isinstance(a, str) else a.name for a in agents]
    if record is not None:
        record.agent = built[0].name
        record.folder.mkdir(parents=True, exist_ok=True)
    lineup_index = {lineup: i for i, lineup in enumerate(lineups)}
    start = deal_start(built, specs, spec, seed, rules, executor, record is not None, record_views)
    played = executor.map(start, tasks, progress=progress, unit="deal")
    for (lineup, deal), (summary, counts, kept) in zip(tasks, played, strict=True):
        for match in kept:
            assert record is not None
            match.info["lineup"] = lineup_index[lineup]
            record.offer(match)
        per_deal.append(summary)
        pair_deal.append({pair: won / count for pair, (won, count) in counts.items()})
        for (a, b), (won, count) in counts.items():
            wins[deal, index[a], index[b]] += won
            games[deal, index[a], index[b]] += count
    summary = {name: agent_estimates(per_deal, name, num_players) for name in names}
    pairs = {
        pair: Estimate.rate([d[pair] for d in pair_deal if pair in d], num_players)
        for pair in itertools.permutations(names, 2)
        if any(pair in d for d in pair_deal)
    }
    ratings = league_ratings(wins, games, names, anchor, seed=seed) if league else {}
    return Report(
        spec.name, num_players, deals, deals * num_players, summary, pairs, "", ratings, anchor
    )


PANEL_JITTERS = ((0.25, 1), (0.5, 2), (1.0, 3))
"""(jitter, seed) of the default panel's jittered ``heuristic`` and ``expert`` players."""
STYLE_PANELS: dict[str, tuple[str, ...]] = {
    name: (
        "random",
        "greedy",
        "heuristic",
        "expert",
        *(
            f"{player}:jitter={j},seed={s}"
            for player in ("heuristic", "expert")
            for j, s in PANEL_JITTERS
        ),
        *game.panel_searchers,
    )
    for name, game in GAMES.items()
}
"""The default robustness panel of each game (``--styles`` alone): the baselines, the
game's hand-written players, the same with jittered weights (:mod:`spinner_env.agents.jittered`),
and the search players at a small and a larger budget each, as the game's record gives
them (``panel_searchers``: seeded, so reproducible)."""


@dataclass
class PanelReport:
    """One agent against each style of a panel (the style in every other seat):
    its match and hand win rates and points per hand in each cell."""

    game: str
    num_players: int
    agent: str
    deals: int
    """Duplicate deals a cell (the same deals in every cell)."""
    cells: dict[str, dict[str, Estimate]]
    """Per style's name, the agent's estimates against it."""
    command: str = ""

    @property
    def matches(self) -> int:
        """Matches a cell."""
        return self.deals * self.num_players

    @property
    def fair_share(self) -> float:
        return 1 / self.num_players

    def worst(self) -> tuple[str, Estimate]:
        """The style the agent wins least against (its own name excluded: that cell is
        the fair share by construction), and the agent's match win rate there."""
        others = [(name, e["match_win"]) for name, e in self.cells.items() if name != self.agent]
        return min(others, key=lambda item: item[1].mean)

    def as_dict(self) -> dict[str, Any]:
        name, worst = self.worst()
        return {
            "kind": "robustness panel",
            "game": self.game,
            "num_players": self.num_players,
            "agent": self.agent,
            "deals": self.deals,
            "matches_per_cell": self.matches,
            "fair_share": self.fair_share,
            "command": self.command,
            "worst": {"style": name, "match_win": worst.as_dict()},
            "cells": [
                {
                    "style": style,
                    "itself": style == self.agent,
                    **{k: e.as_dict() for k, e in stats.items()},
                }
                for style, stats in self.cells.items()
            ],
        }

    def table(self) -> str:
        """The panel as plain text, the worst cell first."""
        name, worst = self.worst()
        seats = "seat" if self.num_players == 2 else f"{self.num_players - 1} seats"
        lines = [
            f"robustness panel: {self.agent} against {len(self.cells)} styles, {self.game}, "
            f"{self.num_players} players (the other {seats}: the style), {self.matches} matches "
            f"a cell ({self.deals} duplicate deals x {self.num_players} seatings), "
            f"fair share {100 * self.fair_share:.1f}%",
            f"worst cell: {name}: {_fmt_rate(worst).strip()} "
            f"(fair share {100 * self.fair_share:.1f}%)",
            "",
            f"{'style':<30}{'match win rate':>24}{'hand win rate':>24}{'points/hand':>22}",
        ]
        for style, s in self.cells.items():
            mark = "  (itself)" if style == self.agent else "  <- worst" if style == name else ""
            lines.append(
                f"{style:<30}{_fmt_rate(s['match_win']):>24}{_fmt_rate(s['hand_win']):>24}"
                f"{_fmt_num(s['points']):>22}{mark}"
            )
        return "\n".join(lines)

    def plot(self, path: Path) -> None:
        """The agent's match win rate in every cell with its 95% interval, the fair share
        and the worst cell marked."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = list(self.cells)
        worst, _ = self.worst()
        means, err = _bars([self.cells[n]["match_win"] for n in names])
        y = np.arange(len(names))
        fig, ax = plt.subplots(figsize=(8, 1.5 + 0.35 * len(names)))
        colours = [
            "tab:red" if n == worst else "tab:grey" if n == self.agent else "tab:blue"
            for n in names
        ]
        ax.barh(y, means, 0.6, xerr=err, capsize=3, color=colours)
        ax.axvline(self.fair_share, color="grey", linestyle="--", label="fair share")
        ax.set_yticks(y, names)
        ax.get_yticklabels()[names.index(worst)].set_color("tab:red")
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("match win rate (95% CI)")
        ax.set_title(
            f"{self.agent}: robustness panel (worst cell in red)\n{self.game}, "
            f"{self.num_players} players, {self.matches} matches a cell"
        )
        ax.legend(loc="lower right")
        fig.tight_layout()
        save_figure(fig, path)
        plt.close(fig)

    def save(self, out: Path) -> tuple[Path, Path]:
        """Write ``OUT.json`` and ``OUT.png``."""
        return save_report(self.as_dict(), self.plot, out)


def robustness_panel(
    agent: Agent | str,
    styles: Sequence[Agent | str] | None = None,
    num_players: int = 2,
    matches: int = 100,
    seed: int = 0,
    game: str | None = None,
    rules: dict[str, Any] | None = None,
    progress: bool = True,
    *,
    executor: Executor = SERIAL,
) -> PanelReport:
    """``agent`` against each style (default: the game's :data:`STYLE_PANELS`) in every
    other seat, ``matches`` matches a cell (rounded up to whole deals), the same duplicate
    deals in every cell. Styles given as agents, not specs, are copied for their seats; with
    an ``executor`` that plays elsewhere, every agent must be a spec. A style named as the
    agent is itself is played (its cell is the fair share) but never the worst cell."""
    chosen = list(STYLE_PANELS[game_spec(game).name] if styles is None else styles)
    if not chosen:
        raise ValueError("the robustness panel has no styles")
    seats = num_players - 1
    seated = [agent] + [
        style if seat == 0 or isinstance(style, str) else copy.deepcopy(style)
        for style in chosen
        for seat in range(seats)
    ]
    spec, rules, built = prepared(seated, num_players, matches, game, rules, executor, "cell")
    names = [built[1 + k * seats].name for k in range(len(chosen))]
    if all(name == built[0].name for name in names):
        raise ValueError(f"the robustness panel has no style but {built[0].name!r} itself")
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise ValueError(f"the style {twice!r} is in the panel twice")
    deals = math.ceil(matches / num_players)
    cells = [(0, *range(1 + k * seats, 1 + (k + 1) * seats)) for k in range(len(chosen))]
    tasks = [(cell, deal) for cell in cells for deal in range(deals)]
    specs = [a if isinstance(a, str) else a.name for a in seated]
    start = deal_start(built, specs, spec, seed, rules, executor)
    played = executor.map(start, tasks, progress=progress, unit="deal")
    per_cell: dict[tuple[int, ...], list[dict[str, dict[str, float]]]] = defaultdict(list)
    for (cell, _), (summary, _, _) in zip(tasks, played, strict=True):
        per_cell[cell].append(summary)
    me = built[0].name
    return PanelReport(
        spec.name,
        num_players,
        me,
        deals,
        {
            name: agent_estimates(per_cell[cell], me, num_players)
            for name, cell in zip(names, cells, strict=True)
        },
    )


def check_output(out: Path) -> None:
    """Fail now, not after the tournament, if ``OUT.json`` and ``OUT.png`` cannot be written
    (the chart needs matplotlib, of the train extra)."""
    require("--out's chart", "matplotlib")
    out.parent.mkdir(parents=True, exist_ok=True)
    if not os.access(out.parent, os.W_OK):
        raise ValueError(f"--out: cannot write in {str(out.parent)!r}")
    for path in (out.with_suffix(".json"), out.with_suffix(".png")):
        if path.is_dir():
            raise ValueError(f"--out: {str(path)!r} is a directory")


def main(argv: Sequence[str] | None = None) -> Report | PanelReport:
    parser = ArgumentParser("spinner-evaluate", __doc__.split("\n\n")[0])
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="random, greedy, heuristic, checkpoint (the committed one), checkpoint paths, "
        "or any other spec spinner_env.agents.make_agent takes",
    )
    parser.add_argument("--players", type=int, default=2, help="seats at the table (default 2)")
    parser.add_argument("--matches", type=int, default=200, help="matches per lineup")
    parser.add_argument(
        "--seed", type=int, default=0, help="the seed the deals are dealt from (default 0)"
    )
    parser.add_argument(
        "--game",
        default=default_game().name,
        choices=sorted(GAMES),
        help=f"the game (default {default_game().name})",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an env argument, repeatable: num_hands=3 (Spinner), num_rounds=2 (Mexican "
        "Train); VALUE is read as JSON (3, true), else taken as text",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PREFIX",
        help="write PREFIX.json and PREFIX.png (a file prefix: runs/quick/eval)",
    )
    parser.add_argument(
        "--first-only",
        action="store_true",
        help="with more agents than seats, only the lineups with the first agent",
    )
    parser.add_argument(
        "--league", action="store_true", help="fit Elo ratings (Bradley-Terry) to the results"
    )
    parser.add_argument(
        "--anchor", default=None, help="the agent rated 0 (default: random if it plays)"
    )
    executors.add_arguments(parser, "the deals")
    parser.add_argument(
        "--records-dir",
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write match records into the folder DIR, one file a match (--record: its "
        "former name)",
    )
    parser.add_argument(
        "--record-matches",
        default="all",
        metavar="WHICH",
        help="which matches --records-dir keeps: all, lost (by the first agent), worst:N",
    )
    parser.add_argument(
        "--record-views", action="store_true", help="records carry what each agent saw"
    )
    parser.add_argument(
        "--styles",
        nargs="*",
        default=None,
        metavar="SPEC",
        help="the robustness panel: the one agent of --agents against each style in every "
        "other seat, --matches a cell; no SPEC: the game's default panel",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug):
        # torch, where installed (the train extra), is loaded now so that one_thread_each
        # limits it; the baselines need none.
        with contextlib.suppress(ModuleNotFoundError):
            import torch  # noqa: F401

        one_thread_each()
        executor = Executor.from_args(args)
        rules = {}
        for item in args.rule:
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"--rule {item!r}: expected KEY=VALUE")
            rules[key] = rule_value(value)
        if args.out is not None:
            check_output(args.out)
        if args.styles is not None:
            return panel_main(args, rules, executor, argv)
        keeper = None
        if args.records_dir is not None:
            keeper = RecordKeeper.parse(args.records_dir, args.record_matches)
        anchor = args.anchor
        if args.league and anchor is None and "random" in args.agents:
            anchor = "random"
        report = tournament(
            args.agents,
            args.players,
            args.matches,
            args.seed,
            args.game,
            rules,
            not args.no_progress,
            args.first_only,
            executor=executor,
            league=args.league,
            anchor=anchor,
            record=keeper,
            record_views=args.record_views,
        )
        if keeper is not None:
            print(f"wrote {keeper.close()} match records into {args.records_dir}")
        finish(report, args.out, argv)
        return report


def rule_value(text: str) -> Any:
    """A ``--rule`` value: JSON where it is (``3``, ``true``, ``null``), else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def finish(report: Report | PanelReport, out: Path | None, argv: Sequence[str] | None) -> None:
    """Name the command in ``report``, print it, and save it to ``out`` if given."""
    report.command = "spinner-evaluate " + " ".join(argv if argv is not None else sys.argv[1:])
    print(report.table())
    if out is not None:
        json_path, png_path = report.save(out)
        print(f"\nwrote {json_path} and {png_path}")


def panel_main(
    args: argparse.Namespace, rules: dict[str, Any], executor: Executor, argv: Sequence[str] | None
) -> PanelReport:
    """``spinner-evaluate --styles``: the robustness panel of the one agent given."""
    if len(args.agents) != 1:
        raise ValueError(
            f"--styles plays one agent against the panel: give --agents one, not {len(args.agents)}"
        )
    for flag, given in (
        ("--league", args.league),
        ("--anchor", args.anchor is not None),
        ("--first-only", args.first_only),
        ("--records-dir", args.records_dir is not None),
        ("--record-views", args.record_views),
    ):
        if given:
            raise ValueError(f"--styles plays a panel, not a tournament: drop {flag}")
    report = robustness_panel(
        args.agents[0],
        args.styles or None,
        args.players,
        args.matches,
        args.seed,
        args.game,
        rules,
        not args.no_progress,
        executor=executor,
    )
    finish(report, args.out, argv)
    return report


if __name__ == "__main__":
    main()
