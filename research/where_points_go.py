"""Where the points go: per-hand and per-decision numbers for Spinner agents (S6.4, S7.1).

Plays duplicate deals as ``spinner-evaluate`` does (``train.evaluate.play_deal``: every deal
once per seating, agents reseeded per match) and prints, per agent:

- how its hands end: went out, won blocked, lost to a player going out, lost blocked, and the
  points it kept in each case (S6.4, S7.1);
- what the points it kept are made of: tiles with a spinner half (S1.2), other doubles (S1.5),
  heavy tiles (10 points or more), the rest; and how many tiles it drew and passes it made;
- how it decides when it has a choice: how often it places a spinner tile while a plain tile
  was also legal, and how many tiles it still held when it did; how often it opens a wild S
  end; how often it leaves unplayed a move onto a value the next seat was shown void in
  (S8); how often it plays a double it may.

    python research/where_points_go.py --agents heuristic pimc:time=0.01 --matches 40
    python research/where_points_go.py --smoke      # one hand, two matches: a check that it runs
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.evaluate import MoveWatcher, build_agents, play_deal

from spinner_env.core.agent import Agent, EngineView
from spinner_env.core.match import Draw, Pass
from spinner_env.games import game_spec
from spinner_env.games.spinner.rules import Place, S, SpinnerState, SpinnerTile, tile_points

HEAVY = 10
"""Tiles of at least this many points count as heavy."""


def kind_of(tile: SpinnerTile) -> str:
    """The class of a tile kept in hand: spinner tile, other double, heavy, light."""
    if tile.has(S):
        return "spinner"
    if tile.is_double:
        return "double"
    return "heavy" if tile_points(tile) >= HEAVY else "light"


class Tally:
    """Sums per agent name and key, and how many of each thing they are sums over."""

    def __init__(self) -> None:
        self.sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def add(self, name: str, key: str, value: float = 1.0) -> None:
        self.sums[name][key] += value

    def get(self, name: str, key: str) -> float:
        return self.sums[name].get(key, 0.0)


class Watched(Agent):
    """An agent that tallies every decision it makes, deciding as the agent it wraps."""

    needs_view = True

    def __init__(self, inner: Agent, tally: Tally) -> None:
        super().__init__()
        self.inner, self.tally = inner, tally
        self.name = inner.name
        self.needs_observation = inner.needs_observation
        self.num_actions = inner.num_actions

    def seed(self, seed: Any) -> None:
        self.inner.seed(seed)

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        action = self.inner.choose(observation, legal, view)
        view = self._view(view)
        moves = [view.encoding.move_of(int(a)) for a in legal]
        self.count(view.game, moves, view.encoding.move_of(action))
        return action

    def count(self, game: SpinnerState, moves: list[Place], chosen: Place) -> None:
        t, name = self.tally, self.name
        t.add(name, "decisions")
        held = len(game.hands[game.current])
        plain = [m for m in moves if not m.tile.has(S)]
        if chosen.tile.has(S) and plain:
            t.add(name, "spinner_over_plain")
            t.add(name, "spinner_over_plain_held", held)
        if plain and len(plain) < len(moves):
            t.add(name, "spinner_or_plain")
        if chosen.opens == S and not chosen.tile.is_double:
            t.add(name, "opened_s")
        void = game.voids[(game.current + 1) % game.num_players] - {S}
        if any(m.opens in void for m in moves):
            t.add(name, "void_chances")
            t.add(name, "void_used", chosen.opens in void)
        if any(m.tile.is_double for m in moves):
            t.add(name, "double_chances")
            t.add(name, "double_played", chosen.tile.is_double)


def hand_watcher(tally: Tally) -> MoveWatcher:
    """An ``on_move`` for ``play_deal`` that tallies draws, passes and every hand's end."""

    def on_move(state: SpinnerState, seats: Sequence[Agent], seat: int, move: Any) -> None:
        if isinstance(move, Draw):
            tally.add(seats[seat].name, "draws")
        elif isinstance(move, Pass):
            tally.add(seats[seat].name, "passes")
        if not state.hand_over:
            return
        result = state.results[-1]
        for s, hand in enumerate(state.hands):
            name = seats[s].name
            end = ("won" if result.winner == s else "lost") + (
                "_blocked" if result.blocked else "_out"
            )
            tally.add(name, "hands")
            tally.add(name, end)
            tally.add(name, f"{end}_points", result.points[s])
            tally.add(name, "points", result.points[s])
            for tile in hand:
                tally.add(name, f"kept_{kind_of(tile)}", tile_points(tile))
                tally.add(name, f"kept_{kind_of(tile)}_tiles")

    return on_move


