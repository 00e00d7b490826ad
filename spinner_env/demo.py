"""Play and render a whole Spinner match between masked random players, in the terminal.

    python -m spinner_env.demo --players 4 --seed 0
    python -m spinner_env.demo --players 2 --every-move

It drives the rules engine directly, so each hand can be shown as it ends, before the
next is dealt.
"""

from __future__ import annotations

import argparse
import random

from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState
from spinner_env.games.spinner.text import render_spinner


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=10, help="hands in the match (1-10)")
    parser.add_argument("--every-move", action="store_true", help="render after every move")
    args = parser.parse_args(argv)
    game = SpinnerState.new(SpinnerRules(num_players=args.players, num_hands=args.hands), args.seed)
    rng = random.Random(args.seed)
    rule = "-" * 72
    print(render_spinner(game, game.current), rule, sep="\n")
    while True:
        seat = game.current
        move = rng.choice(game.legal_moves())
        game.play_legal(move)
        if args.every_move:
            print(f"player_{seat}: {move}")
            print(render_spinner(game, None if game.hand_over else game.current), rule, sep="\n")
        if game.hand_over:
            if not args.every_move:
                print(render_spinner(game), rule, sep="\n")
            if game.match_over:
                break
            game.start_next_hand()
    print("Final totals:", {f"player_{s}": t for s, t in enumerate(game.totals)})


if __name__ == "__main__":
    main()
