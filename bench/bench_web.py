"""Web game speed: a person's move over HTTP until the answer with the agents' replies,
the answers' sizes, the same under concurrent clients, and the board drawing alone.

A real server (uvicorn on a free local port, in a thread) and keep-alive HTTP clients
play whole matches, the "person" taking the first legal move; every ``POST .../move`` is
timed from send to parsed answer. Each answer holds the agents' replies up to the
person's next turn, and the game was written to disk. Printed:

1. per line-up, one client: median, 90th percentile and maximum ms per move request, the
   mean number of agent replies an answer carried, and the answers' size (kB as sent:
   median and largest);
2. ``--clients`` clients at once (each its own games, 2 players against ``heuristic``):
   ms per move request at the median and 99th percentile, and the largest answer;
3. drawing the board alone, in-process (the SVG of the table, as the server draws it
   after every move of those matches, in order): median, 99th percentile and maximum ms.

Targets (issue 53): drawing under 10 ms at p99, moves under 100 ms at p99 under 8
clients, answers under 50 kB.

    python bench/bench_web.py
    python bench/bench_web.py --matches 5 --game mexican_train
    python bench/bench_web.py --smoke         # one 1-hand match per line-up: does it run
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import uvicorn

from spinner_env.picture import table_scene, to_svg
from spinner_env.play import Table, seat_specs
from spinner_env.web import create_app

LINEUPS = (
    (2, ["random"]),
    (2, ["heuristic"]),
    (4, ["heuristic", "greedy", "random"]),
    (8, ["heuristic"]),
)
CONCURRENT_LINEUP = (2, ["heuristic"])
DRAWING_SEEDS = 100_000
"""The first seed of part 3's matches, unlike any the server plays."""


def serve(data_dir: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # log_config=None: uvicorn's logging set-up would close the handlers this process
    # already has (absl's, once OpenSpiel is imported, holds pytest's captured stderr).
    config = uvicorn.Config(create_app(data_dir), host="127.0.0.1", port=port, log_config=None)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


@dataclass
class Moves:
    """What the move requests of some matches took: ms each, the agents' replies their
    answers carried, and their sizes in bytes as sent."""

    times: list[float] = field(default_factory=list)
    replies: int = 0
    sizes: list[int] = field(default_factory=list)


def play_matches(
    http: httpx.Client,
    game: str,
    players: int,
    opponents: list[str],
    seeds: Sequence[int],
    hands: int,
) -> Moves:
    """Play a match per seed, timing every move request."""
    moves = Moves()
    for seed in seeds:
        body = {"game": game, "players": players, "opponents": opponents, "seed": seed}
        state = http.post("/api/games", json={**body, "hands": hands}).json()["state"]
        while not state["match_over"]:
            if state["hand_over"]:
                state = http.post(f"/api/games/{state['id']}/next-hand", json={"seat": 0}).json()
                state = state["state"]
                continue
            move = {"seat": 0, "action": state["legal"][0]["action"]}
            start = time.perf_counter()
            response = http.post(f"/api/games/{state['id']}/move", json=move)
            answer = response.json()
            moves.times.append((time.perf_counter() - start) * 1000)
            moves.replies += len(answer["steps"])
            moves.sizes.append(response.num_bytes_downloaded)
            state = answer["state"]
    return moves


def concurrent_moves(url: str, game: str, clients: int, matches: int, hands: int) -> Moves:
    """``clients`` clients playing ``matches`` matches each at the same time."""
    players, opponents = CONCURRENT_LINEUP

    def one_client(client: int) -> Moves:
        with httpx.Client(base_url=url, timeout=120) as http:
            http.get("/api/options")  # connect off the clock
            seeds = range(1000 * (client + 1), 1000 * (client + 1) + matches)
            return play_matches(http, game, players, opponents, seeds, hands)

    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(one_client, range(clients)))
    return Moves(
        [t for r in results for t in r.times],
        sum(r.replies for r in results),
        [s for r in results for s in r.sizes],
    )