def study(
    specs: Sequence[str],
    matches: int,
    num_players: int = 2,
    seed: int = 0,
    rules: dict[str, Any] | None = None,
) -> Tally:
    """Tally ``matches`` matches (whole duplicate deals) of one lineup of ``specs``."""
    if len(specs) != num_players:
        raise ValueError(f"{len(specs)} agents for {num_players} seats")
    if matches < 1:
        raise ValueError(f"matches must be at least 1, got {matches}")
    game = game_spec("spinner")
    tally = Tally()
    lineup = [Watched(agent, tally) for agent in build_agents(specs, game)]
    for deal in range(-(-matches // num_players)):
        play_deal(game, lineup, seed, deal, rules, on_move=hand_watcher(tally))
    return tally


ENDS = (
    ("won_out", "went out"),
    ("won_blocked", "won blocked"),
    ("lost_out", "lost: other went out"),
    ("lost_blocked", "lost blocked"),
)
KINDS = (
    ("spinner", "spinner tiles (S1.2)"),
    ("double", "other doubles (S1.5)"),
    ("heavy", f"other tiles >= {HEAVY} pts"),
    ("light", f"other tiles < {HEAVY} pts"),
)


def report(tally: Tally) -> str:
    """The tallies as a table, one column per agent."""
    names = list(tally.sums)
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, value) -> None:
        rows.append((label, [value(n) for n in names]))

    def per(key: str, over: str, scale: float = 1.0, fmt: str = "{:.2f}"):
        return lambda n: fmt.format(scale * tally.get(n, key) / max(1.0, tally.get(n, over)))

    row("hands", lambda n: f"{tally.get(n, 'hands'):.0f}")
    row("points kept per hand", per("points", "hands"))
    for key, label in ENDS:
        row(f"{label}: share of hands", per(key, "hands", 100, "{:.1f}%"))
        row(f"{label}: points kept", per(f"{key}_points", key))
    for key, label in KINDS:
        row(f"per hand, points in {label}", per(f"kept_{key}", "hands"))
        row(f"per hand, tiles: {label}", per(f"kept_{key}_tiles", "hands"))
    row("draws per hand", per("draws", "hands"))
    row("passes per hand", per("passes", "hands"))
    row("decisions (two or more legal)", lambda n: f"{tally.get(n, 'decisions'):.0f}")
    row(
        "spinner tile played when a plain one fit",
        per("spinner_over_plain", "spinner_or_plain", 100, "{:.1f}%"),
    )
    row("  tiles held when it did", per("spinner_over_plain_held", "spinner_over_plain"))
    row("opened a wild S end", per("opened_s", "decisions", 100, "{:.1f}%"))
    row(
        "opened a value next seat is void in, when it could",
        per("void_used", "void_chances", 100, "{:.1f}%"),
    )
    row("played a double, when it could", per("double_played", "double_chances", 100, "{:.1f}%"))
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{'':<{width}}" + "".join(f"{n[:22]:>24}" for n in names)]
    lines += [f"{label:<{width}}" + "".join(f"{v:>24}" for v in values) for label, values in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = ArgumentParser("where_points_go.py", __doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=["heuristic", "pimc:time=0.01"])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="one hand, two matches")
    args = parser.parse_args(argv)
    if args.smoke:
        args.agents, args.matches = ["expert", "heuristic"], 2
    rules = {"num_hands": 1} if args.smoke else None
    with fail_cleanly(parser, args.debug):
        tally = study(args.agents, args.matches, len(args.agents), args.seed, rules)
    print(f"{args.matches} matches, seed {args.seed}, {len(args.agents)} players\n")
    print(report(tally))


if __name__ == "__main__":
    main()
