"""Web game latency: a person's move, over HTTP, until the answer with the agents' replies.

A real server (uvicorn on a free local port, in a thread) and a keep-alive HTTP client
play whole matches, the "person" taking the first legal move; every ``POST .../move`` is
timed from send to parsed answer. Each answer holds the agents' replies up to the
person's next turn, every one with its SVG board, and the game was written to disk. The
target is under 100 ms for baseline opponents. Printed: median, 90th percentile and
maximum per line-up, and the mean number of agent replies an answer carried.

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
from pathlib import Path

import httpx
import uvicorn

from spinner_env.web import create_app

LINEUPS = (
    (2, ["random"]),
    (2, ["heuristic"]),
    (4, ["heuristic", "greedy", "random"]),
    (8, ["heuristic"]),
)


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


def move_times(
    http: httpx.Client, game: str, players: int, opponents: list[str], matches: int, hands: int
) -> tuple[list[float], int]:
    """Milliseconds per move request, and the agent replies those answers carried."""
    times, replies = [], 0
    for seed in range(matches):
        body = {"game": game, "players": players, "opponents": opponents, "seed": seed}
        state = http.post("/api/games", json={**body, "hands": hands}).json()["state"]
        while not state["match_over"]:
            if state["hand_over"]:
                state = http.post(f"/api/games/{state['id']}/next-hand", json={"seat": 0}).json()
                state = state["state"]
                continue
            move = {"seat": 0, "action": state["legal"][0]["action"]}
            start = time.perf_counter()
            answer = http.post(f"/api/games/{state['id']}/move", json=move).json()
            times.append((time.perf_counter() - start) * 1000)
            replies += len(answer["steps"])
            state = answer["state"]
    return times, replies


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="spinner", choices=["spinner", "mexican_train"])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--hands", type=int, default=2, help="hands (rounds) per match")
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
            print(f"{args.game}: ms per move request (agents' replies included)")
            print(
                f"{'line-up':<42} {'moves':>6} {'median':>7} {'p90':>7} {'max':>7} {'replies':>8}"
            )
            for players, opponents in LINEUPS:
                times, replies = move_times(
                    http, args.game, players, opponents, args.matches, args.hands
                )
                p90 = statistics.quantiles(times, n=10)[-1]
                name = f"{players}p vs {' '.join(opponents)}"
                print(
                    f"{name:<42} {len(times):>6} {statistics.median(times):>7.1f} "
                    f"{p90:>7.1f} {max(times):>7.1f} {replies / len(times):>8.1f}"
                )
        server.should_exit = True
        thread.join()


if __name__ == "__main__":
    main()