def drawing_times(
    game: str, players: int, opponents: list[str], matches: int, hands: int
) -> list[float]:
    """Ms to draw the board (SVG) after every move of ``matches`` matches, in order, as
    the server draws it for the person at seat 0. Seeds of their own: the server's
    matches must not have drawn these states already."""
    times = []
    for seed in range(DRAWING_SEEDS, DRAWING_SEEDS + matches):
        table = Table.new(game, seat_specs(players, [0], opponents), seed, hands)
        while not table.state.match_over:
            if table.state.hand_over:
                table.next_hand()
            elif table.agent_to_act():
                table.play_agent()
            else:
                table.play(table.state.legal_moves()[0])
            start = time.perf_counter()
            to_svg(table_scene(table.state, 0))
            times.append((time.perf_counter() - start) * 1000)
    return times


def percentile(values: Sequence[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="spinner", choices=["spinner", "mexican_train"])
    parser.add_argument("--matches", type=int, default=3, help="matches per line-up (and client)")
    parser.add_argument("--hands", type=int, default=2, help="hands (rounds) per match")
    parser.add_argument("--clients", type=int, default=8, help="clients at once in part 2")
    parser.add_argument("--smoke", action="store_true", help="one 1-hand match per line-up")
    args = parser.parse_args(argv)
    if args.smoke:
        args.matches, args.hands = 1, 1
    with tempfile.TemporaryDirectory() as data_dir:
        url, server, thread = serve(Path(data_dir))
        # A benchmark reports slow requests, it does not fail on them: httpx's default 5 s
        # read timeout is shorter than an 8-player request that lays out many boards.
        with httpx.Client(base_url=url, timeout=120) as http:
            http.get("/api/options")  # connect off the clock
            print(f"{args.game}: ms per move request (agents' replies included), one client")
            print(
                f"{'line-up':<42} {'moves':>6} {'median':>7} {'p90':>7} {'max':>7} "
                f"{'replies':>8} {'kB med':>7} {'kB max':>7}"
            )
            for players, opponents in LINEUPS:
                moves = play_matches(
                    http, args.game, players, opponents, range(args.matches), args.hands
                )
                name = f"{players}p vs {' '.join(opponents)}"
                print(
                    f"{name:<42} {len(moves.times):>6} {statistics.median(moves.times):>7.1f} "
                    f"{percentile(moves.times, 90):>7.1f} {max(moves.times):>7.1f} "
                    f"{moves.replies / len(moves.times):>8.1f} "
                    f"{statistics.median(moves.sizes) / 1000:>7.1f} {max(moves.sizes) / 1000:>7.1f}"
                )
        players, opponents = CONCURRENT_LINEUP
        moves = concurrent_moves(url, args.game, args.clients, args.matches, args.hands)
        print(
            f"\n{args.clients} clients at once, {players}p vs {' '.join(opponents)}: "
            f"{len(moves.times)} moves, ms median {statistics.median(moves.times):.1f}, "
            f"p99 {percentile(moves.times, 99):.1f}, max {max(moves.times):.1f}; "
            f"largest answer {max(moves.sizes) / 1000:.1f} kB"
        )
        server.should_exit = True
        thread.join()
    print(f"\n{args.game}: ms to draw the board (SVG) after each move, in-process")
    print(f"{'line-up':<42} {'boards':>6} {'median':>7} {'p99':>7} {'max':>7}")
    for players, opponents in LINEUPS:
        times = drawing_times(args.game, players, opponents, args.matches, args.hands)
        name = f"{players}p vs {' '.join(opponents)}"
        print(
            f"{name:<42} {len(times):>6} {statistics.median(times):>7.1f} "
            f"{percentile(times, 99):>7.1f} {max(times):>7.1f}"
        )


if __name__ == "__main__":
    main()
